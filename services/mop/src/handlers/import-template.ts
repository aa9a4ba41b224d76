import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';

/** `POST /mop/import`: stores an exported template; a taken name becomes `name (n)`. The audit trail names the template stored, of its kind. */
export function importTemplate(svc: MopContext): Handler<'mop.importTemplate'> {
  return async (input, ctx) => {
    const analytic = input.body.type === 'analytic';
    const stored = await (analytic ? svc.analytics : svc.templates).import(input.body.template, ctx.caller.username);
    const id = (stored as { _id?: unknown })._id;
    ctx.audit({
      target: {
        kind: analytic ? 'analytic-template' : 'command-template',
        ...(typeof id === 'string' ? { id } : {}),
        name: stored.name,
      },
    });
    return stored;
  };
}
