import type { Identity } from './schemas/auth';

/**
 * Who is calling: set by the gateway from the verified token, forwarded on every bus hop. The type of
 * `identitySchema` (what `admin.authenticate` and `admin.resolveSession` answer).
 */
export type Caller = Identity;

/** The system caller: the platform acting on its own (start-up tasks, scheduled work). */
export const SYSTEM_CALLER: Caller = { id: 'system', username: 'system', roles: ['admin'], groups: [] };

/** The payload of every bus request (architecture section 4). */
export interface OperationInput<TBody = unknown, TParams = Record<string, string>, TQuery = Record<string, unknown>> {
  params: TParams;
  query: TQuery;
  body: TBody;
  caller: Caller;
}

/** Header names of bus messages. */
export const HEADERS = {
  requestId: 'nap-request-id',
  deadline: 'nap-deadline',
  status: 'nap-status',
  /** Set by the gateway once it validated the request against the catalog; services skip validating again. */
  validated: 'nap-validated',
  errorCode: 'Nats-Service-Error-Code',
  errorMessage: 'Nats-Service-Error',
  contentType: 'nap-content-type',
  /** Set with `nap-content-type` when the answer is a file to save: the HTTP `Content-Disposition`. */
  contentDisposition: 'nap-content-disposition',
  /**
   * Set on a raw answer that is one part of a larger file (a job archive): the query members (JSON)
   * that ask the same operation for the next part. The gateway asks for each part in turn and sends
   * them as one HTTP body, so no bus message carries more than a part.
   */
  continueWith: 'nap-continue-with',
  /** The client's `Idempotency-Key` of a POST, forwarded to the owning service. */
  idempotencyKey: 'nap-idempotency-key',
  /** Set on an answer replayed for an `Idempotency-Key` seen before. */
  idempotentReplay: 'nap-idempotent-replayed',
  /**
   * On a success answer: what the owning service tells the audit trail (`{ target, changes }`, JSON),
   * read and dropped by the gateway, never sent to HTTP clients.
   */
  audit: 'nap-audit',
  /** Set by the gateway: the address the request came from (the socket's, or the trusted proxy's `X-Forwarded-For`). */
  clientAddress: 'nap-client-address',
  /** The client's `User-Agent` as the gateway saw it (cut to 256 characters): what a session is listed with. */
  userAgent: 'nap-user-agent',
} as const;
