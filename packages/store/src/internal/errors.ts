import { AppError } from '@nap/contracts';

/** Details of a `STORE_DUPLICATE_KEY` error. */
export interface DuplicateKeyDetails {
  /** Name of the unique index that refused the write (`_id_` for the primary key). */
  index: string;
  /** The offending key: index field → value. */
  key: Record<string, unknown>;
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

/** A filter, update, projection or document the store cannot accept. */
export function badRequest(message: string, cause?: unknown): AppError {
  return new AppError('BAD_REQUEST', message, { cause });
}

export function conflict(message: string): AppError {
  return new AppError('CONFLICT', message);
}
