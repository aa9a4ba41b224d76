import { hasCode, isAppError } from '@nap/contracts';
import { isRecord } from '@nap/util';

/** The first and the longest wait before the store is tried again (it had no room, or did not answer). */
const STORE_RETRY_FIRST_MS = 250;
const STORE_RETRY_MAX_MS = 15_000;

/** True for a write the store refused for want of space before writing any of it (it may be made again as it is). */
export function refusedForSpace(err: unknown): boolean {
  return hasCode(err, 'STORE_FULL') && isAppError(err) && isRecord(err.details) && err.details.nothingWritten === true;
}

/**
 * True for a store call that failed without saying what it did: the store could not be reached, was
 * interrupted (a failover), did not confirm a write to a majority, ran out of space part-way, or
 * refused the service's credentials. A read may simply be made again; a write may have been applied.
 */
export function storeOutage(err: unknown): boolean {
  return (
    hasCode(err, 'STORE_UNAVAILABLE') ||
    hasCode(err, 'STORE_INTERRUPTED') ||
    hasCode(err, 'STORE_WRITE_CONCERN_FAILED') ||
    hasCode(err, 'STORE_CURSOR_NOT_FOUND') ||
    hasCode(err, 'STORE_AUTH_FAILED') ||
    (hasCode(err, 'STORE_FULL') && !refusedForSpace(err))
  );
}

/** The wait before the store is tried again after `attempt` failures in a row (1, 2, …): 250 ms doubling to 15 s. */
export function storeRetryDelay(attempt: number): number {
  return Math.min(STORE_RETRY_MAX_MS, STORE_RETRY_FIRST_MS * 2 ** Math.max(0, attempt - 1));
}
