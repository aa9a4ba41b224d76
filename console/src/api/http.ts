/**
 * The one way the console talks to the platform: same-origin `fetch` with the session cookie
 * (never a token in script reach: the cookie is HttpOnly), JSON in and out, and the platform's
 * error body (`{ code, message, requestId }`) turned into an {@link ApiError} that pages show.
 */

/** A query string value: text, a number, or bracketed members (`equals: { status: 'running' }` → `equals[status]=running`). */
export type QueryValue = string | number | boolean | undefined | Readonly<Record<string, string | number | undefined>>;
export type Query = Readonly<Record<string, QueryValue>>;

/** What an error body may carry besides its code and message. */
export interface ApiErrorExtras {
  requestId?: string;
  /** The body's `details`: for `VALIDATION_FAILED`, the problems (`{ member, message }`) one by one. */
  details?: unknown;
  /** A 429's `Retry-After`, seconds: how long to wait before asking again. */
  retryAfterSeconds?: number;
}

/** An answer of the platform that is not a success, with its error code and message. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly requestId: string | undefined;
  readonly details: unknown;
  readonly retryAfterSeconds: number | undefined;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    extras: ApiErrorExtras = {},
  ) {
    super(message);
    this.requestId = extras.requestId;
    this.details = extras.details;
    this.retryAfterSeconds = extras.retryAfterSeconds;
  }
}

/**
 * What a `VALIDATION_FAILED` answer says about one member of the request (`body.newPassword`), in
 * words without the member's path ("is 9 characters long; …"); undefined when it names another.
 */
export function problemWith(err: unknown, member: string): string | undefined {
  if (!(err instanceof ApiError) || err.code !== 'VALIDATION_FAILED' || !Array.isArray(err.details)) return undefined;
  const problems: string[] = [];
  for (const detail of err.details as unknown[]) {
    const problem = detail as { member?: unknown; message?: unknown };
    if (problem.member !== member || typeof problem.message !== 'string') continue;
    // the schema's problems name the member themselves, the domain's do not
    problems.push(problem.message.startsWith(`${member} `) ? problem.message.slice(member.length + 1) : problem.message);
  }
  return problems.length > 0 ? problems.join('; ') : undefined;
}

/** A `Retry-After` of whole seconds (the platform never sends the date form); undefined when absent. */
function retryAfterOf(res: Response): number | undefined {
  const seconds = Number(res.headers.get('retry-after') ?? '');
  return Number.isInteger(seconds) && seconds > 0 ? seconds : undefined;
}

/** True for an error that means the session is gone (log in again). */
export function isUnauthenticated(err: unknown): boolean {
  return err instanceof ApiError && err.status === 401;
}

/** The request the platform answered 401: a change (any method but GET) was not carried out. */
export interface LostRequest {
  method: string;
  path: string;
}

let onSessionLost: ((request: LostRequest) => void) | undefined;
/** Set from a log-out until the next log-in: a 401 then is the session the person ended, not one lost. */
let loggedOut = false;

/**
 * Whether the person logged out (and has not logged in since): the 401s of requests and streams
 * still in flight when the session ended are then no lost session, and nothing is said of them.
 */
export function isLoggedOut(): boolean {
  return loggedOut;
}

/** Notes a log-out (`true`, before its request goes) or a log-in (`false`, once it succeeded). */
export function setLoggedOut(value: boolean): void {
  loggedOut = value;
}

/** Who is told when the platform answers 401 (the app sends people to the log-in page, saying why). */
export function whenSessionLost(handler: (request: LostRequest) => void): void {
  onSessionLost = handler;
}

/** `path?query` with bracketed members written the way the platform's list routes read them. */
export function withQuery(path: string, query: Query | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    if (typeof value === 'object') {
      for (const [member, v] of Object.entries(value)) if (v !== undefined && v !== '') params.append(`${key}[${member}]`, String(v));
    } else {
      params.append(key, String(value));
    }
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

interface RequestOptions {
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
}

async function errorOf(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown; requestId?: unknown; details?: unknown };
    if (typeof body.message === 'string') {
      return new ApiError(res.status, typeof body.code === 'string' ? body.code : 'ERROR', body.message, {
        requestId: typeof body.requestId === 'string' ? body.requestId : undefined,
        details: body.details,
        retryAfterSeconds: retryAfterOf(res),
      });
    }
  } catch {
    // not the platform's JSON error body: a proxy's page, a cut connection
  }
  return new ApiError(res.status, 'HTTP_ERROR', `The platform answered ${res.status} ${res.statusText}`.trim());
}

/** Sends one request; resolves with the parsed JSON (or text) answer, rejects with an {@link ApiError}. */
export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let res: Response;
  try {
    res = await fetch(withQuery(path, options.query), {
      method,
      headers,
      credentials: 'same-origin',
      ...(body !== undefined ? { body } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'NETWORK', 'The platform cannot be reached; check the connection and try again');
  }
  if (!res.ok) {
    const error = await errorOf(res);
    // a wrong password is the log-in page's to say, not a lost session
    if (error.status === 401 && path !== '/login' && !loggedOut) onSessionLost?.({ method, path });
    throw error;
  }
  if (res.status === 204) return undefined as T;
  const type = res.headers.get('content-type') ?? '';
  return (type.includes('json') ? await res.json() : await res.text()) as T;
}
