import type { Handler } from '@nap/bus';
import { hashPassword } from '../domain/password';
import { viewAccount } from '../context';
import type { AdminContext } from '../context';

/** `PUT /user-management/accounts/:accountId/password`: a new password; the account's sessions end. */
export function setAccountPassword(svc: AdminContext): Handler<'admin.setAccountPassword'> {
  return async (input, ctx) => {
    const id = input.params.accountId;
    await svc.accounts.get(id);
    const updated = await svc.accounts.update(id, {
      passwordHash: await hashPassword(input.body.password),
      lastUpdated: new Date().toISOString(),
      lastUpdatedBy: ctx.caller.username,
    });
    await svc.sessions.revokeAllOf(id);
    await svc.events.accountChanged({ accountId: id, reason: 'password' });
    const data = await viewAccount(svc, updated);
    return { status: 'success', message: `Password of "${data.username}" changed; its sessions are ended`, data };
  };
}
