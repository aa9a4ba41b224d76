import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { parse as parseCookie } from 'cookie';
import { AppError } from '@nap/contracts';
import type { OperationDef } from '@nap/contracts';
import { readCredentials } from './auth/authenticator';

/** Where browsers reach the platform, and which other sites' pages may act with its cookie session. */
export interface BrowserSafetyOptions {
  /** `NAP_PUBLIC_URL`: its origin is the platform's own; https makes cookies `Secure` and turns HSTS on. */
  publicUrl?: string;
  /** `NAP_ALLOWED_ORIGINS`: further origins whose pages may change things with the cookie session. */
  allowedOrigins?: readonly string[];
  /** `NAP_TRUST_PROXY`: believe the proxy's `X-Forwarded-Proto` and `X-Forwarded-Host`. */
  trustProxy?: boolean;
}

/** The rules that keep the `token` cookie from acting for another site's page. */
export interface BrowserSafety {
  /** True when the request reached the platform over https (directly, through NAP_PUBLIC_URL, or a trusted proxy). */
  isSecure(req: IncomingMessage): boolean;
  /**
   * `403 CROSS_SITE_REQUEST` for a change (any method but GET, HEAD, OPTIONS) to `op` authenticated
   * by the `token` cookie alone whose `Origin` is not the platform's own or an allowed one (without
   * `Origin`: whose `Sec-Fetch-Site` is there and not `same-origin` or `none`; a request with
   * neither is a program's, not a page's); undefined when it may go on.
   * `queryToken` is the `?token=` of the request: a token in the URL is not the browser's doing.
   */
  refuseCrossSite(req: IncomingMessage, op: OperationDef, queryToken: unknown): AppError | undefined;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const SAME_SITE_FETCHES = new Set(['same-origin', 'none']);

function firstHeader(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text?.split(',')[0]?.trim().toLowerCase() || undefined;
}

/** `host[:port]` of an origin as URL writes it (lower case, default port left out); undefined for what is not an http(s) origin. */
function hostOf(origin: string): { host: string; protocol: string } | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? { host: url.host, protocol: url.protocol } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The browser rules of issue #20, enforced by the gateway because the cookie is HTTP's business:
 * the console works within them (same origin, cookie `SameSite=Strict`), and scripts, CI and
 * other services, which send `Authorization` or `?token=`, never meet them.
 */
export function createBrowserSafety(options: BrowserSafetyOptions = {}): BrowserSafety {
  const publicUrl = options.publicUrl === undefined ? undefined : new URL(options.publicUrl);
  const trustProxy = options.trustProxy ?? false;
  const allowed = new Set<string>(options.allowedOrigins ?? []);
  if (publicUrl) allowed.add(publicUrl.origin);

  function forwarded(req: IncomingMessage, name: 'x-forwarded-proto' | 'x-forwarded-host'): string | undefined {
    return trustProxy ? firstHeader(req.headers[name]) : undefined;
  }

  function isSecure(req: IncomingMessage): boolean {
    if ((req.socket as Partial<TLSSocket>).encrypted === true) return true;
    if (publicUrl?.protocol === 'https:') return true;
    return forwarded(req, 'x-forwarded-proto') === 'https';
  }

  /** The request's own origin is the host it was addressed to, whatever scheme the browser used. */
  function isOwnOrigin(req: IncomingMessage, origin: string): boolean {
    const parsed = hostOf(origin);
    if (!parsed) return false;
    const addressed = forwarded(req, 'x-forwarded-host') ?? firstHeader(req.headers.host);
    if (addressed === undefined) return false;
    // the Host header may name the default port that the Origin leaves out
    const defaultPort = parsed.protocol === 'https:' ? ':443' : ':80';
    const host = addressed.endsWith(defaultPort) ? addressed.slice(0, -defaultPort.length) : addressed;
    return host === parsed.host;
  }

  /**
   * Whether the cookie is what will authenticate the request, read as the authenticator reads
   * credentials: a `?token=` that holds no token (`?token=`, `?token[a]=1`), or an empty
   * `Authorization`, leaves it to the cookie, so it must not let the request past this rule either.
   */
  function isCookieOnly(req: IncomingMessage, queryToken: unknown): boolean {
    const cookie = req.headers.cookie;
    if (cookie === undefined || parseCookie(cookie).token === undefined) return false;
    try {
      return readCredentials(req.headers, queryToken)?.via === 'cookie';
    } catch {
      // an Authorization header that is neither Bearer nor Basic: refused as such, the cookie never looked at
      return false;
    }
  }

  function refuseCrossSite(req: IncomingMessage, op: OperationDef, queryToken: unknown): AppError | undefined {
    const method = req.method ?? 'GET';
    if (SAFE_METHODS.has(method) || op.auth === 'public' || !isCookieOnly(req, queryToken)) return undefined;
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const normalized = hostOf(origin) ? new URL(origin).origin : origin;
      if (allowed.has(normalized) || isOwnOrigin(req, origin)) return undefined;
      return new AppError(
        'CROSS_SITE_REQUEST',
        `${method} ${op.http?.path ?? op.id} was sent with only the token cookie from the page of ${JSON.stringify(origin)}, ` +
          `which is not this platform's origin${publicUrl ? ` (${publicUrl.origin})` : ''}; ` +
          'add it to NAP_ALLOWED_ORIGINS if it is yours, or send the token in an Authorization header',
      );
    }
    const fetchSite = firstHeader(req.headers['sec-fetch-site']);
    // Neither Origin nor Sec-Fetch-Site: a program's request (ipctl, ipsdk keep the cookie of their
    // login), not a page's. A browser that could send the cookie from another site's page (it is
    // SameSite=Strict) sends Origin with every change, and Sec-Fetch-Site; Go's net/http
    // CrossOriginProtection draws the same line.
    if (fetchSite === undefined || SAME_SITE_FETCHES.has(fetchSite)) return undefined;
    return new AppError(
      'CROSS_SITE_REQUEST',
      `${method} ${op.http?.path ?? op.id} was sent with only the token cookie from another site's page (Sec-Fetch-Site: ${fetchSite}); ` +
        'send the token in an Authorization header',
    );
  }

  return { isSecure, refuseCrossSite };
}
