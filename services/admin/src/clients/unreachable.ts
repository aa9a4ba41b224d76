/** Codes of a connection that could not be made or was cut (Node's sockets, undici). */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/**
 * True when an error of a call to an identity provider means it did not answer (refused, cut, timed
 * out, unknown host) rather than answered no: the sign-in method is then unavailable (503), not the
 * person refused (401). Read by name and code through the `cause` chain, not instanceof: fetch's
 * errors come from another realm under test runners.
 */
export function isUnreachable(err: unknown): boolean {
  for (let here: unknown = err, depth = 0; typeof here === 'object' && here !== null && depth < 5; depth += 1) {
    const { name, code, message } = here as { name?: unknown; code?: unknown; message?: unknown };
    if (name === 'TimeoutError' || name === 'AbortError') return true;
    if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true;
    if (message === 'fetch failed') return true;
    here = (here as { cause?: unknown }).cause;
  }
  return false;
}
