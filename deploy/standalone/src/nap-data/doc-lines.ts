import { createHash } from 'node:crypto';
import { BSONRegExp, Binary, EJSON } from 'bson';
import type { Doc } from '@nap/store';

/**
 * A stored document as one line of MongoDB Extended JSON v2, relaxed (`{"$date": "…"}`,
 * `{"$binary": …}`, `{"$numberDouble": "NaN"}`), the format `mongoexport` writes and `jq` reads:
 * every value a store of NAP keeps (dates, binary, regular expressions, non-finite numbers) comes
 * back as it was. Lines are written by `JSON.stringify` with a replacer that puts those values in
 * their Extended JSON form (bson's own writer walks each document in JavaScript and cost a backup
 * several times as much); they are read by bson's `EJSON.parse`, which also reads the canonical
 * forms other tools write.
 *
 * Regular expression flags BSON has no room for (`g`, `y`, `d`, `v`) are dropped, as MongoDB drops
 * them; a date that is not a date (`new Date(NaN)`) cannot be written in Extended JSON and is refused,
 * naming where it is.
 */

const BSON_FLAGS = /[^imsu]/g;
const tagOf = (value: unknown): string => Object.prototype.toString.call(value);
/** Dates Extended JSON writes as ISO text in relaxed mode: years 1970 to 9999. */
const ISO_FROM = 0;
const ISO_UNTIL = 253_402_300_800_000;

/** The Extended JSON form of a value JSON has no form for; `undefined` for the others. */
function extendedForm(value: unknown, where: () => string): unknown {
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return undefined;
    return { $numberDouble: Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity' };
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (ArrayBuffer.isView(value) && tagOf(value) === '[object Uint8Array]') {
    const bytes = value as Uint8Array;
    return { $binary: { base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'), subType: '00' } };
  }
  const tag = tagOf(value);
  if (tag === '[object Date]') {
    const time = (value as Date).getTime();
    if (Number.isNaN(time)) throw new Error(`${where()} holds an invalid date, which Extended JSON cannot carry`);
    return time >= ISO_FROM && time < ISO_UNTIL ? { $date: (value as Date).toISOString() } : { $date: { $numberLong: String(time) } };
  }
  if (tag === '[object RegExp]') {
    const re = value as RegExp;
    return { $regularExpression: { pattern: re.source, options: re.flags.replace(BSON_FLAGS, '') } };
  }
  return undefined;
}

/** One document as a line (no newline), `_id` first as MongoDB keeps it; `where` names it in an error (`nap_workflow.jobs`). */
export function docToLine(doc: Doc, where: string): string {
  const { _id, ...rest } = doc;
  const at = () => `${where} ${JSON.stringify(_id)}`;
  return JSON.stringify({ _id, ...rest }, function (this: Record<string, unknown>, key: string, value: unknown) {
    // `this[key]` is the value before its own toJSON (a Date's, a Buffer's) ran
    const form = extendedForm(this[key], at);
    return form === undefined ? value : form;
  });
}

/** What Extended JSON parsing gives back as BSON types, as the stores answer them (Buffer, RegExp). */
function fromBsonValues(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Binary) return Buffer.from(value.buffer.buffer, value.buffer.byteOffset, value.position);
  if (value instanceof BSONRegExp) return new RegExp(value.pattern, value.options.replace(BSON_FLAGS, ''));
  if (value instanceof Date) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) value[i] = fromBsonValues(value[i]);
    return value;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) record[key] = fromBsonValues(record[key]);
  return record;
}

/** A line back into the document it was. Throws on a line that is not a document with a string `_id`. */
export function lineToDoc(line: string): Doc {
  const parsed = fromBsonValues(EJSON.parse(line, { relaxed: true }));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || typeof (parsed as Doc)._id !== 'string')
    throw new Error('a document line is not a document with a string _id');
  return parsed as Doc;
}

const MODULUS = 1n << 256n;

/**
 * The digest of a collection's documents, whatever the order they are read in: the sum, modulo
 * 2^256, of the SHA-256 of each document's line. Both stores keep a document's members in the
 * order written (MongoDB moves `_id` first, as the line does), so a document reads back as the
 * same line; two collections with the same digest and count hold the same documents.
 */
export class CollectionDigest {
  private sum = 0n;
  count = 0;

  /** Adds a document's line (as {@link docToLine} writes it). */
  addLine(line: string): void {
    this.sum = (this.sum + BigInt(`0x${createHash('sha256').update(line).digest('hex')}`)) % MODULUS;
    this.count += 1;
  }

  add(doc: Doc, where: string): void {
    this.addLine(docToLine(doc, where));
  }

  /** 64 hex digits. */
  hex(): string {
    return this.sum.toString(16).padStart(64, '0');
  }
}
