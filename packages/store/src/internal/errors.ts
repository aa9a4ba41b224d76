import { AppError } from './contracts';

/** Details of a `STORE_DUPLICATE_KEY` error. */
export interface DuplicateKeyDetails {
  /** Name of the unique index that refused the write (`_id_` for the primary key). */
  index: string;
  /** The offending key: index field → value. */
  key: Record<string, unknown>;
  /** For `insertMany`: how many documents before the refused one were inserted (the rest were not). */
  insertedCount?: number;
}

function describeKey(key: Record<string, unknown>): string {
  try {
    return JSON.stringify(key);
  } catch {
    return Object.keys(key).join(', ');
  }
}

export function duplicateKey(collection: string, details: DuplicateKeyDetails, cause?: unknown): AppError {
  return new AppError(
    'STORE_DUPLICATE_KEY',
    `Collection "${collection}" already holds a document with key ${describeKey(details.key)} in unique index "${details.index}"`,
    { details, cause },
  );
}

export function storeUnavailable(message: string, cause?: unknown): AppError {
  return new AppError('STORE_UNAVAILABLE', message, { cause });
}

/** What a `STORE_FULL` error says of the write it refused. */
export interface StoreFullDetails {
  /** True when the store refused the write before writing anything; false when it failed part-way and part of it may be kept. */
  nothingWritten: boolean;
  /** The disk's free space and the free space the store keeps, bytes (the embedded store's own refusal). */
  freeBytes?: number;
  minFreeBytes?: number;
}

/** The disk under the store (or its quota) has no room left for a write. */
export function storeFull(message: string, details: StoreFullDetails, cause?: unknown): AppError {
  return new AppError('STORE_FULL', message, { details, cause });
}

/** A filter, update, projection or document the store cannot accept. */
export function badRequest(message: string, cause?: unknown): AppError {
  return new AppError('BAD_REQUEST', message, { cause });
}

export function conflict(message: string): AppError {
  return new AppError('CONFLICT', message);
}

/** MongoDB's largest document, in bytes of BSON (16 MiB); the embedded store keeps to it too. */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/** Details of a `STORE_DOCUMENT_TOO_LARGE` error. */
export interface DocumentTooLargeDetails {
  collection: string;
  /** The document's size in bytes of BSON, when the store measured it (MongoDB's refusals of an update do not say). */
  sizeBytes?: number;
  limitBytes: number;
  /** For `insertMany`: how many documents before the refused one were inserted. */
  insertedCount?: number;
}

/** A document the store refuses because it would exceed {@link MAX_DOCUMENT_BYTES}. */
export function documentTooLarge(details: DocumentTooLargeDetails, cause?: unknown): AppError {
  const size = details.sizeBytes === undefined ? 'larger than' : `${details.sizeBytes} bytes, over`;
  return new AppError(
    'STORE_DOCUMENT_TOO_LARGE',
    `A document of collection "${details.collection}" would be ${size} the store's limit of ${details.limitBytes} bytes; keep large values out of it`,
    { details, cause },
  );
}

/** LMDB's largest key, in bytes (lmdb-js `maxKeySize`): a document key is the collection prefix and the `_id`. */
export const MAX_KEY_BYTES = 1978;

/** An id or indexed value too long to be a key of the embedded store. */
export function keyTooLong(what: string, options: { collection?: string; limitBytes?: number; cause?: unknown } = {}): AppError {
  const { collection, limitBytes = MAX_KEY_BYTES, cause } = options;
  const where = collection === undefined ? '' : ` in collection "${collection}"`;
  return new AppError(
    'STORE_KEY_TOO_LONG',
    `${what}${where} is too long to be a key of the store (at most ${limitBytes} bytes of UTF-8); use a shorter value`,
    {
      details: [{ ...(collection === undefined ? {} : { collection }), limitBytes }],
      cause,
    },
  );
}

/** True for LMDB's refusals of an over-long key: a `RangeError` while encoding it, or the size check of a write. */
export function isKeyTooLongError(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  return (e instanceof RangeError && /offset is out of bounds/.test(e.message)) || /larger than the maximum key size/.test(e.message);
}
