import type { Handler } from '@nap/bus';
import { finishBrowserSignIn } from '../steps/browser-sign-in';
import { issueToken } from '../steps/sessions';
import { loginAttempt } from '../steps/sign-in';
import type { AdminContext } from '../context';

/** `GET /sso/callback`: finishes an OpenID Connect sign-in; the gateway sets the token cookie and redirects to `returnTo`. */
export function ssoCallback(svc: AdminContext): Handler<'admin.ssoCallback'> {
  return async (input, ctx) => {
    const query = Object.fromEntries(Object.entries(input.query).filter((e): e is [string, string] => typeof e[1] === 'string'));
    const { caller, returnTo, renewal } = await finishBrowserSignIn(
      svc,
      query.state,
      { query, form: {} },
      'oidc',
      loginAttempt(svc, ctx, 'sso'),
    );
    ctx.audit({ target: { kind: 'account', id: caller.id, name: caller.username } });
    return { token: (await issueToken(svc, caller, 'sso', ctx, renewal)).token, returnTo };
  };
}
