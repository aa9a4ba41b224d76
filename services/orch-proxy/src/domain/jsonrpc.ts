import { AppError } from '@nap/contracts';
import type { ErrorCode } from '@nap/contracts';
import { restconfError } from './orchestrator';
import type { Orchestrator } from './orchestrator';

/** NSO's JSON-RPC endpoint, from the host root. */
export const JSONRPC_PATH = '/jsonrpc';

/** Time kept back from each step for deleting the transaction and logging out if a step fails, ms. */
export const CLEANUP_RESERVE_MS = 2_000;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The NAP code for an NSO JSON-RPC error `type`. */
export function codeForRpcError(method: string, type: string): ErrorCode {
  if (method === 'login' || type.startsWith('session.')) return type === 'session.overload' ? 'ORCH_FAILED' : 'ORCH_AUTH_FAILED';
  if (type === 'data.not_found') return 'ORCH_PATH_NOT_FOUND';
  if (type === 'data.already_exists' || type === 'db.locked' || type.startsWith('trans.confirmed_commit')) return 'ORCH_CONFLICT';
  if (
    type.startsWith('rpc.method.') &&
    type !== 'rpc.method.failed' &&
    type !== 'rpc.method.denied' &&
    type !== 'rpc.method.timeout' &&
    type !== 'rpc.method.not_found'
  )
    return 'ORCH_BAD_REQUEST';
  if (type === 'rpc.internal_error' || type === 'rpc.method.timeout' || type === 'rpc.method.not_found' || type.startsWith('rpc.request.'))
    return 'ORCH_FAILED';
  return 'ORCH_REFUSED';
}

/**
 * One JSON-RPC session with NSO through an orchestrator adapter: `login` without parameters (NSO
 * takes the request's Basic credentials, which admin adds), then calls carrying the `sessionid`
 * cookie it set. Errors come back as AppErrors with NSO's error type, message and reason.
 */
export class JsonRpcSession {
  private cookie: string | undefined;
  private nextId = 1;

  constructor(private readonly orchestrator: Orchestrator) {}

  async login(): Promise<void> {
    const answer = await this.send('login', {});
    const setCookie = answer.headers['set-cookie'] ?? '';
    // admin joins several Set-Cookie headers with ", "; the session cookie is the one named sessionid
    const m = /(?:^|[,;]\s*)sessionid=([^;,\s]+)/.exec(setCookie);
    if (m?.[1] === undefined)
      throw new AppError(
        'ORCH_FAILED',
        `Orchestrator "${this.orchestrator.adapter.name}" accepted the JSON-RPC login but set no sessionid cookie`,
      );
    this.cookie = `sessionid=${m[1]}`;
  }

  /** Calls `method`; answers its `result`. `reserveMs` keeps time back for the cleanup calls that may follow. */
  async call(method: string, params: Record<string, unknown>, reserveMs = CLEANUP_RESERVE_MS): Promise<unknown> {
    return (await this.send(method, params, reserveMs)).result;
  }

  /** Calls `method` and ignores any failure (cleanup after an error: the first error is the one reported). */
  async tryCall(method: string, params: Record<string, unknown>): Promise<void> {
    try {
      await this.send(method, params, 0);
    } catch {
      // the cleanup of a failed request must not hide why it failed
    }
  }

  private async send(
    method: string,
    params: Record<string, unknown>,
    reserveMs = CLEANUP_RESERVE_MS,
  ): Promise<{ result: unknown; headers: Record<string, string> }> {
    const id = this.nextId;
    this.nextId += 1;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.cookie !== undefined) headers.cookie = this.cookie;
    const req = { method: 'POST' as const, path: JSONRPC_PATH, headers, body: { jsonrpc: '2.0', id, method, params } };
    const answer = await this.orchestrator.call(req, reserveMs);
    const name = this.orchestrator.adapter.name;
    if (answer.status < 200 || answer.status >= 300) throw restconfError(name, req, answer);
    const body = answer.body;
    if (!isRecord(body) || body.jsonrpc !== '2.0' || !('result' in body || 'error' in body)) {
      throw new AppError(
        'ORCH_FAILED',
        `Orchestrator "${name}" answered JSON-RPC ${method} with something that is not a JSON-RPC 2.0 response`,
        { details: { status: answer.status, body } },
      );
    }
    if (isRecord(body.error)) {
      const type = typeof body.error.type === 'string' ? body.error.type : 'unknown';
      const said = typeof body.error.message === 'string' ? body.error.message : 'error';
      const data = isRecord(body.error.data) ? body.error.data : undefined;
      const reason =
        typeof data?.reason === 'string' ? `: ${data.reason}` : typeof data?.param === 'string' ? ` (param ${data.param})` : '';
      throw new AppError(
        codeForRpcError(method, type),
        `Orchestrator "${name}" refused JSON-RPC ${method}: ${said}${reason} (type ${type})`,
        {
          details: { method, code: body.error.code ?? null, type, message: said, ...(data !== undefined ? { data } : {}) },
        },
      );
    }
    return { result: body.result, headers: answer.headers };
  }
}
