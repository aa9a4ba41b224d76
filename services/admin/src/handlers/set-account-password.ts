import type { Handler } from '@nap/bus';
import { AppError, auditChanges } from '@nap/contracts';
import { hashPassword } from '../domain/password';
import { viewAccount } from '../steps/accounts';
import { checkPasswordRules } from '../steps/sign-in';
import type { AdminContext } from '../context';
import { refuseChangeOfStrongerAccount } from '../steps/delegation';

/** `PUT /user-management/accounts/:accountId/password`: a new password (the active profile's password rules met); the account's sessions end. */
export function setAccountPassword(svc: AdminContext): Handler<'admin.setAccountPassword'> {
  return async (input, ctx) => {
    const id = input.params.accountId;
    checkPasswordRules(svc, input.body.password, 'body.password');
    const current = await svc.accounts.get(id);
    await refuseChangeOfStrongerAccount(svc, ctx.caller, current);
    if (current.provenance !== undefined)
      throw new AppError(
        'UNPROCESSABLE',
        `Account "${current.username}" signs in with sign-in method "${current.provenance}": its password is kept there, not in NAP`,
      );
    const updated = await svc.accounts.update(id, {
      passwordHash: await hashPassword(input.body.password, svc.scryptCost),
      lastUpdated: new Date().toISOString(),
      lastUpdatedBy: ctx.caller.username,
    });
    // the hash is a secret by the platform's policy: the record says the password changed, never to what
    ctx.audit({ target: { kind: 'account', id, name: current.username }, changes: auditChanges(current, updated) });
    await svc.sessions.revokeAllOf(id);
    await svc.events.accountChanged({ accountId: id, reason: 'password' });
    const data = await viewAccount(svc, updated);
    return { status: 'success', message: `Password of "${data.username}" changed; its sessions are ended`, data };
  };
}
