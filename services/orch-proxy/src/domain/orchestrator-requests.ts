import { AppError, OUTBOUND_METHODS } from '@nap/contracts';
import type { ErrorCode, OutboundResponse } from '@nap/contracts';
import { isRecord } from '@nap/util';

/**
 * One HTTP exchange with the orchestrator, as values: the request (method, path from the host root,
 * media types) and what a RESTCONF answer means (its body, or the error for a status that is not 2xx).
 */

/** One HTTP request to the orchestrator, from the host root. */
export interface OrchestratorRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  path: string;
  headers: Record<string, string>;
  /** JSON body; absent for none. */
  body?: unknown;
  /** JSON pointers in `body` where admin writes the adapter's user name and password (a login that takes them in its body). */
  credentialsAt?: { user: string; password: string };
}

function isMethod(m: string): m is OrchestratorRequest['method'] {
  return (OUTBOUND_METHODS as readonly string[]).includes(m);
}

/** The HTTP method `value` names, in any case and default POST; 400 naming `member` when it is not one. */
export function requestMethod(value: string | undefined, member: string): OrchestratorRequest['method'] {
  const method = (value ?? 'POST').trim().toUpperCase();
  if (!isMethod(method)) {
    throw new AppError('VALIDATION_FAILED', `${member} "${value ?? ''}" is not an HTTP method (${OUTBOUND_METHODS.join(', ')})`, {
      details: [{ member, message: 'is not an HTTP method' }],
    });
  }
  return method;
}

/** The ORCH_* code for an orchestrator's HTTP status. */
export function codeForStatus(status: number): ErrorCode {
  if (status === 400) return 'ORCH_BAD_REQUEST';
  if (status === 404) return 'ORCH_PATH_NOT_FOUND';
  if (status === 409) return 'ORCH_CONFLICT';
  if (status === 401 || status === 403) return 'ORCH_AUTH_FAILED';
  if (status >= 400 && status < 500) return 'ORCH_REFUSED';
  return 'ORCH_FAILED';
}

/** One entry of RESTCONF's `ietf-restconf:errors`, as NAP reports it. */
export interface OrchestratorErrorEntry {
  type?: string;
  tag?: string;
  appTag?: string;
  path?: string;
  message?: string;
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** The entries of an `ietf-restconf:errors` (or unprefixed `errors`) body; none when the body is something else. */
export function restconfErrorEntries(body: unknown): OrchestratorErrorEntry[] {
  if (!isRecord(body)) return [];
  const errors = body['ietf-restconf:errors'] ?? body.errors;
  if (!isRecord(errors)) return [];
  const list = Array.isArray(errors.error) ? errors.error : [errors.error];
  return list.filter(isRecord).map((e) => {
    const entry: OrchestratorErrorEntry = {};
    const type = text(e['error-type']);
    const tag = text(e['error-tag']);
    const appTag = text(e['error-app-tag']);
    const path = text(e['error-path']);
    const message = text(e['error-message']);
    if (type !== undefined) entry.type = type;
    if (tag !== undefined) entry.tag = tag;
    if (appTag !== undefined) entry.appTag = appTag;
    if (path !== undefined) entry.path = path;
    if (message !== undefined) entry.message = message;
    return entry;
  });
}

/**
 * The error for a RESTCONF answer that is not 2xx: the code follows the orchestrator's status (400,
 * 404, 409 kept; other 4xx 422; 401/403 and 5xx 502), the message names the orchestrator, the
 * request, the status, the error-tag and the orchestrator's message; details hold them all.
 */
export function restconfError(adapter: string, req: Pick<OrchestratorRequest, 'method' | 'path'>, answer: OutboundResponse): AppError {
  const entries = restconfErrorEntries(answer.body);
  const first = entries[0];
  const said = first?.message ?? (typeof answer.body === 'string' && answer.body !== '' ? answer.body.slice(0, 200) : undefined);
  const tag = first?.tag !== undefined ? ` (error-tag ${first.tag})` : '';
  const refusedLogin = answer.status === 401 || answer.status === 403 ? credentialsHint(adapter) : '';
  const message = `Orchestrator "${adapter}" answered ${answer.status} to ${req.method} ${req.path}${said !== undefined ? `: ${said}` : ''}${tag}${refusedLogin}`;
  const details: Record<string, unknown> = { status: answer.status, method: req.method, path: req.path, errors: entries };
  if (entries.length === 0 && answer.body !== null && answer.body !== undefined) details.body = answer.body;
  return new AppError(codeForStatus(answer.status), message, { details });
}

/** What to do when the orchestrator refuses the adapter's credentials: they are the adapter's, set through admin. */
export function credentialsHint(adapter: string): string {
  return `; fix the credentials (user, passwd) of adapter "${adapter}": PUT /adapters/${adapter}/properties`;
}

/** The body of a 2xx answer, undefined when it has none; the {@link restconfError} of any other status. */
export function answerBody(adapter: string, req: Pick<OrchestratorRequest, 'method' | 'path'>, answer: OutboundResponse): unknown {
  if (answer.status < 200 || answer.status >= 300) throw restconfError(adapter, req, answer);
  const empty = answer.body === null || answer.body === undefined || answer.body === '';
  return empty ? undefined : answer.body;
}

/** Media types as the spec writes them (`yang-data+json`, `vnd.yang.data+json`) get `application/`; full ones stay. An empty one is 400 naming `member`. */
export function mediaType(value: string, member: string): string {
  const v = value.trim();
  if (v === '')
    throw new AppError('VALIDATION_FAILED', `${member} is empty; give a media type such as yang-data+json`, {
      details: [{ member, message: 'is empty' }],
    });
  return v.includes('/') ? v : `application/${v}`;
}

/** A path the orchestrator is asked for: from the host root (`/restconf/…`, `/jsonrpc`), never a URL of its own. */
export function checkPath(path: string, member: string): string {
  const p = path.trim();
  if (!p.startsWith('/') || p.startsWith('//')) {
    throw new AppError(
      'VALIDATION_FAILED',
      `${member} "${path}" must be a path from the orchestrator's root, starting with one / (for example /restconf/data/tailf-ncs:devices)`,
      { details: [{ member, message: 'must start with /' }] },
    );
  }
  return p;
}
