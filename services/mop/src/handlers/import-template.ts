import type { Handler } from '@nap/bus';
import { reply } from '@nap/bus';
import type { MopContext } from '../context';

/** `POST /mop/import`: stores an exported template; a taken name becomes `name (n)`. The audit trail names the template stored, of its kind. */
export function importTemplate(svc: MopContext): Handler<'mop.importTemplate'> {
  return async (input, ctx) => {
    const repo = input.body.type === 'analytic' ? svc.analytics : svc.templates;
    const stored = await repo.import(input.body.template, ctx.caller.username);
    ctx.audit({ target: { kind: repo.auditKind, id: stored._id, name: stored.name } });
    // ipctl checks 201 when it imports an analytic template, 200 for a command template
    return input.body.type === 'analytic' ? reply(201, stored) : stored;
  };
}
