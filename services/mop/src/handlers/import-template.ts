import type { Handler } from '@nap/bus';
import type { MopContext } from '../deps';

/** `POST /mop/import`: stores an exported template; a taken name becomes `name (n)`. */
export function importTemplate(mop: MopContext): Handler<'mop.importTemplate'> {
  return async (input, ctx) => {
    const repo = input.body.type === 'analytic' ? mop.analytics : mop.templates;
    return repo.import(input.body.template, ctx.caller.username);
  };
}
