import type { Handler } from '@nap/bus';
import { issueToken } from '../steps/sessions';
import { checkCredentials, loginAttempt } from '../steps/sign-in';
import type { AdminContext } from '../context';

/** `POST /oauth/token`: the client credentials grant: the client id and secret are a username and password. */
export function oauthToken(svc: AdminContext): Handler<'admin.oauthToken'> {
  return async (input, ctx) => {
    const caller = await checkCredentials(svc, input.body.client_id, input.body.client_secret, loginAttempt(svc, ctx, 'oauth'));
    ctx.audit({ target: { kind: 'account', id: caller.id, name: caller.username } });
    const issued = await issueToken(svc, caller, 'oauth', ctx);
    return { access_token: issued.token, token_type: 'Bearer', expires_in: issued.expiresIn };
  };
}
