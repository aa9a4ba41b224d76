import type { Profile } from '../config/profiles';
import { addressOrigin, credentialsOrigin, settingHint, timeoutOrigin } from '../config/profiles';
import { CliError, EXIT, UnreachableError } from '../errors';
import { loadUndici } from '../lazy';
import { isDoc } from '../resources/documents';
import { toCurl } from './curl';
import type { TokenCache } from './token-cache';
import { USER_AGENT } from '../version';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** Query members; arrays repeat the key, undefined members are left out. */
export type Query = Record<string, string | number | boolean | readonly string[] | undefined>;

export interface ApiRequest {
  method: HttpMethod;
  /** Path below the profile's URL, with its parameters already encoded (see {@link pathOf}). */
  path: string;
  query?: Query;
  json?: unknown;
  form?: Record<string, string>;
  headers?: Record<string, string>;
  /** false: send no credentials (login). */
  auth?: boolean;
  /** An event stream: the timeout bounds the answer's headers only. */
  stream?: boolean;
  signal?: AbortSignal;
  /**
   * Wait at least this long (a device operation, which the platform allows 120 s): the profile's
   * timeout when longer, or none when the profile sets none.
   */
  timeoutMs?: number;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or the text when the body is not JSON. */
  body: unknown;
}

/** How long a request may take: 0 is no limit (a profile's `timeout = 0`). */
function timeoutOf(profileMs: number, req: Pick<ApiRequest, 'timeoutMs'>): number {
  return profileMs === 0 || req.timeoutMs === undefined ? profileMs : Math.max(profileMs, req.timeoutMs);
}

/**
 * Whether a value can be one segment of a URL path: not empty, and not `.` or `..`, which every URL
 * parser (fetch's included, encoded as `%2E` or not) reads as "this folder" and "the folder above".
 */
export function addressable(value: string): boolean {
  return value !== '' && value !== '.' && value !== '..';
}

/** Fills `:params` of a catalog path, each one percent-encoded; a value that cannot be a path segment is a usage error. */
export function pathOf(template: string, params: Record<string, string>): string {
  return template.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for :${name} of ${template}`);
    if (!addressable(value))
      throw new CliError(
        value === ''
          ? `an empty ${name} cannot be sent in ${template.split('/:')[0]}/:${name}`
          : `"${value}" cannot be sent as the ${name} of ${template.split('/:')[0]}/:${name}: a URL reads it as a folder, not a name`,
        EXIT.USAGE,
      );
    return encodeURIComponent(value);
  });
}

function queryString(query: Query | undefined): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value as readonly string[]) params.append(key, v);
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

interface ErrorBody {
  code?: unknown;
  message?: unknown;
  details?: unknown;
}

/** Waiting seconds for people: `45 seconds`, `15 minutes`. */
function waitText(seconds: number): string {
  if (seconds < 120) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

/**
 * What a `429 LOGIN_THROTTLED` says, for people: who waits (`who`, an account, unless the platform
 * throttled the address) and how long (its Retry-After, else its `details.retryAfterSeconds`);
 * undefined for any other answer. A login, a client-credentials grant and a password change are
 * throttled alike.
 */
export function throttledLogin(res: ApiResponse, who?: string): string | undefined {
  if (res.status !== 429 || platformMessage(res.body).code !== 'LOGIN_THROTTLED') return undefined;
  const details = isDoc(res.body) && isDoc(res.body.details) ? res.body.details : undefined;
  const header = Number(res.headers.get('retry-after') ?? Number.NaN);
  const fromBody = typeof details?.retryAfterSeconds === 'number' ? details.retryAfterSeconds : undefined;
  const seconds = Number.isFinite(header) && header >= 0 ? header : fromBody;
  const from = details?.scope === 'address' ? ' from this address' : who === undefined ? '' : ` for ${who}`;
  const when = seconds === undefined ? 'later' : `in ${waitText(seconds)}`;
  return `too many failed logins${from}: try again ${when}, or ask an administrator to unlock the account`;
}

/** The platform's message for a failed call: `{ code, message, details }`, or the text it sent. */
export function platformMessage(body: unknown): { code?: string; message: string } {
  if (typeof body === 'object' && body !== null) {
    const b = body as ErrorBody;
    const message = typeof b.message === 'string' ? b.message : JSON.stringify(body);
    const detail = Array.isArray(b.details)
      ? b.details
          .map((d: unknown) => (typeof d === 'object' && d !== null && 'message' in d ? String((d as { message: unknown }).message) : ''))
          .filter((m: string) => m !== '')
          .slice(0, 3)
          .join('; ')
      : '';
    const text = detail !== '' && !message.includes(detail) ? `${message} (${detail})` : message;
    return typeof b.code === 'string' ? { code: b.code, message: text } : { message: text };
  }
  const text = typeof body === 'string' ? body.trim() : '';
  if (/^<(!doctype\s+html|html|head|body)\b/i.test(text)) return { message: htmlSummary(text) };
  return { message: text === '' ? 'no message' : text.split('\n')[0]!.slice(0, 300) };
}

/**
 * An HTML page (a proxy's or a load balancer's error page) as a few words: its title or first
 * heading, never its markup: `an HTML page: "502 Bad Gateway"`.
 */
function htmlSummary(html: string): string {
  const heading = /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1] ?? /<h1[^>]*>([^<]*)<\/h1>/i.exec(html)?.[1];
  const words = heading?.replace(/\s+/g, ' ').trim().slice(0, 120);
  return words === undefined || words === '' ? 'an HTML page' : `an HTML page: "${words}"`;
}

/** Whether an answer is NAP's own error (`{ code, message }`), not that of something in front of it. */
function isPlatformError(body: unknown): boolean {
  return isDoc(body) && typeof body.code === 'string';
}

/** Statuses a proxy or load balancer answers for a platform behind it that is down or slow. */
const GATEWAY_STATUS: Record<number, string> = { 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout' };

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
};

/** Network failures before any connection was made: the request cannot have reached the platform. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function causeCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** One line for the stderr of `--debug`, and whether to print it. */
export interface Debug {
  enabled: boolean;
  log(line: string): void;
}

type FetchFn = (url: string, init: Omit<RequestInit, 'dispatcher'> & { dispatcher?: object }) => Promise<Response>;

/**
 * A client of one platform: logs in with the profile's credentials when a call needs it (the token
 * cached, renewed once when the platform answers 401), bounds each call by the profile's timeout,
 * and turns every failure into a {@link CliError} with the documented exit code.
 */
export class Client {
  private token: string | undefined;
  private fetchImpl: Promise<{ fetch: FetchFn; dispatcher?: object }> | undefined;

  constructor(
    readonly profile: Profile,
    private readonly debug: Debug,
    private readonly cache: TokenCache,
  ) {}

  /** Where the platform is, for messages. */
  get url(): string {
    return this.profile.baseUrl;
  }

  /** Sends the request; a status of 400 and above becomes a {@link CliError}. */
  async request(req: ApiRequest): Promise<ApiResponse> {
    const res = await this.send(req);
    if (res.status >= 400) throw this.failure(req, res);
    return res;
  }

  /** Sends the request and answers whatever the platform said (no error for 4xx/5xx). */
  async send(req: ApiRequest): Promise<ApiResponse> {
    const res = await this.raw(req);
    return { status: res.status, headers: res.headers, body: await this.readBody(req, res) };
  }

  /** An event stream: the open response, its status checked. */
  async stream(req: ApiRequest): Promise<Response> {
    const res = await this.raw({ ...req, stream: true });
    if (res.status >= 400) throw this.failure(req, { status: res.status, headers: res.headers, body: await this.readBody(req, res) });
    return res;
  }

  /**
   * A file the platform sends (a job archive), handed to `write` chunk by chunk exactly as it
   * arrives, never decoded. The profile's timeout bounds the wait for the answer and then each pause
   * in its body, so that a large file is not cut while it flows. A status of 400 and above (its JSON
   * error body) becomes a {@link CliError} as with {@link request}. Answers the headers and how many
   * bytes were written.
   */
  async download(req: ApiRequest, write: (chunk: Uint8Array) => Promise<void> | void): Promise<{ headers: Headers; bytes: number }> {
    const idle = new AbortController();
    const signal = req.signal === undefined ? idle.signal : AbortSignal.any([idle.signal, req.signal]);
    const sent: ApiRequest = { ...req, stream: true, signal, headers: { accept: '*/*', ...req.headers } };
    const res = await this.raw(sent);
    if (res.status >= 400) throw this.failure(req, { status: res.status, headers: res.headers, body: await this.readBody(req, res) });
    const limitMs = timeoutOf(this.profile.timeoutMs, req);
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const arm = (): void => {
      if (limitMs === 0) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        idle.abort(new DOMException('timeout', 'TimeoutError'));
      }, limitMs);
      timer.unref();
    };
    let bytes = 0;
    let writeFailure: { err: unknown } | undefined;
    try {
      arm();
      for await (const chunk of res.body ?? []) {
        clearTimeout(timer);
        const data = chunk as Uint8Array;
        try {
          await write(data);
        } catch (err) {
          // the caller's to say (a full disk); leaving the loop cancels the body
          writeFailure = { err };
          break;
        }
        bytes += data.byteLength;
        arm();
      }
    } catch (err) {
      const route = `${req.method} ${req.path.split('?')[0]}`;
      if (timedOut)
        throw new CliError(
          `${this.url} sent nothing more of ${route} for ${limitMs / 1000} s (${timeoutOrigin(this.profile)}), after ${bytes} bytes`,
          EXIT.UNREACHABLE,
          { cause: err },
        );
      if (req.signal?.aborted === true) throw err;
      const code = causeCode(err);
      const what = code === undefined ? String((err as Error).message ?? err) : (NETWORK_CODES[code] ?? code);
      throw new CliError(`${this.url} cut ${route} short after ${bytes} bytes (${what})`, EXIT.UNREACHABLE, { cause: err });
    } finally {
      clearTimeout(timer);
    }
    if (writeFailure !== undefined) throw writeFailure.err;
    return { headers: res.headers, bytes };
  }

  /**
   * After the account's secret changed (`nap password`): the session's token is cached for the
   * profile with the new secret too, so that the profile goes on with it once it holds that secret;
   * the entry of the old secret stays until the token expires. Nothing to do for a profile's own token.
   */
  keepSession(newSecret: string): void {
    if (this.profile.token !== undefined || this.token === undefined) return;
    const renewed: Profile =
      this.profile.clientId !== undefined ? { ...this.profile, clientSecret: newSecret } : { ...this.profile, password: newSecret };
    this.cache.set(renewed, this.token, undefined);
  }

  /**
   * The error a failed answer means: 401/403 exit 5; a 502, 503 or 504 that is not the platform's
   * own error (a proxy's page) exit 6, as an unreachable platform; others exit 1, with the
   * platform's message.
   */
  failure(req: Pick<ApiRequest, 'method' | 'path'>, res: ApiResponse): CliError {
    const { code, message } = platformMessage(res.body);
    const route = `${req.method} ${req.path.split('?')[0]}`;
    const label = code === undefined ? `${res.status}` : `${res.status} ${code}`;
    if (res.status === 401) {
      return new CliError(
        `${this.url} refused the credentials of ${credentialsOrigin(this.profile)} (${label}: ${message})${this.tokenHint()}`,
        EXIT.AUTH,
      );
    }
    if (res.status === 403) return new CliError(`${route}: not allowed (${label}: ${message})`, EXIT.AUTH);
    const gateway = GATEWAY_STATUS[res.status];
    if (gateway !== undefined && !isPlatformError(res.body)) {
      // not NAP's answer (its errors carry a code): a proxy that cannot reach the platform behind it
      return new UnreachableError(
        `${this.url} answered ${res.status} ${gateway} to ${route} (${message}): that is a proxy or load balancer, not the platform, and it cannot reach the platform behind it; is the platform running?`,
        `a proxy answered ${res.status} ${gateway}`,
      );
    }
    if (res.status === 404 && !isPlatformError(res.body)) {
      // NAP answers an unknown route with its own 404 (NOT_FOUND): this is another server
      return new CliError(
        `${route} failed: ${this.url} answered 404 without the platform's error (${message}): is it a NAP platform, and ${addressOrigin(this.profile)}`,
        EXIT.FAILED,
      );
    }
    return new CliError(`${route} failed: ${message} (${label})`, EXIT.FAILED, { status: res.status });
  }

  /**
   * What to do about a token refused (expired, or its session ended): nap logs in again by itself
   * only with a password or a client secret, so "log in again" means a new token or those instead.
   */
  private tokenHint(): string {
    if (this.profile.token === undefined) return '';
    const variable = this.profile.variables?.token;
    if (variable === 'NAP_TOKEN')
      return '; nap never renews a token: set NAP_TOKEN to a new one, or unset it and set NAP_USERNAME and NAP_PASSWORD (or NAP_CLIENT_ID and NAP_CLIENT_SECRET) for nap to log in by itself';
    const where = variable === undefined ? `profile "${this.profile.name}"` : variable;
    return `; nap never renews a token: put a new one in ${where}, or give the profile username and password (or client_id and client_secret) instead of a token for nap to log in by itself`;
  }

  private async raw(req: ApiRequest): Promise<Response> {
    const useAuth = req.auth !== false;
    let fresh = false;
    if (useAuth && this.token === undefined) {
      const cached = this.profile.token ?? this.cache.get(this.profile);
      if (cached !== undefined) this.token = cached;
      else {
        this.token = await this.login();
        fresh = true;
      }
    }
    let res = await this.fetchOnce(req, useAuth ? this.token : undefined);
    if (res.status === 401 && useAuth && !fresh && this.profile.token === undefined) {
      // a cached token that expired or was revoked: log in again, once
      await res.body?.cancel();
      this.cache.delete(this.profile);
      this.token = await this.login();
      res = await this.fetchOnce(req, this.token);
    }
    return res;
  }

  private async readBody(req: ApiRequest, res: Response): Promise<unknown> {
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw this.networkError(req, err);
    }
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('json') && text !== '') {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    }
    return text;
  }

  private async fetchOnce(req: ApiRequest, token: string | undefined): Promise<Response> {
    const url = `${this.profile.baseUrl}${req.path}${queryString(req.query)}`;
    const headers: Record<string, string> = {
      accept: req.stream === true ? 'text/event-stream' : 'application/json',
      // sessions and the audit trail name the client: `nap/2026.1.0`, not undici's `node`
      'user-agent': USER_AGENT,
      ...req.headers,
    };
    let body: string | undefined;
    if (req.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.json);
    } else if (req.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(req.form).toString();
    }
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const insecure = !this.profile.verify && url.startsWith('https:');
    if (this.debug.enabled) {
      const shown = req.json !== undefined ? { json: req.json } : req.form !== undefined ? { form: req.form } : undefined;
      this.debug.log(toCurl({ method: req.method, url, headers, body: shown, insecure }));
    }
    const controller = new AbortController();
    const timeoutMs = timeoutOf(this.profile.timeoutMs, req);
    // unref'd: it bounds reading the body as well, and never keeps the process alive
    const timer = timeoutMs > 0 ? setTimeout(() => controller.abort(new DOMException('timeout', 'TimeoutError')), timeoutMs) : undefined;
    timer?.unref();
    const signal = req.signal === undefined ? controller.signal : AbortSignal.any([controller.signal, req.signal]);
    const started = Date.now();
    try {
      const { fetch, dispatcher } = await this.fetcher(insecure);
      const res = await fetch(url, { method: req.method, headers, body, signal, ...(dispatcher === undefined ? {} : { dispatcher }) });
      if (this.debug.enabled) this.debug.log(`< ${res.status} ${res.statusText} (${Date.now() - started} ms)`);
      if (req.stream === true && timer !== undefined) clearTimeout(timer);
      return res;
    } catch (err) {
      if (req.signal?.aborted === true) throw err;
      throw this.networkError(req, err);
    }
  }

  private networkError(req: ApiRequest, err: unknown): CliError {
    const name = (err as { name?: unknown }).name;
    if (name === 'TimeoutError' || (name === 'AbortError' && req.signal?.aborted !== true)) {
      const limitMs = timeoutOf(this.profile.timeoutMs, req);
      const whose = limitMs === this.profile.timeoutMs ? timeoutOrigin(this.profile) : 'what a device operation may take';
      return new UnreachableError(
        `${this.url} did not answer ${req.method} ${req.path.split('?')[0]} within ${limitMs / 1000} s (${whose})`,
        `no answer within ${limitMs / 1000} s`,
        { cause: err },
      );
    }
    const code = causeCode(err);
    if (code !== undefined && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code)) {
      return new CliError(
        `the TLS certificate of ${this.url} is not trusted (${code}); ${settingHint(this.profile, 'verify', 'false', 'NAP_VERIFY')} if that is expected`,
        EXIT.UNREACHABLE,
        { cause: err },
      );
    }
    const what = code === undefined ? String((err as Error).message ?? err) : (NETWORK_CODES[code] ?? code);
    return new UnreachableError(`cannot reach ${this.url} (${what}): is the platform running, and ${addressOrigin(this.profile)}`, what, {
      cause: err,
      mayHaveReached: code === undefined || !NOT_CONNECTED.has(code),
    });
  }

  private fetcher(insecure: boolean): Promise<{ fetch: FetchFn; dispatcher?: object }> {
    if (!insecure) return Promise.resolve({ fetch: globalThis.fetch as FetchFn });
    // undici is loaded only for verify = false: the built-in fetch takes no TLS options
    this.fetchImpl ??= Promise.resolve().then(() => {
      const undici = loadUndici();
      return { fetch: undici.fetch as unknown as FetchFn, dispatcher: new undici.Agent({ connect: { rejectUnauthorized: false } }) };
    });
    return this.fetchImpl;
  }

  /** Logs in with the profile's credentials: OAuth client credentials, else username and password. */
  private async login(): Promise<string> {
    const p = this.profile;
    if (p.clientId !== undefined) {
      const req: ApiRequest = {
        method: 'POST',
        path: '/oauth/token',
        auth: false,
        form: { grant_type: 'client_credentials', client_id: p.clientId, client_secret: p.clientSecret ?? '' },
      };
      const res = await this.send(req);
      if (res.status >= 400) throw this.loginFailure(req, res, `client "${p.clientId}"`);
      const body = res.body as { access_token?: unknown; expires_in?: unknown };
      if (typeof body.access_token !== 'string')
        throw new CliError(`${this.url} answered /oauth/token without an access_token`, EXIT.FAILED);
      const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : undefined;
      this.cache.set(p, body.access_token, expiresIn === undefined ? undefined : Date.now() + expiresIn * 1000);
      return body.access_token;
    }
    if (p.username !== undefined) {
      const req: ApiRequest = {
        method: 'POST',
        path: '/login',
        auth: false,
        json: { user: { username: p.username, password: p.password ?? '' } },
      };
      const res = await this.send(req);
      if (res.status >= 400) throw this.loginFailure(req, res, `user "${p.username}"`);
      const token = typeof res.body === 'string' ? res.body.trim().replace(/^"|"$/g, '') : '';
      if (token === '') throw new CliError(`${this.url} answered /login without a token`, EXIT.FAILED);
      this.cache.set(p, token, undefined);
      return token;
    }
    throw new CliError(
      `profile "${p.name}" has no credentials: set username and password, client_id and client_secret, or NAP_TOKEN`,
      EXIT.USAGE,
    );
  }

  private loginFailure(req: ApiRequest, res: ApiResponse, who: string): CliError {
    const throttled = throttledLogin(res, who);
    if (throttled !== undefined) return new CliError(`${throttled} (${credentialsOrigin(this.profile)}; 429 LOGIN_THROTTLED)`, EXIT.AUTH);
    if (res.status === 400 || res.status === 401 || res.status === 403) {
      const { message } = platformMessage(res.body);
      return new CliError(
        credentialsOrigin(this.profile).startsWith('profile ')
          ? `${this.url} refused the credentials of ${who} (profile "${this.profile.name}": ${message}); check them in the profile or the NAP_* variables`
          : `${this.url} refused the credentials of ${who} (${credentialsOrigin(this.profile)}: ${message}); check ${credentialsOrigin(this.profile)}`,
        EXIT.AUTH,
      );
    }
    return this.failure(req, res);
  }
}
