import { AppError, isAppError } from '@nap/contracts';
import {
  MongoAPIError,
  MongoClientClosedError,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoParseError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';
import { badRequest, conflict, duplicateKey, storeUnavailable } from '../errors';

/** Server error codes that mean "not reachable right now". */
const UNAVAILABLE_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** Server error codes for a filter, update, projection or document the server refuses. */
const BAD_REQUEST_CODES = new Set([
  2, // BadValue
  9, // FailedToParse
  14, // TypeMismatch
  40, // ConflictingUpdateOperators
  52, // DollarPrefixedFieldName
  56, // EmptyFieldName
  57, // DottedFieldName
  66, // ImmutableField
  67, // CannotCreateIndex
  171, // CannotIndexParallelArrays
  31253, // inclusion in an exclusion projection
  31254, // exclusion in an inclusion projection
  51091, // invalid regular expression
]);

const INDEX_CONFLICT_CODES = new Set([
  85, // IndexOptionsConflict
  86, // IndexKeySpecsConflict
]);

function duplicateDetails(e: MongoServerError): { index: string; key: Record<string, unknown> } {
  const first: unknown = Array.isArray(e.writeErrors) ? (e.writeErrors as unknown[])[0] : undefined;
  const nested = (first as { err?: Record<string, unknown> } | undefined)?.err;
  const keyValue = (e.keyValue ?? nested?.keyValue) as Record<string, unknown> | undefined;
  const message = String(nested?.errmsg ?? e.errmsg ?? e.message);
  const index = /index: (\S+) dup key/.exec(message)?.[1] ?? 'unknown';
  return { index, key: keyValue ?? {} };
}

function isDuplicate(e: MongoServerError): boolean {
  if (e.code === 11000 || e.code === 11001) return true;
  const writeErrors: unknown = e.writeErrors;
  const first: unknown = Array.isArray(writeErrors) ? writeErrors[0] : undefined;
  return (first as { code?: number } | undefined)?.code === 11000;
}

/**
 * Turns a driver error into an `AppError` at the edge of the store: duplicate key →
 * `STORE_DUPLICATE_KEY`, connection or server selection trouble → `STORE_UNAVAILABLE`, refused
 * input → `BAD_REQUEST`, conflicting index definitions → `CONFLICT`, anything else → `INTERNAL`.
 */
export function translateMongoError(e: unknown, collection: string): AppError {
  if (isAppError(e)) return e;
  if (e instanceof MongoServerError) {
    if (isDuplicate(e)) return duplicateKey(collection, duplicateDetails(e), e);
    const code = typeof e.code === 'number' ? e.code : -1;
    // MaxTimeMSExpired: the request's deadline (maxTimeMS) passed while the server worked
    if (code === 50)
      return new AppError('TIMEOUT', `MongoDB did not finish the call on collection "${collection}" before the request's deadline`, {
        cause: e,
      });
    if (UNAVAILABLE_CODES.has(code))
      return storeUnavailable(`MongoDB cannot serve collection "${collection}" right now (${e.codeName ?? code})`, e);
    if (INDEX_CONFLICT_CODES.has(code)) return conflict(`Collection "${collection}" already has a conflicting index: ${e.message}`);
    if (BAD_REQUEST_CODES.has(code)) return badRequest(`MongoDB refused the request on collection "${collection}": ${e.message}`, e);
    return new AppError('INTERNAL', `MongoDB failed on collection "${collection}" (${e.codeName ?? code})`, { cause: e });
  }
  if (
    e instanceof MongoServerSelectionError ||
    e instanceof MongoNetworkError ||
    e instanceof MongoNotConnectedError ||
    e instanceof MongoTopologyClosedError ||
    e instanceof MongoClientClosedError ||
    e instanceof MongoServerClosedError
  ) {
    return storeUnavailable(`MongoDB cannot be reached (${e.name})`, e);
  }
  if (e instanceof MongoParseError) return new AppError('INTERNAL', 'The MongoDB connection string is invalid', { cause: e });
  if (e instanceof MongoAPIError) return badRequest(`MongoDB driver refused the request on collection "${collection}": ${e.message}`, e);
  if (e instanceof MongoError) return new AppError('INTERNAL', `MongoDB failed on collection "${collection}" (${e.name})`, { cause: e });
  return new AppError('INTERNAL', `Store operation on collection "${collection}" failed`, { cause: e });
}
