import { AppError } from '@nap/contracts';
import { errorMessage } from '@nap/util';
import {
  ClosedConnectionError,
  DrainingConnectionError,
  NoRespondersError,
  RequestError,
  TimeoutError,
  headers as natsHeaders,
} from '@nats-io/nats-core';
import type { MsgHdrs } from '@nats-io/nats-core';
import type { BusHeaders } from '../types';
import { NO_RESPONDERS_STATUS } from './nats-reply-inbox';
import { closedError, noRespondersError, timeoutError } from './errors';
import { assertValidHeaders } from './headers';

/** `BusHeaders` to NATS headers (checked first, so nats.js never throws on them); none for an empty record. */
export function toNatsHeaders(headers: BusHeaders | undefined): MsgHdrs | undefined {
  assertValidHeaders(headers);
  if (headers === undefined) return undefined;
  const entries = Object.entries(headers);
  if (entries.length === 0) return undefined;
  const h = natsHeaders();
  for (const [name, value] of entries) h.set(name, value);
  return h;
}

/** NATS headers to a `BusHeaders` record (first value of each name; status line left out). */
export function fromNatsHeaders(headers: MsgHdrs | undefined): BusHeaders {
  if (headers === undefined) return {};
  return Object.fromEntries(headers.keys().map((name) => [name, headers.get(name)]));
}

/** True when a nats.js error says nobody listens on the subject. */
export function isNoResponders(err: unknown): boolean {
  if (err instanceof NoRespondersError) return true;
  // the connection's own reply inbox (requests, stream publishes)
  if (err instanceof AppError && err.cause === NO_RESPONDERS_STATUS) return true;
  if (err instanceof RequestError) return err.isNoResponders();
  return false;
}

/**
 * True when a nats.js error says the connection is closed, closing or lost. nats.js raises a
 * `RequestError` with a `cause` for failures it got from the server (no responders, permissions) and
 * one without a cause when the connection went away under the request (closed, disconnected, the
 * request cancelled by a drain), so the type and the cause decide, never the message.
 */
export function isConnectionGone(err: unknown): boolean {
  if (err instanceof ClosedConnectionError || err instanceof DrainingConnectionError) return true;
  return err instanceof RequestError && err.cause === undefined;
}

/**
 * Turns whatever a nats.js request threw into an `AppError`: `TIMEOUT`, `SERVICE_UNAVAILABLE` (no
 * responders, connection gone) or `INTERNAL`. An `AppError` passes through.
 */
export function requestFailure(err: unknown, subject: string, timeoutMs: number): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof TimeoutError) return timeoutError(subject, timeoutMs, err);
  if (isNoResponders(err)) return noRespondersError(subject, err);
  if (isConnectionGone(err)) return closedError(`send a request on "${subject}"`, err);
  return new AppError('INTERNAL', `Request on "${subject}" failed: ${errorMessage(err)}`, { cause: err });
}
