import type { IncomingMessage, ServerResponse } from 'node:http';
import { HEADERS, isAppError } from '@nap/contracts';
import type { Caller, OperationDef } from '@nap/contracts';
import { acceptsIdempotencyKey } from '@nap/bus';
import type { BusClient, CallInput, RawResult } from '@nap/bus';
import type { Context } from '@nap/telemetry';
import type { UnavailableServices } from './unavailable';

/** Who the bus request names when the operation is public. */
const ANONYMOUS: Caller = { id: 'anonymous', username: 'anonymous', roles: [], groups: [] };

/**
 * Sends the checked request as one bus request to the owning service (`validated`, so that serve()
 * does not validate twice), with the address it came from, and answers its raw reply. An `Idempotency-Key` header is passed on for
 * the owning service to check and honour, where the key is kept with what it created.
 *
 * Errors: those of the service, as it answered them; a `SERVICE_UNAVAILABLE` says why when an
 * operator stopped the service.
 */
export async function forward(
  client: BusClient,
  unavailable: UnavailableServices,
  op: OperationDef,
  req: IncomingMessage,
  parts: CallInput,
  caller: Caller | undefined,
  requestId: string,
  clientAddress: string,
  /** The trace context of the request (its SERVER span's): the parent of the bus request's span. */
  trace: Context,
): Promise<RawResult> {
  const idempotencyKey = req.headers['idempotency-key'];
  const userAgent = req.headers['user-agent'];
  return client
    .callRaw(op, parts, {
      caller: caller ?? ANONYMOUS,
      requestId,
      clientAddress,
      ...(userAgent !== undefined && userAgent !== '' ? { userAgent: userAgent.slice(0, 256) } : {}),
      trace,
      validated: true,
      ...(typeof idempotencyKey === 'string' && acceptsIdempotencyKey(op) ? { idempotencyKey } : {}),
    })
    .catch(async (err: unknown) => {
      throw isAppError(err) && err.code === 'SERVICE_UNAVAILABLE' ? await unavailable.explain(op.service, err) : err;
    });
}

/** Writes the service's reply back untouched: its status, content type, disposition and bytes. */
export function writeReply(res: ServerResponse, result: RawResult): void {
  const contentType = result.headers[HEADERS.contentType];
  res.statusCode = result.status;
  if (result.headers[HEADERS.idempotentReplay] !== undefined) res.setHeader('idempotent-replayed', 'true');
  if (result.status === 204 || result.data.length === 0) {
    res.end();
    return;
  }
  res.setHeader('content-type', contentType ?? 'application/json; charset=utf-8');
  const disposition = result.headers[HEADERS.contentDisposition];
  if (disposition !== undefined) res.setHeader('content-disposition', disposition);
  // said outright: node works it out from the body, which a HEAD request has none of
  res.setHeader('content-length', result.data.byteLength);
  res.end(Buffer.from(result.data.buffer, result.data.byteOffset, result.data.byteLength));
}
