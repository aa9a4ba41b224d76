import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import { sessionEnd, sessionEnded, sessionIdle } from '../domain/sessions';
import { callerOfAccount } from '../steps/accounts';
import { endSession, recheckedAccount } from '../steps/sessions';
import type { AdminContext } from '../context';

/**
 * Bus only: the caller a live session stands for, with roles as they are now; 401 when it ended or
 * stayed unused beyond the idle limit. The session of an account of a sign-in method (LDAP, …) is
 * checked with that method again once its re-check interval has passed: this is the renewal the
 * gateway asks for at most once a minute per session.
 */
export function resolveSession(svc: AdminContext): Handler<'admin.resolveSession'> {
  return async (input, ctx) => {
    const { sid } = input.body;
    const session = await svc.sessions.find(sid);
    const now = Date.now();
    const idleMinutes = svc.settings.sessionIdleMinutes;
    const end = sessionEnd(session, now, idleMinutes);
    if (end === 'ended' || !session) throw sessionEnded();
    if (end === 'idle') {
      await endSession(svc, sid);
      throw sessionIdle(idleMinutes);
    }
    await svc.sessions.touch(sid, now);
    const account = await svc.accounts.find(session.accountId);
    if (!account || account.inactive) throw new AppError('UNAUTHENTICATED', 'The account of this session no longer exists or is inactive');
    return { ...(await callerOfAccount(svc, await recheckedAccount(svc, account, session, now, ctx.deadline))), sid };
  };
}
