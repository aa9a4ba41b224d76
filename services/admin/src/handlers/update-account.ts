import type { Handler } from '@nap/bus';
import { auditChanges } from '@nap/contracts';
import { accountChanges } from '../domain/accounts';
import { keepAnAdmin, viewAccount } from '../steps/accounts';
import type { AdminContext } from '../context';

/** `PATCH /authorization/accounts/:accountId`: names, email, inactive; deactivating an account ends its sessions. */
export function updateAccount(svc: AdminContext): Handler<'admin.updateAccount'> {
  return async (input, ctx) => {
    const id = input.params.accountId;
    const current = await svc.accounts.get(id);
    if (input.body.inactive === true) await keepAnAdmin(svc, current._id, current.groups, []);
    const updated = await svc.accounts.update(id, accountChanges(input.body, ctx.caller.username, new Date().toISOString()));
    ctx.audit({ target: { kind: 'account', id, name: current.username }, changes: auditChanges(current, updated) });
    if (input.body.inactive === true) await svc.sessions.revokeAllOf(id);
    await svc.events.accountChanged({ accountId: id, reason: 'updated' });
    return viewAccount(svc, updated);
  };
}
