import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { AppError } from '@nap/contracts';
import { setOwn } from '@nap/util';

/**
 * The XML the NETCONF client reads: capabilities and session id of a hello, the message-id, data
 * and `<rpc-error>`s of a reply, the operation of an RPC. Parsed with fast-xml-parser, element and
 * attribute names by their local name (namespace prefixes dropped); payloads (`<data>`,
 * `<error-info>`, the inside of a caller's `<rpc>`) are kept as the raw XML text the peer sent,
 * never rebuilt, so their namespace declarations and formatting pass through unchanged.
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

/** What a hello says. */
export interface NetconfHello {
  capabilities: string[];
  sessionId?: string;
}

/** What an `<rpc-reply>` says. */
export interface NetconfReply {
  /** The `message-id` attribute; `undefined` when the agent sent none. */
  messageId?: string;
  /** Every `<rpc-error>`, warnings included. */
  errors: NetconfRpcError[];
  /** Raw XML content of `<data>`, trimmed; '' for `<data/>` or no data. */
  data: string;
}

/** Base 1.0 namespace of NETCONF. */
export const NETCONF_BASE_NS = 'urn:ietf:params:xml:ns:netconf:base:1.0';
/** Capability of base:1.0 (end-of-message framing). */
export const NETCONF_BASE_1_0 = 'urn:ietf:params:netconf:base:1.0';
/** Capability of base:1.1 (chunked framing). */
export const NETCONF_BASE_1_1 = 'urn:ietf:params:netconf:base:1.1';

const ATTRIBUTE = '@_';
const TEXT = '#text';

const COMMON = {
  ignoreAttributes: false,
  attributeNamePrefix: ATTRIBUTE,
  textNodeName: TEXT,
  removeNSPrefix: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Values are text: a session id or capability is never turned into a number.
  parseTagValue: false,
  parseAttributeValue: false,
  // `&#x41;` and the like are resolved as well as the five predefined entities.
  htmlEntities: true,
} as const;

/** Hellos and replies; the raw XML text of `<data>` and `<error-info>`, as sent. */
const parser = new XMLParser({
  ...COMMON,
  stopNodes: ['rpc-reply.data', 'rpc-reply.rpc-error.error-info'],
  isArray: (_name: string, jPath: unknown) => jPath === 'hello.capabilities.capability' || jPath === 'rpc-reply.rpc-error',
});

/** Top-level elements only, each with its content as raw XML text: names an RPC's operation without reading its payload. */
const topLevel = new XMLParser({ ...COMMON, stopNodes: ['*'] });

/** A parsed element: text, or members (child elements, `@_` attributes, `#text`). */
type XmlValue = string | XmlElement | XmlValue[];
interface XmlElement {
  [member: string]: XmlValue | undefined;
}

function isElement(value: XmlValue | undefined): value is XmlElement {
  return typeof value === 'object' && !Array.isArray(value);
}

/** The document as parsed; `{}` when the text is not XML fast-xml-parser can read. */
function parse(xml: string, reader: XMLParser = parser): XmlElement {
  try {
    const doc: unknown = reader.parse(xml);
    return typeof doc === 'object' && doc !== null ? toElement(doc) : {};
  } catch {
    return {};
  }
}

/** fast-xml-parser answers plain objects, arrays and strings; this types them without a cast. */
function toValue(value: unknown): XmlValue {
  if (Array.isArray(value)) return value.map(toValue);
  if (typeof value === 'object' && value !== null) return toElement(value);
  return typeof value === 'string' ? value : String(value);
}

function toElement(value: object): XmlElement {
  const out: XmlElement = {};
  // an element named __proto__ (a valid XML name) is a member like any other
  for (const [key, member] of Object.entries(value)) setOwn(out, key, toValue(member));
  return out;
}

/** The text of an element (`<a>x</a>` or `<a lang="en">x</a>`), trimmed; `undefined` when absent. */
function textOf(value: XmlValue | undefined): string | undefined {
  if (typeof value === 'string') return value.trim();
  if (isElement(value)) return textOf(value[TEXT]) ?? '';
  return undefined;
}

function elements(value: XmlValue | undefined): XmlElement[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map((v) => (isElement(v) ? v : { [TEXT]: v }));
}

/** A name no caller's fragment can close: the wrapper the fragment is checked inside. */
const FRAGMENT_WRAPPER = 'nap-fragment-4f1c';
/** The base:1.0 end-of-message marker (RFC 6242 §4.3). */
const EOM = ']]>]]>';

/**
 * What keeps a caller's XML (a subtree filter, a configuration, an operation) from being placed
 * inside an RPC the client builds, or `undefined` when it can be: it must be well-formed content
 * whose elements all close inside it, so it cannot close `<filter>` or `<rpc>` and add operations of
 * its own (`</filter></get-config><delete-config>…`), and it must not hold the base:1.0
 * end-of-message marker (`]]>]]>`, allowed in attribute values and comments), which would end the
 * message there and make what follows a message of its own.
 */
export function xmlFragmentProblem(xml: string): string | undefined {
  if (xml.includes(EOM)) return `holds the NETCONF end-of-message marker ${EOM}; write > as &gt;`;
  const checked = XMLValidator.validate(`<${FRAGMENT_WRAPPER}>${xml}</${FRAGMENT_WRAPPER}>`);
  if (checked === true) return undefined;
  const why = checked.err.msg.replaceAll(FRAGMENT_WRAPPER, 'the enclosing element');
  return `is not well-formed XML whose elements all close inside it (${why})`;
}

/**
 * Refuses XML of the caller that would not stay where the RPC places it (see `xmlFragmentProblem`):
 * 400 `VALIDATION_FAILED` naming `member`, before any session is opened.
 */
export function refuseXmlFragment(member: string, xml: string): void {
  const problem = xmlFragmentProblem(xml);
  if (problem === undefined) return;
  throw new AppError('VALIDATION_FAILED', `${member} ${problem}`, { details: [{ member, message: problem }] });
}

/** Escapes text for an element or attribute value. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** Capabilities and session id of a `<hello>`; none when the document is not a hello. */
export function parseHello(helloXml: string): NetconfHello {
  const hello = parse(helloXml).hello;
  if (!isElement(hello)) return { capabilities: [] };
  const capabilities = isElement(hello.capabilities) ? elements(hello.capabilities.capability).map((c) => textOf(c) ?? '') : [];
  const out: NetconfHello = { capabilities: capabilities.filter((c) => c !== '') };
  const sessionId = textOf(hello['session-id']);
  if (sessionId !== undefined) out.sessionId = sessionId;
  return out;
}

const ERROR_FIELDS: readonly [Exclude<keyof NetconfRpcError, 'info'>, string][] = [
  ['type', 'error-type'],
  ['tag', 'error-tag'],
  ['severity', 'error-severity'],
  ['appTag', 'error-app-tag'],
  ['path', 'error-path'],
  ['message', 'error-message'],
];

function rpcError(element: XmlElement): NetconfRpcError {
  const error: NetconfRpcError = {};
  for (const [key, name] of ERROR_FIELDS) {
    const value = textOf(element[name]);
    if (value !== undefined) error[key] = value;
  }
  const info = textOf(element['error-info']);
  if (info !== undefined) error.info = info;
  return error;
}

/** The reply a document is, or `undefined` when it is no `<rpc-reply>` (a notification, say). */
export function parseReply(replyXml: string): NetconfReply | undefined {
  const reply = parse(replyXml)['rpc-reply'];
  if (reply === undefined) return undefined;
  const element = isElement(reply) ? reply : {};
  const out: NetconfReply = { errors: elements(element['rpc-error']).map(rpcError), data: textOf(element.data) ?? '' };
  const messageId = textOf(element[`${ATTRIBUTE}message-id`]);
  if (messageId !== undefined) out.messageId = messageId;
  return out;
}

/** The capability URIs a hello lists. */
export function parseCapabilities(helloXml: string): string[] {
  return parseHello(helloXml).capabilities;
}

/** The `message-id` attribute of an `<rpc-reply>`, or `undefined` (e.g. a notification). */
export function replyMessageId(replyXml: string): string | undefined {
  return parseReply(replyXml)?.messageId;
}

/** True when the document is an `<rpc-reply>`. */
export function isRpcReply(xml: string): boolean {
  return parseReply(xml) !== undefined;
}

/** The `<rpc-error>` elements of a reply. */
export function parseRpcErrors(replyXml: string): NetconfRpcError[] {
  return parseReply(replyXml)?.errors ?? [];
}

/**
 * The content of the reply's `<data>` element as raw XML (namespace declarations of the content are
 * kept, those inherited from `<rpc-reply>` are not re-declared); '' for `<data/>` or no data.
 */
export function extractData(replyXml: string): string {
  return parseReply(replyXml)?.data ?? '';
}

/** The local name of the first element of an XML fragment (the RPC operation), for messages; `rpc` when there is none. */
export function firstElementName(xml: string): string {
  const first = Object.keys(parse(xml, topLevel)).find((key) => key !== TEXT && !key.startsWith(ATTRIBUTE));
  return first ?? 'rpc';
}

/** The operation inside an `<rpc>` element when `xml` is a whole `<rpc>`; otherwise `xml` itself, trimmed. */
export function rpcOperation(xml: string): string {
  const doc = parse(xml, topLevel);
  const names = Object.keys(doc).filter((key) => key !== TEXT);
  const rpc = doc.rpc;
  if (names.length !== 1 || rpc === undefined) return xml.trim();
  return textOf(rpc) ?? '';
}
