import type { Builtin, BuiltinResult } from './types';
import { isRecord, sleep } from '@nap/util';
import { TaskInputError, needString, success, tryJson } from './types';

function seconds(value: unknown, name: string): number {
  if (value === '' || value === null || value === undefined) return 0;
  const n = typeof value === 'number' ? value : Number(value);
  if (Number.isNaN(n) || n < 0) throw new TaskInputError(`Incoming "${name}" must be a number of seconds, not ${JSON.stringify(value)}`);
  return n;
}

/** A nominal wait of `ms` as the engine's clock runs it: `ms / timeScale` of real time. */
function scaled(ms: number, timeScale: number | undefined): number {
  return timeScale === undefined || timeScale <= 0 ? ms : ms / timeScale;
}

/** delay: `time` in seconds → `time_in_milliseconds`; resumed after a restart it waits only what is left. */
export const delay: Builtin = async ({ incoming, startedAt, signal, timeScale }) => {
  const ms = seconds(incoming.time, 'time') * 1000;
  await sleep(startedAt + scaled(ms, timeScale) - Date.now(), signal);
  signal.throwIfAborted();
  return success({ time_in_milliseconds: ms });
};

/** stub: `type` (success, failure or error), `delay` (seconds), `response` → `response`. */
export const stub: Builtin = async ({ incoming, startedAt, signal, timeScale }) => {
  const type = incoming.type === undefined || incoming.type === '' ? 'success' : incoming.type;
  if (type !== 'success' && type !== 'failure' && type !== 'error')
    throw new TaskInputError(`stub type ${JSON.stringify(type)} must be success, failure or error`);
  const wait = seconds(incoming.delay, 'delay') * 1000;
  if (wait > 0) {
    await sleep(startedAt + scaled(wait, timeScale) - Date.now(), signal);
    signal.throwIfAborted();
  }
  const result: BuiltinResult = { finishState: type, outgoing: { response: incoming.response ?? null } };
  if (type === 'error')
    result.error =
      typeof incoming.response === 'string' && incoming.response !== '' ? incoming.response : 'The stub task finished with state error';
  return result;
};

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
