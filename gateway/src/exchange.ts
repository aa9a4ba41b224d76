import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuditAuthMethod, Caller, OperationDef } from '@nap/contracts';

/** What the gateway knows of a request as it goes (express keeps it in `res.locals`). */
export interface RequestLocals {
  requestId: string;
  caller?: Caller;
  op?: OperationDef;
  /** How the request presented credentials (and the username Basic named), once read: for the audit trail. */
  credentials?: { via: AuditAuthMethod; username?: string };
  /** The request body once read (the audit trail reads who a login names). */
  body?: unknown;
  /**
   * Set once the request held against its operation's schemas: only then does the audit trail
   * record it once per id or device its body lists (bounded by the schema), never for a body refused.
   */
  validated?: true;
}

/** A request for a catalog operation, its route found: what each step of the pipeline reads. */
export interface OperationExchange {
  req: IncomingMessage;
  res: ServerResponse;
  op: OperationDef;
  /** `req.method`, or GET when Node has none. */
  method: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
  locals: RequestLocals;
}
