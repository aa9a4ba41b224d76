import type { ServerResponse } from 'node:http';
import { serialize as serializeCookie } from 'cookie';
import type { OperationDef, OperationId } from '@nap/contracts';
import type { RawResult } from '@nap/bus';
import type { BrowserSafety } from './browser-safety';

/** The operations whose answer sets or clears the `token` cookie. */
const LOGIN: OperationId = 'admin.login';
const LOGOUT: OperationId = 'admin.logout';

export interface SessionCookieOptions {
  /** Lifetime of the login cookie, seconds (the admin service decides the token's own). Defaults to 12 hours. */
  maxAgeSeconds?: number;
  /** Mark the cookie Secure whatever the request (behind TLS); it is anyway when the request came over https. */
  secure?: boolean;
  /** Tells whether a request came over https (directly, or through a trusted proxy). */
  browser: BrowserSafety;
}

/** Sets the cookie of the operation's answer, when it has one. */
export type SessionCookieStep = (op: OperationDef, result: RawResult, res: ServerResponse) => void;

/**
 * Cookies are HTTP's business, so `POST /login` and `GET /logout` get theirs here: the login sets
 * the `token` cookie (HttpOnly, SameSite=Strict, Secure over https) to the token it answered, the
 * logout clears it with the same attributes.
 */
export function createSessionCookies(options: SessionCookieOptions): SessionCookieStep {
  const maxAge = options.maxAgeSeconds ?? 43_200;
  const secure = options.secure ?? false;
  return (op, result, res) => {
    if (op.id === LOGIN) {
      // the login answers the bare token as text/plain
      const token = Buffer.from(result.data).toString('utf8').trim();
      const secureHere = secure || options.browser.isSecure(res.req);
      res.appendHeader(
        'set-cookie',
        serializeCookie('token', token, { httpOnly: true, sameSite: 'strict', secure: secureHere, path: '/', maxAge }),
      );
    } else if (op.id === LOGOUT) {
      const secureHere = options.browser.isSecure(res.req);
      res.appendHeader(
        'set-cookie',
        serializeCookie('token', '', { httpOnly: true, sameSite: 'strict', secure: secureHere, path: '/', expires: new Date(0) }),
      );
    }
  };
}
