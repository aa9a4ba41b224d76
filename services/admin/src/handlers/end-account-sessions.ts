import type { Handler } from '@nap/bus';
import { liveSessions, sessionNotFound, sessionRef } from '../domain/sessions';
import { endSession } from '../steps/sessions';
import type { AdminContext } from '../context';
import { refuseChangeOfStrongerAccount } from '../steps/delegation';

/** `DELETE /user-management/accounts/:accountId/sessions`: every session of the account ends; each gateway drops it at once. */
export function endAccountSessions(svc: AdminContext): Handler<'admin.endAccountSessions'> {
  return async (input, ctx) => {
    const account = await svc.accounts.get(input.params.accountId);
    await refuseChangeOfStrongerAccount(svc, ctx.caller, account);
    const live = liveSessions(await svc.sessions.liveOf(account._id), Date.now(), svc.settings.sessionIdleMinutes);
    for (const session of live) await endSession(svc, session._id);
    ctx.audit({ target: { kind: 'account', id: account._id, name: account.username } });
    ctx.log.info({ username: account.username, by: ctx.caller.username, ended: live.length }, 'Sessions of an account ended');
    return {
      status: 'success',
      message:
        live.length === 0
          ? `Account "${account.username}" had no live session`
          : `${live.length} session${live.length === 1 ? '' : 's'} of "${account.username}" ended; its tokens are refused from now on`,
    };
  };
}

/** `DELETE /user-management/accounts/:accountId/sessions/:sessionId`: one session of the account ends. */
export function endAccountSession(svc: AdminContext): Handler<'admin.endAccountSession'> {
  return async (input, ctx) => {
    const account = await svc.accounts.get(input.params.accountId);
    await refuseChangeOfStrongerAccount(svc, ctx.caller, account);
    const ref = input.params.sessionId;
    const live = liveSessions(await svc.sessions.liveOf(account._id), Date.now(), svc.settings.sessionIdleMinutes);
    const session = live.find((s) => sessionRef(s._id) === ref);
    if (session === undefined) throw sessionNotFound(account.username, ref);
    await endSession(svc, session._id);
    ctx.audit({ target: { kind: 'session', id: ref, name: account.username } });
    ctx.log.info({ username: account.username, by: ctx.caller.username, session: ref }, 'A session of an account ended');
    return { status: 'success', message: `Session ${ref} of "${account.username}" ended; its token is refused from now on` };
  };
}
