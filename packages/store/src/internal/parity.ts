/**
 * What both stores do the same way at their edge, so that code tested on the embedded store
 * behaves alike on MongoDB: `undefined` in filters and updates, the `_id` tie-breaker of sorts and
 * the 16 MiB document limit.
 */
import { BSON } from 'bson';
import { isPlainObject, merged } from '@nap/util';
import type { Filter, SortSpec, Update } from '../types';
import { MAX_DOCUMENT_BYTES, documentTooLarge } from './errors';
import { isBinary, isDate, isRegExp } from './values';

function hasUndefined(value: unknown): boolean {
  if (value === undefined) return true;
  if (Array.isArray(value)) return value.some(hasUndefined);
  if (isPlainObject(value)) return Object.values(value).some(hasUndefined);
  return false;
}

function undefinedAsNull(value: unknown): unknown {
  if (value === undefined) return null;
  if (isDate(value) || isRegExp(value) || isBinary(value)) return value;
  if (Array.isArray(value)) return value.map(undefinedAsNull);
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, undefinedAsNull(v)]));
  return value;
}

/**
 * A filter with every `undefined` value read as `null` (matches a missing field or null), as the
 * MongoDB driver sent it before NAP set `ignoreUndefined`: `{ owner: undefined }` must never become
 * `{}` and match every document. The same object when it holds no `undefined`.
 */
export function filterWithNulls(filter: Filter | undefined): Filter {
  if (filter === undefined || filter === null) return {};
  return hasUndefined(filter) ? (undefinedAsNull(filter) as Filter) : filter;
}

/**
 * An update without the fields its operators set to `undefined` (`{ $set: { a: undefined } }` leaves
 * `a` as it is), as the driver with `ignoreUndefined` sends it. Nested `undefined` members are
 * dropped when the value is stored, by both stores.
 */
export function updateWithoutUndefined(update: Update): Update {
  if (!isPlainObject(update)) return update;
  let changed = false;
  const out: Update = {};
  for (const [op, fields] of Object.entries(update)) {
    if (isPlainObject(fields) && Object.values(fields).some((v) => v === undefined)) {
      changed = true;
      out[op] = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
    } else {
      out[op] = fields;
    }
  }
  return changed ? out : update;
}

/**
 * The sort with `_id` ascending as its last key unless it names `_id` already: documents with equal
 * sort values come in one order on every call and on both stores, so pages never repeat or skip
 * one (MongoDB gives no order among ties).
 */
export function withIdTieBreaker(sort: SortSpec): SortSpec {
  return Object.hasOwn(sort, '_id') || Object.keys(sort).length === 0 ? sort : merged(sort, { _id: 1 as const });
}

/** The size of a document in bytes of BSON, as MongoDB counts it against its limit. */
export function bsonSize(doc: object): number {
  return BSON.calculateObjectSize(doc as BSON.Document, { ignoreUndefined: true, serializeFunctions: false });
}

/**
 * BSON takes at most this many bytes per character of a document's JSON text: the worst case is an
 * array of one-digit numbers ("0," is two characters, an int32 element with a key of up to seven
 * digits is 13 bytes), and a character of a string takes at most 3 bytes of UTF-8. Documents whose
 * JSON is shorter than the limit over this factor are not measured.
 */
const BSON_BYTES_PER_JSON_CHAR = 8;

/**
 * Throws `STORE_DOCUMENT_TOO_LARGE` when `doc` is larger than MongoDB's 16 MiB. `jsonLength`, the
 * length of its JSON text when the caller has it, spares measuring small documents; `doc` may be a
 * function that makes the document, called only when it is measured.
 */
export function checkDocumentSize(collection: string, doc: object | (() => object), jsonLength?: number): void {
  if (jsonLength !== undefined && jsonLength * BSON_BYTES_PER_JSON_CHAR < MAX_DOCUMENT_BYTES) return;
  const sizeBytes = bsonSize(typeof doc === 'function' ? doc() : doc);
  if (sizeBytes > MAX_DOCUMENT_BYTES) throw documentTooLarge({ collection, sizeBytes, limitBytes: MAX_DOCUMENT_BYTES });
}
