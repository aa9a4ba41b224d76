import { AppError, hasCode } from '@nap/contracts';
import type { ErrorCode, OutboundResponse } from '@nap/contracts';
import { injectTraceHeaders } from '@nap/telemetry';
import type { OrchestratorAdapter } from './adapter-cache';

/** Bound of one orchestrator call when the adapter sets none, ms (admin's default for adapter calls). */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;
/** Time kept back from the request deadline for the answer to travel back over the bus, ms. */
export const REPLY_MARGIN_MS = 500;

/** One HTTP request to the orchestrator, from the host root. */
export interface OrchestratorRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  path: string;
  headers: Record<string, string>;
  /** JSON body; absent for none. */
  body?: unknown;
}

/** Sends one request through admin's bus-only `admin.callAdapter` (which adds the credentials); answers whatever the orchestrator answered. */
export type SendThroughAdapter = (input: {
  adapter: string;
  method: OrchestratorRequest['method'];
  path: string;
  headers: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
}) => Promise<OutboundResponse>;

/**
 * Calls an orchestrator adapter within the request's deadline: each call is bounded by the adapter's
 * `timeoutMs` (default {@link DEFAULT_CALL_TIMEOUT_MS}) and by what is left of the deadline, so a
 * slow orchestrator is a 504 DEVICE_TIMEOUT (an unreachable one a 502 UPSTREAM_FAILED) before the
 * caller gives up. The W3C trace context of the request goes along (`traceparent`, `tracestate`).
 */
export class Orchestrator {
  constructor(
    readonly adapter: OrchestratorAdapter,
    private readonly send: SendThroughAdapter,
    private readonly deadline: number,
    /** Called when admin says the adapter is gone or not running: the cached record is stale. */
    private readonly onStale: (name: string) => void,
  ) {}

  /** Milliseconds one call may take now, keeping `reserveMs` of the deadline for later calls (cleanup). */
  budget(reserveMs = 0): number {
    const left = this.deadline - Date.now() - REPLY_MARGIN_MS - reserveMs;
    return Math.min(this.adapter.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, left);
  }

  async call(req: OrchestratorRequest, reserveMs = 0): Promise<OutboundResponse> {
    const timeoutMs = this.budget(reserveMs);
    if (timeoutMs <= 0)
      throw new AppError(
        'DEVICE_TIMEOUT',
        `No time left for ${req.method} ${req.path} on orchestrator "${this.adapter.name}" within the operation's deadline`,
      );
    const headers = { ...req.headers };
    injectTraceHeaders(headers);
    try {
      return await this.send({
        adapter: this.adapter.name,
        method: req.method,
        path: req.path,
        headers,
        timeoutMs,
        ...(req.body !== undefined ? { body: req.body } : {}),
      });
    } catch (err) {
      if (hasCode(err, 'ADAPTER_NOT_RUNNING') || hasCode(err, 'ADAPTER_NOT_FOUND')) this.onStale(this.adapter.name);
      throw err;
    }
  }
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

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
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
  const message = `Orchestrator "${adapter}" answered ${answer.status} to ${req.method} ${req.path}${said !== undefined ? `: ${said}` : ''}${tag}`;
  const details: Record<string, unknown> = { status: answer.status, method: req.method, path: req.path, errors: entries };
  if (entries.length === 0 && answer.body !== null && answer.body !== undefined) details.body = answer.body;
  return new AppError(codeForStatus(answer.status), message, { details });
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
