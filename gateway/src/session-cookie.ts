import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseCookie, serialize as serializeCookie } from 'cookie';
import { AppError } from '@nap/contracts';
import { isRecord } from '@nap/util';
import type { OperationDef, OperationId } from '@nap/contracts';
import type { RawResult } from '@nap/bus';
import type { BrowserSafety } from './browser-safety';

/** The operations whose answer sets or clears the `token` cookie. */
const LOGIN: OperationId = 'admin.login';
const LOGOUT: OperationId = 'admin.logout';
/** A browser sign-in begins here: the browser is sent to the identity provider with the `nap_sso` cookie. */
const SSO_LOGIN: OperationId = 'admin.ssoLogin';
/** A browser sign-in ends at these, with the state in the query (OIDC) or the form (SAML `RelayState`). */
const SSO_ENDS: Readonly<Record<string, (query: Record<string, unknown>, body: unknown) => unknown>> = {
  'admin.ssoCallback': (query) => query.state,
  'admin.samlAcs': (_query, body) => (isRecord(body) ? body.RelayState : undefined),
};

/** The cookie that binds a browser sign-in to the browser that began it. */
export const SSO_COOKIE = 'nap_sso';
/** Its lifetime, seconds: as long as the admin service keeps the sign-in under way. */
const SSO_COOKIE_MAX_AGE_SECONDS = 600;

export interface SessionCookieOptions {
  /** Lifetime of the login cookie, seconds (the admin service decides the token's own). Defaults to 12 hours. */
  maxAgeSeconds?: number;
  /** Mark the cookie Secure whatever the request (behind TLS); it is anyway when the request came over https. */
  secure?: boolean;
  /** Tells whether a request came over https (directly, or through a trusted proxy). */
  browser: BrowserSafety;
  /**
   * Whether the console's login page can be served (it is built): a failed browser sign-in goes
   * back to it only then, and is answered with its error otherwise. Always by default.
   */
  consoleServed?: () => boolean;
}

/** The cookie steps of the operation path. */
export interface SessionCookies {
  /**
   * Refuses the end of a browser sign-in (`GET /sso/callback`, `POST /sso/saml/acs`) that this
   * browser did not begin: its state must be the `nap_sso` cookie that `GET /sso/login` set. So a
   * sign-in begun by someone else (login CSRF: a link carrying the attacker's own code) goes nowhere.
   *
   * Errors: 401 `UNAUTHENTICATED`.
   */
  checkBrowserBinding(op: OperationDef, req: IncomingMessage, query: Record<string, unknown>, body: unknown): void;
  /** Sets the cookie of the operation's answer, when it has one; true when it answered the request itself (the redirects of browser sign-in). */
  answer(op: OperationDef, result: RawResult, res: ServerResponse): boolean;
  /**
   * A browser sign-in that failed, in a browser (the request accepts HTML): sends the person back
   * to the console's login page, which says what went wrong (`signInError`, the error code, and
   * `requestId`), rather than leaving them on an error body. Not where the console is not served:
   * there the error answers. True when it answered.
   */
  answerFailure(op: OperationDef, error: AppError, req: IncomingMessage, res: ServerResponse, requestId: string): boolean;
}

/**
 * Cookies are HTTP's business, so `POST /login` and `GET /logout` get theirs here: the login sets
 * the `token` cookie (HttpOnly, SameSite=Strict, Secure over https) to the token it answered, the
 * logout clears it with the same attributes. A browser sign-in gets the same `token` cookie at its
 * end, and its two redirects: to the identity provider (binding the sign-in to the browser with the
 * `nap_sso` cookie) and back to the console.
 */
export function createSessionCookies(options: SessionCookieOptions): SessionCookies {
  const maxAge = options.maxAgeSeconds ?? 43_200;
  const secure = options.secure ?? false;

  function setToken(res: ServerResponse, token: string): void {
    const secureHere = secure || options.browser.isSecure(res.req);
    res.appendHeader(
      'set-cookie',
      serializeCookie('token', token, { httpOnly: true, sameSite: 'strict', secure: secureHere, path: '/', maxAge }),
    );
  }

  /** `nap_sso`: sent back by the identity provider's redirect (Lax) or form post (None, which browsers allow only when Secure). */
  function setBinding(res: ServerResponse, value: string, clear: boolean): void {
    const secureHere = secure || options.browser.isSecure(res.req);
    res.appendHeader(
      'set-cookie',
      serializeCookie(SSO_COOKIE, value, {
        httpOnly: true,
        sameSite: secureHere ? 'none' : 'lax',
        secure: secureHere,
        path: '/sso',
        ...(clear ? { expires: new Date(0) } : { maxAge: SSO_COOKIE_MAX_AGE_SECONDS }),
      }),
    );
  }

  function redirect(res: ServerResponse, status: number, location: string): void {
    res.statusCode = status;
    res.setHeader('location', location);
    res.setHeader('cache-control', 'no-store');
    res.end();
  }

  return {
    answerFailure(op, error, req, res, requestId) {
      if (op.id !== SSO_LOGIN && SSO_ENDS[op.id] === undefined) return false;
      if (!acceptsHtml(req) || options.consoleServed?.() === false) return false;
      // the sign-in is over: its binding goes
      if (SSO_ENDS[op.id] !== undefined) setBinding(res, '', true);
      const query = new URLSearchParams({ signInError: error.code, requestId });
      redirect(res, 303, `/console/login?${query.toString()}`);
      return true;
    },
    checkBrowserBinding(op, req, query, body) {
      const stateOf = SSO_ENDS[op.id];
      if (stateOf === undefined) return;
      const state = stateOf(query, body);
      const cookie = req.headers.cookie === undefined ? undefined : parseCookie(req.headers.cookie)[SSO_COOKIE];
      if (typeof state !== 'string' || cookie === undefined || !sameText(state, cookie))
        throw new AppError(
          'UNAUTHENTICATED',
          `This sign-in was not begun in this browser (its state is not the ${SSO_COOKIE} cookie that GET /sso/login set); sign in again from the platform's login page`,
        );
    },
    answer(op, result, res) {
      if (op.id === LOGIN) {
        // the login answers the bare token as text/plain
        setToken(res, Buffer.from(result.data).toString('utf8').trim());
      } else if (op.id === LOGOUT) {
        const secureHere = options.browser.isSecure(res.req);
        res.appendHeader(
          'set-cookie',
          serializeCookie('token', '', { httpOnly: true, sameSite: 'strict', secure: secureHere, path: '/', expires: new Date(0) }),
        );
      } else if (op.id === SSO_LOGIN) {
        const { redirectUrl, state } = jsonOf(result) as { redirectUrl: string; state: string };
        setBinding(res, state, false);
        redirect(res, 302, redirectUrl);
        return true;
      } else if (SSO_ENDS[op.id] !== undefined) {
        const { token, returnTo } = jsonOf(result) as { token: string; returnTo: string };
        setToken(res, token);
        setBinding(res, '', true);
        // the admin service answers a path of this platform; a slip would not send the browser elsewhere
        redirect(res, 303, returnTo.startsWith('/') && !returnTo.startsWith('//') ? returnTo : '/console/');
        return true;
      }
      return false;
    },
  };
}

/**
 * True when the request came from a browser navigation (it asks for an HTML page, as browsers do:
 * `text/html,application/xhtml+xml,…,*\/*;q=0.8`); a client that names JSON gets the error body.
 */
function acceptsHtml(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  return typeof accept === 'string' && accept.includes('text/html') && !accept.includes('application/json');
}

function jsonOf(result: RawResult): unknown {
  return JSON.parse(Buffer.from(result.data.buffer, result.data.byteOffset, result.data.byteLength).toString('utf8'));
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
