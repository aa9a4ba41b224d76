import { AppError, isAppError } from '../contracts';
import {
  MongoAPIError,
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoParseError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
} from 'mongodb';
import { MAX_DOCUMENT_BYTES, badRequest, conflict, documentTooLarge, duplicateKey, storeFull, storeUnavailable } from '../errors';

/** Server error codes that mean "not reachable right now". */
const UNAVAILABLE_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  9001, // SocketException
  10107, // NotWritablePrimary
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** Server error codes of an operation the server stopped before it ended; a multi-document write may be applied in part. */
const INTERRUPTED_CODES = new Set([
  11600, // InterruptedAtShutdown
  11601, // Interrupted (killOp)
  11602, // InterruptedDueToReplStateChange (a step-down)
  175, // QueryPlanKilled
  237, // CursorKilled
]);

/** True when MongoDB refused a write for want of space: the disk (OutOfDiskSpace) or an Atlas cluster's space quota. */
function isOutOfSpace(e: MongoServerError, code: number): boolean {
  return code === 14031 || e.codeName === 'OutOfDiskSpace' || (code === 8000 && /space quota/i.test(e.message));
}

/** Server error codes of the request's deadline (`maxTimeMS`) passing while the server worked. */
const TIME_LIMIT_CODES = new Set([
  50, // MaxTimeMSExpired
  262, // ExceededTimeLimit
]);

/** Server error codes of a document over the 16 MiB limit. */
const TOO_LARGE_CODES = new Set([
  10334, // BSONObjectTooLarge
  17419, // the document an update makes is larger than the limit
  17420, // the document an upsert makes is larger than the limit
]);

/** Server error codes of credentials the server refuses, or rights the user lacks. */
const AUTH_CODES = new Set([
  18, // AuthenticationFailed
  13, // Unauthorized
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

const CURSOR_NOT_FOUND = 43;

/** The first write error of a bulk write (an ordered `insertMany` stops at it). */
interface WriteErrorEntry {
  code?: number;
  index?: number;
  errmsg?: string;
  keyValue?: Record<string, unknown>;
  /** The document of an insert the bulk write refused. */
  op?: Record<string, unknown>;
}

function firstWriteError(e: MongoServerError): WriteErrorEntry | undefined {
  const writeErrors: unknown = e.writeErrors;
  const first: unknown = Array.isArray(writeErrors) ? writeErrors[0] : undefined;
  if (first === undefined || first === null) return undefined;
  const nested = (first as { err?: WriteErrorEntry }).err;
  return nested ?? (first as WriteErrorEntry);
}

/** How many documents of an ordered `insertMany` went in before the refused one; undefined for other writes. */
function insertedBefore(e: MongoServerError): { insertedCount?: number } {
  if (!(e instanceof MongoBulkWriteError)) return {};
  const index = firstWriteError(e)?.index;
  return typeof index === 'number' ? { insertedCount: index } : { insertedCount: e.insertedCount };
}

function duplicateDetails(e: MongoServerError): { index: string; key: Record<string, unknown>; insertedCount?: number } {
  const first = firstWriteError(e);
  const message = String(first?.errmsg ?? e.errmsg ?? e.message);
  const index = /index: (\S+) dup key/.exec(message)?.[1] ?? 'unknown';
  // a bulk write's errors lose the server's keyValue in the driver; the refused document still has its _id
  const refusedId = index === '_id_' && typeof first?.op?._id === 'string' ? { _id: first.op._id } : undefined;
  const keyValue = (e.keyValue ?? first?.keyValue ?? refusedId) as Record<string, unknown> | undefined;
  return { index, key: keyValue ?? {}, ...insertedBefore(e) };
}

/** The server's code for the failure: the first write error's for a bulk write, else the error's own. */
function serverCode(e: MongoServerError): number {
  const first = firstWriteError(e)?.code;
  if (typeof first === 'number') return first;
  return typeof e.code === 'number' ? e.code : -1;
}

/** True for a write the primary applied whose write concern (majority, journaled) was not confirmed. */
function isWriteConcernFailure(e: MongoServerError): boolean {
  if (e instanceof MongoWriteConcernError) return true;
  return e instanceof MongoBulkWriteError && firstWriteError(e) === undefined && e.result.getWriteConcernError() !== undefined;
}

/**
 * Turns a driver error into an `AppError` at the edge of the store, by class and server code:
 * no space left (disk or Atlas quota) → `STORE_FULL`, duplicate key → `STORE_DUPLICATE_KEY` (also inside a bulk write, with how many documents went in
 * before), document over 16 MiB → `STORE_DOCUMENT_TOO_LARGE`, a write applied on the primary whose
 * majority acknowledgement failed → `STORE_WRITE_CONCERN_FAILED`, interrupted operations →
 * `STORE_INTERRUPTED`, refused credentials or rights → `STORE_AUTH_FAILED`, a lost cursor →
 * `STORE_CURSOR_NOT_FOUND`, the deadline → `TIMEOUT`, connection or server selection trouble →
 * `STORE_UNAVAILABLE`, refused input → `BAD_REQUEST`, conflicting index definitions → `CONFLICT`,
 * anything else → `INTERNAL`. The cause is kept and the collection named in every message.
 */
export function translateMongoError(e: unknown, collection: string): AppError {
  if (isAppError(e)) return e;
  if (e instanceof MongoServerError) {
    const code = serverCode(e);
    if (code === 11000 || code === 11001) return duplicateKey(collection, duplicateDetails(e), e);
    if (TOO_LARGE_CODES.has(code)) return documentTooLarge({ collection, limitBytes: MAX_DOCUMENT_BYTES, ...insertedBefore(e) }, e);
    if (isOutOfSpace(e, code))
      return storeFull(
        `MongoDB has no space left for collection "${collection}" (${e.codeName ?? code}): ${e.message}`,
        // MongoDB refuses a write it has no room for; a write to several documents may be applied in part
        { nothingWritten: false },
        e,
      );
    if (isWriteConcernFailure(e))
      return new AppError(
        'STORE_WRITE_CONCERN_FAILED',
        `MongoDB applied a write on collection "${collection}" but a majority of the replica set did not confirm it (${e.codeName ?? e.code}); read the data before writing it again`,
        { cause: e },
      );
    if (TIME_LIMIT_CODES.has(code))
      return new AppError('TIMEOUT', `MongoDB did not finish the call on collection "${collection}" before the request's deadline`, {
        cause: e,
      });
    if (INTERRUPTED_CODES.has(code))
      return new AppError(
        'STORE_INTERRUPTED',
        `MongoDB interrupted the call on collection "${collection}" (${e.codeName ?? code}); a write to several documents may be applied in part`,
        { cause: e },
      );
    if (AUTH_CODES.has(code))
      return new AppError(
        'STORE_AUTH_FAILED',
        code === 18
          ? `MongoDB refused the service's credentials for collection "${collection}"; check the user and password of the connection string`
          : `The MongoDB user of the service may not do this on collection "${collection}" (${e.codeName ?? code}); check the user's roles`,
        { cause: e },
      );
    if (code === CURSOR_NOT_FOUND)
      return new AppError('STORE_CURSOR_NOT_FOUND', `MongoDB dropped the cursor of a read of collection "${collection}"; read again`, {
        cause: e,
      });
    if (UNAVAILABLE_CODES.has(code))
      return storeUnavailable(`MongoDB cannot serve collection "${collection}" right now (${e.codeName ?? code})`, e);
    if (INDEX_CONFLICT_CODES.has(code)) return conflict(`Collection "${collection}" already has a conflicting index: ${e.message}`);
    if (BAD_REQUEST_CODES.has(code)) return badRequest(`MongoDB refused the request on collection "${collection}": ${e.message}`, e);
    return new AppError('INTERNAL', `MongoDB failed on collection "${collection}" (${e.codeName ?? code})`, { cause: e });
  }
  if (e instanceof MongoOperationTimeoutError)
    return new AppError('TIMEOUT', `MongoDB did not answer a call on collection "${collection}" before the request's deadline`, {
      cause: e,
    });
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
