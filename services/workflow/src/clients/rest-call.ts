import { ADDRESS_REFUSED, guardedLookup, isRecord, onFirstUse, refusedLiteralAddress } from '@nap/util';
import type * as Undici from 'undici';
import type { Response } from 'undici';
import type { Builtin } from '../domain/builtins';
import { TaskInputError } from '../domain/builtins';
import { needString, tryJson } from '../domain/builtins/types';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/** Largest answer read, bytes: a workflow author must not be able to fill the engine's memory with one call. */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
/** Redirects followed, as fetch follows them. */
const MAX_REDIRECTS = 20;

/**
 * The connections of restCall tasks: each resolves its host name through {@link guardedLookup}, so a
 * name checked before a request cannot lead the connection itself somewhere refused (DNS rebinding).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on the first restCall (onFirstUse)
const undici = onFirstUse(() => require('undici') as typeof Undici);
const dispatcher = onFirstUse(() => new (undici().Agent)({ connect: { lookup: guardedLookup } }));

/** The refusal of a connection {@link guardedLookup} stopped, as the task's input error; anything else as it is. */
function refusalOf(err: unknown): unknown {
  const cause = err instanceof Error ? err.cause : undefined;
  if (cause instanceof Error && (cause as NodeJS.ErrnoException).code === ADDRESS_REFUSED)
    return new TaskInputError(`restCall may not reach ${cause.message}`);
  return err;
}

/** The answer's text, refused past {@link MAX_RESPONSE_BYTES}. */
async function boundedText(res: Response, url: URL): Promise<string> {
  if (res.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await res.body.cancel().catch(() => undefined);
      throw new Error(`restCall: ${url.origin} answered more than ${MAX_RESPONSE_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * restCall: `uri`, `verb` (GET, POST, …), `headers`, `body`, `user`/`password` (Basic), `timeout`
 * (ms, default 30 s) → `response` `{ status, headers, body }`; 2xx is success, other statuses failure,
 * a connection that fails is an error.
 */
export const restCall: Builtin = async ({ incoming, signal }) => {
  const uri = needString(incoming.uri ?? incoming.url, 'uri');
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new TaskInputError(`Incoming "uri" ${JSON.stringify(uri)} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TaskInputError(`restCall supports http and https, not ${url.protocol}`);
  const verb = (
    incoming.verb === undefined || incoming.verb === '' ? 'GET' : needString(incoming.verb ?? incoming.method, 'verb')
  ).toUpperCase();
  if (!METHODS.has(verb)) throw new TaskInputError(`restCall verb "${verb}" is not an HTTP method`);
  const headers: Record<string, string> = {};
  const given = typeof incoming.headers === 'string' ? tryJson(incoming.headers) : incoming.headers;
  if (isRecord(given)) for (const [k, v] of Object.entries(given)) headers[k.toLowerCase()] = String(v);
  if (typeof incoming.user === 'string' && incoming.user !== '') {
    headers.authorization = `Basic ${Buffer.from(`${incoming.user}:${typeof incoming.password === 'string' ? incoming.password : ''}`).toString('base64')}`;
  }
  let body: string | undefined;
  if (incoming.body !== undefined && incoming.body !== null && incoming.body !== '' && verb !== 'GET' && verb !== 'HEAD') {
    body = typeof incoming.body === 'string' ? incoming.body : JSON.stringify(incoming.body);
    if (typeof incoming.body !== 'string') headers['content-type'] ??= 'application/json';
  }
  const timeoutMs = typeof incoming.timeout === 'number' && incoming.timeout > 0 ? incoming.timeout : 30_000;
  const timeout = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  // redirects followed here, so that each place is checked before it is reached
  let current = url;
  let method = verb;
  let res: Response;
  for (let hop = 0; ; hop++) {
    // an address written out here; a name is checked as its connection is made (guardedLookup)
    const refused = refusedLiteralAddress(current);
    if (refused !== undefined)
      throw new TaskInputError(`restCall may not reach ${current.host} (${refused}): link-local and unspecified addresses are refused`);
    res = await undici()
      .fetch(current, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        redirect: 'manual',
        signal: timeout,
        dispatcher: dispatcher(),
      })
      .catch((err: unknown) => {
        throw refusalOf(err);
      });
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || res.status === 304 || location === null) break;
    await res.body?.cancel().catch(() => undefined);
    if (hop >= MAX_REDIRECTS) throw new Error(`restCall: more than ${MAX_REDIRECTS} redirects from ${url.origin}`);
    const next = new URL(location, current);
    if (next.protocol !== 'http:' && next.protocol !== 'https:')
      throw new TaskInputError(`restCall was redirected to ${next.protocol}, which it does not follow`);
    // as fetch does: credentials stay with their origin, and a POST answered 301/302 (any answered 303) becomes a GET
    if (next.origin !== current.origin) delete headers.authorization;
    if (res.status === 303 ? method !== 'HEAD' : (res.status === 301 || res.status === 302) && method === 'POST') {
      method = 'GET';
      body = undefined;
      delete headers['content-type'];
    }
    current = next;
  }
  const text = await boundedText(res, current);
  const response = {
    status: res.status,
    headers: Object.fromEntries(res.headers.entries()),
    body: (res.headers.get('content-type') ?? '').includes('json') ? tryJson(text) : text,
  };
  return { finishState: res.ok ? 'success' : 'failure', outgoing: { response } };
};
