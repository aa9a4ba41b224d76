import type { Handler } from '@nap/bus';
import { liveSessions, sessionView } from '../domain/sessions';
import type { AdminContext } from '../context';

/** `GET /user-management/accounts/:accountId/sessions`: the account's live sessions, newest first; never a token. */
export function getAccountSessions(svc: AdminContext): Handler<'admin.getAccountSessions'> {
  return async (input) => {
    const account = await svc.accounts.get(input.params.accountId);
    const live = liveSessions(await svc.sessions.liveOf(account._id), Date.now(), svc.settings.sessionIdleMinutes);
    return { results: live.map(sessionView), total: live.length };
  };
}
