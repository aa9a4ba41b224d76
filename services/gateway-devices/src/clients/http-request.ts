import http from 'node:http';
import https from 'node:https';
import { AppError, addSecretTexts, isSecretKey, noSecrets, secretMask } from '@nap/contracts';
import { deviceUrl, isBelowBase } from '../domain/device-url';
import type { QueryParams } from '../domain/device-url';
import { ADDRESS_REFUSED, guardedLookup, setOwn } from '@nap/util';

/** The request members of `sendRequest`, by the names of Python `requests`. */
export interface DeviceHttpRequest {
  method: string;
  endpoint: string;
  params?: QueryParams;
  headers?: Record<string, string>;
  json?: unknown;
  data?: unknown;
  /** Seconds; default {@link DEFAULT_HTTP_TIMEOUT_S}. */
  timeout?: number;
  allow_redirects?: boolean;
  verify?: boolean;
}

/** What the device answered. */
export interface DeviceHttpResponse {
  status_code: number;
  headers: Record<string, string>;
  text: string;
  json?: unknown;
  /** The URL that answered (after redirects). */
  url: string;
}

/** Default bound of one request, seconds. */
export const DEFAULT_HTTP_TIMEOUT_S = 30;
/** Largest response body read. */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
const MAX_REDIRECTS = 10;

/** Where the request goes: the inventory device's base URL and optional basic credentials. */
export interface DeviceHttpTarget {
  deviceName: string;
  baseUrl: string;
  credentials?: { username: string; password: string } | undefined;
  /** Headers of every request to the device (`gw_http_headers`); the request's own headers win, names compared without case. */
  headers?: Record<string, string>;
  /** Epoch ms the caller waits until. */
  deadline?: number;
}

/** Objects and arrays (an array's members are sent as `0=…&1=…`). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function requestBody(req: DeviceHttpRequest, headers: Record<string, string>): Buffer | undefined {
  const has = (name: string): boolean => Object.keys(headers).some((h) => h.toLowerCase() === name);
  if (req.json !== undefined) {
    if (!has('content-type')) headers['content-type'] = 'application/json';
    return Buffer.from(JSON.stringify(req.json));
  }
  if (req.data === undefined || req.data === null) return undefined;
  if (typeof req.data === 'string') return Buffer.from(req.data);
  if (isObject(req.data)) {
    if (!has('content-type')) headers['content-type'] = 'application/x-www-form-urlencoded';
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(req.data)) form.append(k, typeof v === 'string' ? v : JSON.stringify(v));
    return Buffer.from(form.toString());
  }
  return Buffer.from(JSON.stringify(req.data));
}

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function once(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  verify: boolean,
  timeoutMs: number,
  deviceName: string,
): Promise<RawResponse> {
  const lib = url.protocol === 'https:' ? https : http;
  const label = `device "${deviceName}" (${url.origin})`;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      url,
      {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(body.length) }) },
        rejectUnauthorized: verify,
        timeout: timeoutMs,
        // the address is checked as the connection is made (a name may answer otherwise than it did before)
        lookup: guardedLookup,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            req.destroy(new AppError('UPSTREAM_FAILED', `${label} answered more than ${MAX_RESPONSE_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    const timer = setTimeout(
      () =>
        req.destroy(
          new AppError('DEVICE_TIMEOUT', `${label} did not answer ${method} ${url.pathname} within ${timeoutMs} ms`, {
            details: { timeoutMs },
          }),
        ),
      timeoutMs,
    );
    req.on('close', () => clearTimeout(timer));
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err instanceof AppError) {
        reject(err);
        return;
      }
      const code = err.code ?? '';
      if (code === ADDRESS_REFUSED) {
        reject(new AppError('DEVICE_HTTP_NOT_CONFIGURED', `gw_http_base_url of ${label}: ${err.message}`, { cause: err }));
        return;
      }
      const why =
        code === 'ECONNREFUSED'
          ? 'refused the connection'
          : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
            ? 'has an address that does not resolve'
            : /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)
              ? `presented a TLS certificate that does not verify (${code}); send verify false to accept it`
              : `cannot be reached (${code || err.message})`;
      reject(new AppError('DEVICE_UNREACHABLE', `${label} ${why}`, { cause: err, details: { errno: code } }));
    });
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/**
 * Sends one HTTP/1.1 request to the device and returns its answer whatever the status. Redirects
 * are followed (when allowed) only below the device's base URL; 303, and 301/302 after a POST, turn
 * into GET as browsers and `requests` do. Errors: `DEVICE_UNREACHABLE`, `DEVICE_TIMEOUT`,
 * `DEVICE_HTTP_NOT_CONFIGURED` (endpoint of another origin), `VALIDATION_FAILED` (endpoint that leaves
 * the base path), `UPSTREAM_FAILED` (body too large).
 */
export async function sendDeviceRequest(target: DeviceHttpTarget, req: DeviceHttpRequest): Promise<DeviceHttpResponse> {
  const headers: Record<string, string> = { 'user-agent': 'nap-gateway-devices' };
  for (const [name, value] of [...Object.entries(target.headers ?? {}), ...Object.entries(req.headers ?? {})]) {
    for (const h of Object.keys(headers)) if (h.toLowerCase() === name.toLowerCase()) delete headers[h];
    setOwn(headers, name, value);
  }
  if (target.credentials !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) {
    headers.authorization = `Basic ${Buffer.from(`${target.credentials.username}:${target.credentials.password}`).toString('base64')}`;
  }
  let body = requestBody(req, headers);
  let method = req.method.toUpperCase();
  let url = deviceUrl(target.baseUrl, req.endpoint, req.params, target.deviceName);
  const origin = url.origin;
  const timeoutS = req.timeout ?? DEFAULT_HTTP_TIMEOUT_S;
  const untilDeadline = target.deadline === undefined ? Infinity : target.deadline - Date.now() - 250;
  const timeoutMs = Math.max(1, Math.min(Math.round(timeoutS * 1000), untilDeadline));
  for (let hop = 0; ; hop++) {
    const res = await once(url, method, headers, body, req.verify !== false, timeoutMs, target.deviceName);
    const location = res.headers.location;
    if (req.allow_redirects !== false && res.status >= 300 && res.status < 400 && typeof location === 'string' && hop < MAX_REDIRECTS) {
      const next = new URL(location, url);
      // followed only below the device's base URL, as requests are; elsewhere the redirect is answered as it is
      if (next.origin === origin && isBelowBase(target.baseUrl, next)) {
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
          for (const h of Object.keys(headers)) if (h.toLowerCase() === 'content-type') delete headers[h];
        }
        url = next;
        continue;
      }
    }
    const text = res.body.toString('utf8');
    const out: DeviceHttpResponse = { status_code: res.status, headers: {}, text, url: url.toString() };
    for (const [key, value] of Object.entries(res.headers)) {
      if (value !== undefined) setOwn(out.headers, key, Array.isArray(value) ? value.join(', ') : value);
    }
    if ((out.headers['content-type'] ?? '').includes('json') && text.trim() !== '') {
      try {
        out.json = JSON.parse(text);
      } catch {
        // Not JSON after all: the text is there.
      }
    }
    return withCredentialsMasked(out, target);
  }
}

/**
 * The answer with the device's own credentials masked wherever it repeats them (a device that
 * echoes its request in an error or a body): `gw_http_password`, with its user as Basic
 * authentication encodes them, and the values of the `gw_http_headers` whose names are secrets by
 * the platform's policy (`Authorization`, `X-Auth-Token`, `X-API-Key`, …), the credential after an
 * `Authorization` scheme too; as they are, JSON-escaped, URL-encoded and in base64. The answer is
 * a task's result or error, which the job store, its events and answers keep; the workflow service
 * masks the secrets of the task's own values, but never sees the device's.
 */
function withCredentialsMasked(answer: DeviceHttpResponse, target: DeviceHttpTarget): DeviceHttpResponse {
  const found = noSecrets();
  if (target.credentials !== undefined && target.credentials.password !== '') {
    addSecretTexts(found, target.credentials.password);
    found.pairs.add(`${target.credentials.username}:${target.credentials.password}`);
  }
  for (const [name, value] of Object.entries(target.headers ?? {})) {
    if (!isSecretKey(name) || typeof value !== 'string') continue;
    // the credential after an Authorization scheme too
    addSecretTexts(found, value, /^\S+\s+(\S.*)$/.exec(value)?.[1]);
  }
  if (found.texts.size === 0 && found.pairs.size === 0) return answer;
  const mask = secretMask(found);
  const masked: DeviceHttpResponse = { ...answer, headers: mask.value(answer.headers), text: mask.text(answer.text) };
  if (answer.json !== undefined) masked.json = mask.value(answer.json);
  return masked;
}
