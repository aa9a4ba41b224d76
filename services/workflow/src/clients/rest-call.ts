import { isRecord } from '@nap/util';
import type { Builtin } from '../domain/builtins';
import { TaskInputError } from '../domain/builtins';
import { needString, tryJson } from '../domain/builtins/types';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

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
  const res = await fetch(url, {
    method: verb,
    headers,
    ...(body !== undefined ? { body } : {}),
    signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
  });
  const text = await res.text();
  const response = {
    status: res.status,
    headers: Object.fromEntries(res.headers.entries()),
    body: (res.headers.get('content-type') ?? '').includes('json') ? tryJson(text) : text,
  };
  return { finishState: res.ok ? 'success' : 'failure', outgoing: { response } };
};
