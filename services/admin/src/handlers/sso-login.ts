import type { Handler } from '@nap/bus';
import { beginBrowserSignIn } from '../steps/browser-sign-in';
import type { AdminContext } from '../context';

/** `GET /sso/login`: begins a browser sign-in; the gateway redirects to `redirectUrl` and binds `state` to the browser with its cookie. */
export function ssoLogin(svc: AdminContext): Handler<'admin.ssoLogin'> {
  return async (input) => beginBrowserSignIn(svc, input.query.provider, input.query.returnTo);
}
