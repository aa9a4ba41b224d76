import type { OutboundResponse } from '@nap/contracts';
import { jsonRpcRequest, jsonRpcResult, sessionCookie } from '../domain/jsonrpc';
import type { Orchestrator } from './orchestrator';

/** Time kept back from each step for deleting the transaction and logging out if a step fails, ms. */
export const CLEANUP_RESERVE_MS = 2_000;

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
    this.cookie = sessionCookie(this.orchestrator.adapter.name, answer.headers['set-cookie'] ?? '');
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
  ): Promise<{ result: unknown; headers: OutboundResponse['headers'] }> {
    const req = jsonRpcRequest(this.nextId, method, params, this.cookie);
    this.nextId += 1;
    const answer = await this.orchestrator.call(req, reserveMs);
    return { result: jsonRpcResult(this.orchestrator.adapter.name, method, req, answer), headers: answer.headers };
  }
}
