import type { Handler } from '@nap/bus';
import { finishBrowserSignIn } from '../steps/browser-sign-in';
import { issueToken } from '../steps/sessions';
import { loginAttempt } from '../steps/sign-in';
import type { AdminContext } from '../context';

/** `POST /sso/saml/acs`: finishes a SAML sign-in; the gateway sets the token cookie and redirects to `returnTo`. */
export function samlAcs(svc: AdminContext): Handler<'admin.samlAcs'> {
  return async (input, ctx) => {
    const form: Record<string, string> = { SAMLResponse: input.body.SAMLResponse };
    if (input.body.RelayState !== undefined) form.RelayState = input.body.RelayState;
    const { caller, returnTo, renewal } = await finishBrowserSignIn(
      svc,
      input.body.RelayState,
      { query: {}, form },
      'saml',
      loginAttempt(svc, ctx, 'sso'),
    );
    ctx.audit({ target: { kind: 'account', id: caller.id, name: caller.username } });
    return { token: (await issueToken(svc, caller, 'sso', ctx, renewal)).token, returnTo };
  };
}
