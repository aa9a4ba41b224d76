import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';

/** `POST /mop/import`: stores an exported template; a taken name becomes `name (n)`. */
export function importTemplate(svc: MopContext): Handler<'mop.importTemplate'> {
  return async (input, ctx) => {
    const repo = input.body.type === 'analytic' ? svc.analytics : svc.templates;
    return repo.import(input.body.template, ctx.caller.username);
  };
}
