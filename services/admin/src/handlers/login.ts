import { rawReply } from '@nap/bus';
import type { Handler } from '@nap/bus';
import { issueToken } from '../steps/sessions';
import { checkCredentials, loginAttempt } from '../steps/sign-in';
import type { AdminContext } from '../context';

/** `POST /login`: checks the credentials and begins a session; answers the bare token, as the platform's existing clients read the body of /login. */
export function login(svc: AdminContext): Handler<'admin.login'> {
  return async (input, ctx) => {
    const { username, password } = 'user' in input.body ? input.body.user : input.body;
    const caller = await checkCredentials(svc, username, password, loginAttempt(svc, ctx, 'login'));
    ctx.audit({ target: { kind: 'account', id: caller.id, name: caller.username } });
    return rawReply((await issueToken(svc, caller, 'login', ctx)).token, 'text/plain; charset=utf-8');
  };
}
