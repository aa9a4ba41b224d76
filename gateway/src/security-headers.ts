import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';
import type { BrowserSafety } from './browser-safety';

/** Sets the security headers of one answer before anything else writes it. */
export type SecurityHeaders = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The pages' policy: scripts and styles only from the platform's own files (the console is built
 * without inline scripts; its graph library styles elements through the DOM, which CSP allows),
 * data: images for the icons a library inlines, no plugins, no framing, forms and requests to the
 * platform only.
 */
const PAGE_POLICY = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/** Swagger UI (`/docs`) writes style attributes as it renders, so its styles may be inline; its scripts may not. */
const DOCS_POLICY = { ...PAGE_POLICY, 'style-src': ["'self'", "'unsafe-inline'"] };

/** Year-long HSTS, sent only on answers that went out over https (browsers ignore it over http anyway). */
const HSTS_MAX_AGE_SECONDS = 365 * 24 * 3600;

const noop = (): void => undefined;

/** Static files (the console's build, Swagger UI's assets) carry no token or secret: their routes set their own caching. */
const STATIC_PREFIXES = ['/console/', '/docs/assets/'];

/**
 * Every answer: `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`, no framing, a
 * Content-Security-Policy without inline scripts (the console's, or Swagger UI's on `/docs`), HSTS
 * when the request came over https, and `Cache-Control: no-store` except on static files (the
 * console's, the docs' assets), whose routes set their own: answers carry tokens, job variables and
 * device data that no cache should keep. Headers come from helmet rather than being written by hand.
 */
export function createSecurityHeaders(browser: BrowserSafety): SecurityHeaders {
  const common = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: PAGE_POLICY },
    referrerPolicy: { policy: 'no-referrer' },
    xFrameOptions: { action: 'deny' },
    strictTransportSecurity: false,
  });
  const docs = helmet.contentSecurityPolicy({ useDefaults: false, directives: DOCS_POLICY });
  const hsts = helmet.strictTransportSecurity({ maxAge: HSTS_MAX_AGE_SECONDS, includeSubDomains: false });
  return (req, res) => {
    common(req, res, noop);
    if (req.url?.startsWith('/docs')) docs(req, res, noop);
    if (browser.isSecure(req)) hsts(req, res, noop);
    if (!STATIC_PREFIXES.some((prefix) => req.url?.startsWith(prefix))) res.setHeader('cache-control', 'no-store');
  };
}
