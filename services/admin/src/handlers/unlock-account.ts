import type { Handler } from '@nap/bus';
import { attemptId } from '../domain/login-throttle';
import type { AdminContext } from '../context';

/** `POST /user-management/accounts/:accountId/unlock`: forgets the failed logins counted for the account's username. */
export function unlockAccount(svc: AdminContext): Handler<'admin.unlockAccount'> {
  return async (input, ctx) => {
    const account = await svc.accounts.get(input.params.accountId);
    const forgotten = await svc.loginAttempts.forget(attemptId('account', account.username));
    // named in the record, so that the account's audit by name holds its unlocks too
    ctx.audit({ target: { kind: 'account', id: input.params.accountId, name: account.username } });
    ctx.log.info({ username: account.username, by: ctx.caller.username, forgotten }, 'Account unlocked');
    return {
      status: 'success',
      message: forgotten
        ? `Account "${account.username}" may log in again at once; its failed logins are forgotten`
        : `Account "${account.username}" had no failed logins counted; it may log in`,
    };
  };
}
