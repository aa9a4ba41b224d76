import { isRecord } from '@nap/util';

/** An HTTP token (RFC 9110 §5.6.2), what Node's HTTP client accepts as a header name. */
const HEADER_NAME = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/;
/** What Node's HTTP client refuses in a header value: control characters but tab (CR and LF among them), and beyond Latin-1. */
const INVALID_VALUE_CHAR = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * Headers the platform sets itself: where the request goes (`Host`, from the device's
 * gw_http_base_url) and how its body is framed. Set by a caller, `Host` would reach another virtual
 * host on the device's address, and the framing ones could make the device read two requests.
 */
const PLATFORM_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer']);

/** A header problem: the member it is at (`body.headers.X`) and what is wrong, never the value (it may be a secret). */
export interface HeaderProblem {
  member: string;
  message: string;
}

/**
 * What Node's HTTP client would refuse in `headers` (a name that is not an HTTP token, a value with
 * CR, LF or another control character, a value that is not a string) and the headers the platform
 * sets itself (`Host`, the body's framing), one problem per header, each
 * naming `at.<name>`. Empty when every header can be sent.
 */
export function headerProblems(headers: unknown, at: string): HeaderProblem[] {
  if (!isRecord(headers)) return [{ member: at, message: `${at} must be an object of header names and string values` }];
  const problems: HeaderProblem[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const member = `${at}.${name}`;
    if (!HEADER_NAME.test(name)) {
      problems.push({
        member,
        message: `${member}: the header name must be an HTTP token (letters, digits and !#$%&'*+-.^_\`|~, no spaces)`,
      });
      continue;
    }
    if (PLATFORM_HEADERS.has(name.toLowerCase())) {
      problems.push({
        member,
        message: `${member}: the platform sets ${name} itself (from the device's gw_http_base_url and the request's body)`,
      });
      continue;
    }
    if (typeof value !== 'string') {
      problems.push({ member, message: `${member} must be a string` });
      continue;
    }
    if (INVALID_VALUE_CHAR.test(value)) {
      problems.push({
        member,
        message: `${member}: the header value must not hold CR, LF or other control characters, nor characters beyond Latin-1`,
      });
    }
  }
  return problems;
}
