import { AppError } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import { hashPassword } from '../domain/password';
import { attemptLogin, checkPasswordRules, loginAttempt } from '../steps/sign-in';
import type { AdminContext } from '../context';

/**
 * `PUT /whoami/password`: the caller's own new password, given the current one (checked as a
 * login: throttled, and counted as a failed login when wrong); every other session of the account ends.
 */
export function changeMyPassword(svc: AdminContext): Handler<'admin.changeMyPassword'> {
  return async (input, ctx) => {
    if (ctx.caller.id === 'system') throw new AppError('UNPROCESSABLE', 'The system caller has no password to change');
    const { currentPassword, newPassword } = input.body;
    checkPasswordRules(svc, newPassword, 'body.newPassword');
    const account = await svc.accounts.get(ctx.caller.id);
    if (account.provenance !== undefined)
      throw new AppError(
        'UNPROCESSABLE',
        `Account "${account.username}" signs in with sign-in method "${account.provenance}": change the password there, not in NAP`,
      );
    const outcome = await attemptLogin(svc, account.username, currentPassword, loginAttempt(svc, ctx, 'password-change'));
    if (typeof outcome === 'string')
      throw new AppError('CURRENT_PASSWORD_WRONG', `The current password of "${account.username}" is wrong; the password is unchanged`);
    await svc.accounts.update(account._id, {
      passwordHash: await hashPassword(newPassword, svc.scryptCost),
      lastUpdated: new Date().toISOString(),
      lastUpdatedBy: ctx.caller.username,
    });
    // the record says the password changed, never to what
    ctx.audit({ target: { kind: 'account', id: account._id, name: account.username } });
    await svc.sessions.revokeAllOf(account._id, ctx.caller.sid);
    await svc.events.accountChanged({ accountId: account._id, reason: 'password' });
    return {
      status: 'success',
      message: `Password of "${account.username}" changed; its other sessions are ended${ctx.caller.sid === undefined ? '' : ', this one goes on'}`,
    };
  };
}
