import { AppError } from '@nap/contracts';
import type { ErrorCode, OutboundResponse } from '@nap/contracts';
import { isRecord } from '@nap/util';
import { credentialsHint, restconfError } from './orchestrator-requests';
import type { OrchestratorRequest } from './orchestrator-requests';

/**
 * NSO's JSON-RPC as values: the request of one call, and what its answer means (the result, or an
 * AppError with NSO's error type, message and reason). The session that sends them is a client.
 */

/** NSO's JSON-RPC endpoint, from the host root. */
export const JSONRPC_PATH = '/jsonrpc';

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

/** JSON-RPC call `id`: `method` with `params`, carrying the session cookie once the login set one. */
export function jsonRpcRequest(id: number, method: string, params: Record<string, unknown>, cookie?: string): OrchestratorRequest {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (cookie !== undefined) headers.cookie = cookie;
  return { method: 'POST', path: JSONRPC_PATH, headers, body: { jsonrpc: '2.0', id, method, params } };
}

/** The `result` of the answer to `req` (JSON-RPC `method`); throws what the orchestrator refused, and why. */
export function jsonRpcResult(adapter: string, method: string, req: OrchestratorRequest, answer: OutboundResponse): unknown {
  if (answer.status < 200 || answer.status >= 300) throw restconfError(adapter, req, answer);
  const body = answer.body;
  if (!isRecord(body) || body.jsonrpc !== '2.0' || !('result' in body || 'error' in body)) {
    throw new AppError(
      'ORCH_FAILED',
      `Orchestrator "${adapter}" answered JSON-RPC ${method} with something that is not a JSON-RPC 2.0 response`,
      {
        details: { status: answer.status, body },
      },
    );
  }
  if (isRecord(body.error)) {
    const type = typeof body.error.type === 'string' ? body.error.type : 'unknown';
    const said = typeof body.error.message === 'string' ? body.error.message : 'error';
    const data = isRecord(body.error.data) ? body.error.data : undefined;
    const reason = typeof data?.reason === 'string' ? `: ${data.reason}` : typeof data?.param === 'string' ? ` (param ${data.param})` : '';
    const code = codeForRpcError(method, type);
    const hint = method === 'login' && code === 'ORCH_AUTH_FAILED' ? credentialsHint(adapter) : '';
    throw new AppError(code, `Orchestrator "${adapter}" refused JSON-RPC ${method}: ${said}${reason} (type ${type})${hint}`, {
      details: { method, code: body.error.code ?? null, type, message: said, ...(data !== undefined ? { data } : {}) },
    });
  }
  return body.result;
}

/**
 * NSO's JSON-RPC `login` as NSO documents it: `params: { user, passwd }`. The request carries no
 * credential: admin writes the adapter's user name and password at `credentialsAt` on its way out.
 */
export function loginRequest(id: number): OrchestratorRequest {
  return { ...jsonRpcRequest(id, 'login', {}), credentialsAt: { user: '/params/user', password: '/params/passwd' } };
}

/**
 * NSO's session cookies: `sessionid`, and `sessionid_<port>` (newer releases name it after the
 * port of the web server, `sessionid_8080`).
 */
const SESSION_COOKIE = /(?:^|[,;]\s*)(sessionid(?:_\d+)?)=([^;,\s]+)/g;

/**
 * The session cookies a login answer sets (`Set-Cookie`, several joined with ", " by admin), as the
 * `Cookie` header to send back; ORCH_FAILED when it sets none.
 */
export function sessionCookie(adapter: string, setCookie: string): string {
  const found = new Map<string, string>();
  for (const m of setCookie.matchAll(SESSION_COOKIE)) if (m[1] !== undefined && m[2] !== undefined) found.set(m[1], m[2]);
  if (found.size === 0)
    throw new AppError(
      'ORCH_FAILED',
      `Orchestrator "${adapter}" accepted the JSON-RPC login but set no session cookie (sessionid or sessionid_<port>)`,
    );
  return [...found].map(([name, value]) => `${name}=${value}`).join('; ');
}

/** The transaction handle of a `new_trans` result. */
export function transactionHandle(result: unknown, adapter: string): number {
  // NSO documents new_trans as answering { th }; some releases answer the number itself
  const th = typeof result === 'object' && result !== null && 'th' in result ? result.th : result;
  if (typeof th !== 'number')
    throw new AppError('ORCH_FAILED', `Orchestrator "${adapter}" answered new_trans without a transaction handle`, { details: { result } });
  return th;
}
