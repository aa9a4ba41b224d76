import type { Handler } from '@nap/bus';
import { sessionEnded } from '../domain/sessions';
import { viewAccount } from '../steps/accounts';
import type { AdminContext } from '../context';

/** `GET /mySession`: the session of the calling token with its account; basic credentials have none. */
export function mySession(svc: AdminContext): Handler<'admin.mySession'> {
  return async (_input, ctx) => {
    const account = await viewAccount(svc, await svc.accounts.get(ctx.caller.id));
    if (!ctx.caller.sid) return { method: 'basic', account };
    const session = await svc.sessions.find(ctx.caller.sid);
    if (!session) throw sessionEnded();
    return {
      sid: session._id,
      method: session.method,
      created: session.created,
      expires: new Date(session.expiresAt).toISOString(),
      account,
    };
  };
}
