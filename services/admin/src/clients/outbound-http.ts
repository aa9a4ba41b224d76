import type * as Undici from 'undici';
import type { Agent, Dispatcher } from 'undici';
import { AppError, addSecretTexts, noSecrets, secretMask } from '@nap/contracts';
import type { Authentication, OutboundResponse } from '@nap/contracts';
import { errorMessage, onFirstUse, setOwn } from '@nap/util';
import type { OutboundTarget } from '../domain/integrations';

/**
 * Real HTTP calls to outside systems over undici, with the authentication of an integration or
 * adapter added here (the only place secrets are opened), TLS as configured, bounded by a timeout,
 * never retried. OAuth 2 client-credentials tokens are fetched and cached until they expire.
 */

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on the first call out (onFirstUse)
const undici = onFirstUse(() => require('undici') as typeof Undici);

/** One request below the target's base URL. */
export interface OutboundRequest {
  method: string;
  /** Path below the base URL, with its query string. */
  path: string;
  headers?: Record<string, string> | undefined;
  body?: string | undefined;
  timeoutMs: number;
}

/** Largest answer read, bytes. */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
/** Tokens are renewed this long before they expire, ms. */
const TOKEN_MARGIN_MS = 30_000;

interface CachedToken {
  token: string;
  expiresAt: number;
}

/** The outbound HTTP client of the admin service. */
export class OutboundHttp {
  private readonly dispatchers = new Map<string, Agent>();
  private readonly tokens = new Map<string, CachedToken>();

  /** Sends one request; answers status, headers (lower-case) and the body (JSON when it says so). Throws UPSTREAM_FAILED/DEVICE_TIMEOUT when no answer came. */
  async send(target: OutboundTarget, req: OutboundRequest): Promise<OutboundResponse> {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers ?? {})) setOwn(headers, k.toLowerCase(), v);
    let path = req.path;
    const auth = target.authentication;
    let accessToken: string | undefined;
    if (auth !== undefined && auth.type !== 'none') {
      delete headers.authorization;
      if (auth.type === 'basic')
        headers.authorization = `Basic ${Buffer.from(`${auth.username ?? ''}:${auth.password ?? ''}`).toString('base64')}`;
      else if (auth.type === 'bearer') headers.authorization = `Bearer ${auth.token ?? ''}`;
      else if (auth.type === 'oauthClientCredentials') {
        accessToken = await this.oauthToken(target, auth, req.timeoutMs);
        headers.authorization = `Bearer ${accessToken}`;
      } else if (auth.type === 'apiKey') {
        const name = auth.name ?? 'X-API-Key';
        const key = auth.api_key ?? '';
        if (auth.in === 'query') path += `${path.includes('?') ? '&' : '?'}${encodeURIComponent(name)}=${encodeURIComponent(key)}`;
        else if (auth.in === 'cookie') headers.cookie = [headers.cookie, `${name}=${key}`].filter(Boolean).join('; ');
        else setOwn(headers, name.toLowerCase(), key);
      }
    }
    const url = joinUrl(target.baseUrl, path);
    const answer = await this.exchange(target, url, req.method, headers, req.body, req.timeoutMs);
    if (answer.status === 401 && auth?.type === 'oauthClientCredentials') this.tokens.delete(target.cacheKey);
    return withCredentialsMasked(answer, auth, accessToken);
  }

  /** Forgets what is cached for a target (its settings changed or it was deleted). */
  forget(cacheKey: string): void {
    this.tokens.delete(cacheKey);
  }

  async close(): Promise<void> {
    await Promise.all([...this.dispatchers.values()].map((d) => d.close()));
    this.dispatchers.clear();
  }

  private dispatcher(target: OutboundTarget): Dispatcher | undefined {
    const tls = target.tls;
    if (tls === undefined || (tls.rejectUnauthorized !== false && tls.ca === undefined)) return undefined;
    const key = JSON.stringify([tls.rejectUnauthorized !== false, tls.ca ?? '']);
    let agent = this.dispatchers.get(key);
    if (agent === undefined) {
      agent = new (undici().Agent)({
        connect: { rejectUnauthorized: tls.rejectUnauthorized !== false, ...(tls.ca !== undefined ? { ca: tls.ca } : {}) },
      });
      this.dispatchers.set(key, agent);
    }
    return agent;
  }

  private async exchange(
    target: OutboundTarget,
    url: string,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    timeoutMs: number,
  ): Promise<OutboundResponse> {
    const dispatcher = this.dispatcher(target);
    let res: Dispatcher.ResponseData<unknown>;
    try {
      res = await undici().request(url, {
        method: method as Dispatcher.HttpMethod,
        headers,
        ...(body !== undefined ? { body } : {}),
        ...(dispatcher !== undefined ? { dispatcher } : {}),
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        maxRedirections: 0,
      } as Parameters<typeof Undici.request>[1]);
    } catch (err) {
      throw failure(target, method, url, err, timeoutMs);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        const buf = chunk as Buffer;
        size += buf.length;
        if (size > MAX_RESPONSE_BYTES) {
          res.body.destroy();
          throw new AppError(
            'UPSTREAM_FAILED',
            `${target.label} answered more than ${MAX_RESPONSE_BYTES} bytes to ${method} ${new URL(url).pathname}`,
          );
        }
        chunks.push(buf);
      }
    } catch (err) {
      throw failure(target, method, url, err, timeoutMs);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers))
      if (v !== undefined) setOwn(out, k.toLowerCase(), Array.isArray(v) ? v.join(', ') : v);
    return { status: res.statusCode, headers: out, body: parseBody(text, out['content-type']) };
  }

  private async oauthToken(target: OutboundTarget, auth: Authentication, timeoutMs: number): Promise<string> {
    const cached = this.tokens.get(target.cacheKey);
    if (cached !== undefined && cached.expiresAt - TOKEN_MARGIN_MS > Date.now()) return cached.token;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (auth.scope !== undefined && auth.scope !== '') form.set('scope', auth.scope);
    const basic = Buffer.from(`${encodeURIComponent(auth.client_id ?? '')}:${encodeURIComponent(auth.client_secret ?? '')}`).toString(
      'base64',
    );
    const tokenUrl = auth.token_url ?? '';
    const answer = await this.exchange(
      target,
      /^https?:\/\//i.test(tokenUrl) ? tokenUrl : joinUrl(target.baseUrl, tokenUrl),
      'POST',
      { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` },
      form.toString(),
      timeoutMs,
    );
    const body = answer.body as { access_token?: unknown; expires_in?: unknown } | undefined;
    if (answer.status < 200 || answer.status >= 300 || typeof body?.access_token !== 'string') {
      throw new AppError('UPSTREAM_FAILED', `${target.label}: the token endpoint answered ${answer.status} without an access_token`);
    }
    const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : Number(body.expires_in ?? 3600);
    this.tokens.set(target.cacheKey, {
      token: body.access_token,
      expiresAt: Date.now() + (Number.isFinite(expiresIn) ? expiresIn : 3600) * 1000,
    });
    return body.access_token;
  }
}

/** `base` + `path`, with exactly one slash between them. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/**
 * The answer with the credentials the call sent masked wherever it repeats them (a system that
 * echoes its request in an error, a header or a body): the password, token, API key and client
 * secret of `auth` and the OAuth token fetched with them, as they are, JSON-escaped, URL-encoded and
 * in base64, and the `user:password` pairs of Basic authentication. The answer becomes the task's
 * result, or the details of its error, which the job store, its events, answers and logs keep; the
 * workflow service masks the secrets of the task's own values, but never sees these.
 */
export function withCredentialsMasked(answer: OutboundResponse, auth: Authentication | undefined, accessToken?: string): OutboundResponse {
  if (auth === undefined || auth.type === 'none') return answer;
  const found = noSecrets();
  addSecretTexts(found, auth.password, auth.token, auth.api_key, auth.client_secret, accessToken);
  if (auth.type === 'basic' && auth.password !== undefined) found.pairs.add(`${auth.username ?? ''}:${auth.password}`);
  if (auth.type === 'oauthClientCredentials' && auth.client_secret !== undefined) {
    found.pairs.add(`${auth.client_id ?? ''}:${auth.client_secret}`);
    found.pairs.add(`${encodeURIComponent(auth.client_id ?? '')}:${encodeURIComponent(auth.client_secret)}`);
  }
  if (found.texts.size === 0 && found.pairs.size === 0) return answer;
  const mask = secretMask(found);
  const headers = mask.value(answer.headers);
  const body = mask.value(answer.body);
  return headers === answer.headers && body === answer.body ? answer : { ...answer, headers, body };
}

function parseBody(text: string, contentType: string | undefined): unknown {
  if (text === '') return null;
  if (contentType !== undefined && /json/i.test(contentType)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

function failure(target: OutboundTarget, method: string, url: string, err: unknown, timeoutMs: number): AppError {
  if (err instanceof AppError) return err;
  // read by property, not instanceof: undici's timeout is a DOMException, of another realm under test runners
  const name = typeof err === 'object' && err !== null && 'name' in err ? String((err as { name: unknown }).name) : '';
  const code = typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
  const where = `${method} ${new URL(url).pathname}`;
  if (name === 'TimeoutError' || name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new AppError('DEVICE_TIMEOUT', `${target.label} did not answer ${where} within ${timeoutMs} ms`, { cause: err });
  }
  const reason = code !== '' ? code : errorMessage(err);
  return new AppError('UPSTREAM_FAILED', `${target.label} could not be reached for ${where} (${reason})`, { cause: err });
}
