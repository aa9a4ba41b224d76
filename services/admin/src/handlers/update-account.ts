import type { Handler } from '@nap/bus';
import { auditChanges } from '@nap/contracts';
import { accountChanges } from '../domain/accounts';
import type { HeldClaim } from '../engine/serialized-changes';
import { changingAdministrators, keepAnAdmin, viewAccount } from '../steps/accounts';
import type { AdminContext } from '../context';
import { refuseChangeOfStrongerAccount } from '../steps/delegation';

/** `PATCH /authorization/accounts/:accountId`: names, email, inactive; deactivating an account ends its sessions. */
export function updateAccount(svc: AdminContext): Handler<'admin.updateAccount'> {
  return async (input, ctx) => {
    const id = input.params.accountId;
    const deactivates = input.body.inactive === true;
    /** `held`: deactivating may take the admin role from the last administrator, so it is checked and written as the other such changes. */
    const change = async (held?: HeldClaim) => {
      const current = await svc.accounts.get(id);
      await refuseChangeOfStrongerAccount(svc, ctx.caller, current);
      if (held !== undefined) {
        await keepAnAdmin(svc, current._id, current.groups, []);
        await held.confirm();
      }
      const updated = await svc.accounts.update(id, accountChanges(input.body, ctx.caller.username, new Date().toISOString()));
      return { current, updated };
    };
    const { current, updated } = deactivates ? await changingAdministrators(svc, ctx.deadline, change) : await change();
    ctx.audit({ target: { kind: 'account', id, name: current.username }, changes: auditChanges(current, updated) });
    if (deactivates) await svc.sessions.revokeAllOf(id);
    await svc.events.accountChanged({ accountId: id, reason: 'updated' });
    return viewAccount(svc, updated);
  };
}
