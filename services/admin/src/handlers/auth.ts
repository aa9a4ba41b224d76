import { AppError } from '@nap/contracts';
import { rawReply } from '@nap/bus';
import type { HandlerMap } from '@nap/bus';
import type { AdminDomain } from '../domain/admin';

/** `/login`, `/oauth/token`, `/whoami`, `/mySession`, `/logout` and the bus-only token helpers of gateways. */
export function authHandlers(domain: AdminDomain): HandlerMap<'admin'> {
  return {
    login: async (input) => {
      const { username, password } = 'user' in input.body ? input.body.user : input.body;
      const caller = await domain.authenticate(username, password);
      // the bare token, as the platform's existing clients read the body of /login
      return rawReply((await domain.issueToken(caller, 'login')).token, 'text/plain; charset=utf-8');
    },
    oauthToken: async (input) => {
      const caller = await domain.authenticate(input.body.client_id, input.body.client_secret);
      const issued = await domain.issueToken(caller, 'oauth');
      return { access_token: issued.token, token_type: 'Bearer', expires_in: issued.expiresIn };
    },
    whoami: async (_input, ctx) => {
      if (ctx.caller.id === 'system') return { ...ctx.caller };
      return domain.getAccount(ctx.caller.id);
    },
    mySession: async (_input, ctx) => {
      const account = await domain.getAccount(ctx.caller.id);
      if (!ctx.caller.sid) return { method: 'basic', account };
      const session = await domain.getSession(ctx.caller.sid);
      return {
        sid: session._id,
        method: session.method,
        created: session.created,
        expires: new Date(session.expiresAt).toISOString(),
        account,
      };
    },
    logout: async (_input, ctx) => {
      if (!ctx.caller.sid) throw new AppError('UNPROCESSABLE', 'Basic credentials have no session to end; stop sending them');
      await domain.endSession(ctx.caller.sid);
      return { status: 'success', message: 'Logged out' };
    },
    authenticate: async (input) => domain.authenticate(input.body.username, input.body.password),
    resolveSession: async (input) => domain.resolveSession(input.body.sid),
    getTokenKeys: async () => ({ keys: await domain.publicKeys() }),
  };
}
