import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const SANE_REQUEST_ID = /^[\w.-]{1,128}$/;

/** The request id: the client's `x-request-id` when it is a sane token, a new UUID otherwise; echoed back. */
export function requestIdOf(req: IncomingMessage, res: ServerResponse): string {
  const incoming = req.headers['x-request-id'];
  const requestId = typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('x-request-id', requestId);
  return requestId;
}
