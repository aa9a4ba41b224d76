import type { Handler } from '@nap/bus';
import type { MopContext } from '../deps';

/** `POST /mop/import`: stores an exported template; a taken name becomes `name (n)`. */
export function importTemplate(mop: MopContext): Handler {
  return (async (input: { body: { template: Record<string, unknown> & { name: string }; type?: 'template' | 'analytic' } }, ctx) => {
    const repo = input.body.type === 'analytic' ? mop.analytics : mop.templates;
    return repo.import(input.body.template, ctx.caller.username);
  }) as Handler;
}
