/**
 * The little XML the NETCONF client must read: capabilities and session id of a hello, the
 * message-id of a reply, `<ok/>`, the content of `<data>`, and `<rpc-error>` elements. No XML parser
 * is installed in the workspace, so these are narrow, namespace-prefix-tolerant patterns over
 * well-formed agent output; payloads (configuration) are passed through as text, never rewritten.
 */

/** One `<rpc-error>` of a reply (RFC 6241 §4.3). */
export interface NetconfRpcError {
  type?: string;
  tag?: string;
  severity?: string;
  appTag?: string;
  path?: string;
  message?: string;
  /** Raw XML of `<error-info>`. */
  info?: string;
}

/** Base 1.0 namespace of NETCONF. */
export const NETCONF_BASE_NS = 'urn:ietf:params:xml:ns:netconf:base:1.0';
/** Capability of base:1.0 (end-of-message framing). */
export const NETCONF_BASE_1_0 = 'urn:ietf:params:netconf:base:1.0';
/** Capability of base:1.1 (chunked framing). */
export const NETCONF_BASE_1_1 = 'urn:ietf:params:netconf:base:1.1';

const PREFIX = '(?:[A-Za-z_][\\w.-]*:)?';

function elementPattern(name: string, flags = 'g'): RegExp {
  return new RegExp(`<${PREFIX}${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${PREFIX}${name}\\s*>`, flags);
}

/** Escapes text for an element or attribute value. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** Resolves the predefined entities and character references of element text. */
export function unescapeXml(text: string): string {
  return text
    .replace(/&#x([0-9a-fA-F]+);/g, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#([0-9]+);/g, (_m, dec: string) => String.fromCodePoint(parseInt(dec, 10)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

/** Text of the first `name` element in `xml`, unescaped and trimmed; `undefined` when absent. */
export function elementText(xml: string, name: string): string | undefined {
  const m = elementPattern(name, '').exec(xml);
  return m?.[1] === undefined ? undefined : unescapeXml(m[1].trim());
}

/** The capability URIs a hello lists. */
export function parseCapabilities(helloXml: string): string[] {
  return [...helloXml.matchAll(elementPattern('capability'))].map((m) => unescapeXml((m[1] ?? '').trim())).filter((c) => c !== '');
}

/** The `message-id` attribute of an `<rpc-reply>`, or `undefined` (e.g. a notification). */
export function replyMessageId(replyXml: string): string | undefined {
  const m = new RegExp(`<${PREFIX}rpc-reply\\b[^>]*?\\bmessage-id\\s*=\\s*("([^"]*)"|'([^']*)')`).exec(replyXml);
  return m === null ? undefined : (m[2] ?? m[3]);
}

/** True when the document is an `<rpc-reply>`. */
export function isRpcReply(xml: string): boolean {
  return new RegExp(`<${PREFIX}rpc-reply\\b`).test(xml);
}

/** The `<rpc-error>` elements of a reply. */
export function parseRpcErrors(replyXml: string): NetconfRpcError[] {
  return [...replyXml.matchAll(elementPattern('rpc-error'))].map((m) => {
    const body = m[1] ?? '';
    const error: NetconfRpcError = {};
    const fields: [keyof NetconfRpcError, string][] = [
      ['type', 'error-type'],
      ['tag', 'error-tag'],
      ['severity', 'error-severity'],
      ['appTag', 'error-app-tag'],
      ['path', 'error-path'],
      ['message', 'error-message'],
    ];
    for (const [key, element] of fields) {
      const value = elementText(body, element);
      if (value !== undefined) error[key] = value;
    }
    const info = elementPattern('error-info', '').exec(body)?.[1];
    if (info !== undefined) error.info = info.trim();
    return error;
  });
}

/**
 * The content of the reply's `<data>` element as raw XML (namespace declarations of the content are
 * kept, those inherited from `<rpc-reply>` are not re-declared); '' for `<data/>` or no data.
 */
export function extractData(replyXml: string): string {
  const open = new RegExp(`<(${PREFIX})data(\\s[^>]*)?(/?)>`).exec(replyXml);
  if (open === null || open[3] === '/') return '';
  const start = open.index + open[0].length;
  const close = replyXml.lastIndexOf(`</${open[1] ?? ''}data`);
  return close < start ? '' : replyXml.slice(start, close).trim();
}

/** The local name of the first element of an XML fragment (the RPC operation), for messages. */
export function firstElementName(xml: string): string {
  const m = /<(?![?!])(?:[A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)/.exec(xml);
  return m?.[1] ?? 'rpc';
}
