import { addSecretTexts, noSecrets, secretMask } from '@nap/contracts';
import type { OutboundResponse, SecretMask } from '@nap/contracts';
import { jsonRpcRequest, jsonRpcResult, loginRequest, sessionCookie } from '../domain/jsonrpc';
import type { OrchestratorRequest } from '../domain/orchestrator-requests';
import type { Orchestrator } from './orchestrator';

/** Time kept back from each step for deleting the transaction and logging out if a step fails, ms. */
export const CLEANUP_RESERVE_MS = 2_000;

/**
 * One JSON-RPC session with NSO through an orchestrator adapter, as NSO documents it: `login` with
 * `{ user, passwd }` (admin writes the adapter's credentials into it: they never reach this service),
 * then calls carrying the session cookie it set (`sessionid`, or `sessionid_<port>` on newer
 * releases), then `logout`. Errors come back as AppErrors with NSO's error type, message and reason.
 */
export class JsonRpcSession {
  private cookie: string | undefined;
  private nextId = 1;

  constructor(private readonly orchestrator: Orchestrator) {}

  async login(): Promise<void> {
    const answer = await this.send(loginRequest(this.takeId()), 'login');
    this.cookie = sessionCookie(this.orchestrator.adapter.name, answer.headers['set-cookie'] ?? '');
  }

  /** Ends the session; a failure is ignored (the transaction's outcome is already decided). */
  async logout(): Promise<void> {
    if (this.cookie === undefined) return;
    await this.tryCall('logout', {});
    this.cookie = undefined;
  }

  /** Calls `method`; answers its `result`. `reserveMs` keeps time back for the cleanup calls that may follow. */
  async call(method: string, params: Record<string, unknown>, reserveMs = CLEANUP_RESERVE_MS): Promise<unknown> {
    return (await this.send(jsonRpcRequest(this.takeId(), method, params, this.cookie), method, reserveMs)).result;
  }

  /** Calls `method` and ignores any failure (cleanup after an error: the first error is the one reported). */
  async tryCall(method: string, params: Record<string, unknown>): Promise<void> {
    try {
      await this.send(jsonRpcRequest(this.takeId(), method, params, this.cookie), method, 0);
    } catch {
      // the cleanup of a failed request must not hide why it failed
    }
  }

  private takeId(): number {
    const id = this.nextId;
    this.nextId += 1;
    return id;
  }

  private async send(
    req: OrchestratorRequest,
    method: string,
    reserveMs = CLEANUP_RESERVE_MS,
  ): Promise<{ result: unknown; headers: OutboundResponse['headers'] }> {
    const work = (async () => {
      const answer = await this.orchestrator.call(req, reserveMs);
      return { result: jsonRpcResult(this.orchestrator.adapter.name, method, req, answer), headers: answer.headers };
    })();
    return this.cookie === undefined ? work : cookieMask(this.cookie).settle(work);
  }
}

/**
 * What masks the session cookie's values in a call's result and error (as they are, URL-encoded,
 * in base64): the session id is the credential of a live session, and an orchestrator that echoes
 * its request (an error that quotes the `Cookie` header) would put it in an answer and the log.
 * The adapter's password never reaches this service; admin masks it in every answer it relays.
 */
function cookieMask(cookie: string): SecretMask {
  const values = cookie.split(';').map((pair) => pair.slice(pair.indexOf('=') + 1).trim());
  return secretMask(addSecretTexts(noSecrets(), ...values));
}
