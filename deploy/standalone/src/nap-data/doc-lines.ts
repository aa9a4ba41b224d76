import { createHash } from 'node:crypto';
import { BSONRegExp, Binary, EJSON } from 'bson';
import type { Doc } from '@nap/store';

/**
 * A stored document as one line of MongoDB Extended JSON v2, relaxed (`{"$date": "…"}`, `{"$binary":
 * …}`, `{"$numberDouble": "NaN"}`), the format `mongoexport` writes and `jq` reads: every value a
 * store of NAP keeps (dates, binary, regular expressions, non-finite numbers) comes back as it was.
 *
 * Regular expression flags BSON has no room for (`g`, `y`, `d`, `v`) are dropped, as MongoDB drops
 * them; a date that is not a date (`new Date(NaN)`) cannot be written in Extended JSON and is refused,
 * naming where it is.
 */

const BSON_FLAGS = new Set(['i', 'm', 's', 'u']);
const tagOf = (value: unknown): string => Object.prototype.toString.call(value);

/** A copy of `value` with the values Extended JSON carries through BSON types put in those types. */
function toBsonValues(value: unknown, path: string): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (ArrayBuffer.isView(value) && tagOf(value) === '[object Uint8Array]') {
    const bytes = value as Uint8Array;
    return new Binary(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }
  const tag = tagOf(value);
  if (tag === '[object Date]') {
    if (Number.isNaN((value as Date).getTime())) throw new Error(`${path} is an invalid date, which Extended JSON cannot carry`);
    return value;
  }
  if (tag === '[object RegExp]') {
    const re = value as RegExp;
    return new BSONRegExp(re.source, [...re.flags].filter((f) => BSON_FLAGS.has(f)).join(''));
  }
  if (Array.isArray(value)) return value.map((item, i) => toBsonValues(item, `${path}.${i}`));
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) if (member !== undefined) out[key] = toBsonValues(member, `${path}.${key}`);
  return out;
}

/** What Extended JSON parsing gives back as BSON types, as the stores answer them (Buffer, RegExp). */
function fromBsonValues(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Binary) return Buffer.from(value.buffer.buffer, value.buffer.byteOffset, value.position);
  if (value instanceof BSONRegExp) return new RegExp(value.pattern, value.options.replace(/[^imsu]/g, ''));
  if (value instanceof Date) return value;
  if (Array.isArray(value)) return value.map(fromBsonValues);
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) out[key] = fromBsonValues(member);
  return out;
}

/** One document as a line (no newline); `where` names it in an error (`nap_workflow.jobs`). */
export function docToLine(doc: Doc, where: string): string {
  // `_id` first, as MongoDB keeps it: a reader tells a document's line by its start
  const { _id, ...rest } = doc;
  return EJSON.stringify(toBsonValues({ _id, ...rest }, `${where} ${JSON.stringify(_id)}`) as Doc, { relaxed: true });
}

/** A line back into the document it was. Throws on a line that is not a document with a string `_id`. */
export function lineToDoc(line: string): Doc {
  const parsed = fromBsonValues(EJSON.parse(line, { relaxed: true }));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || typeof (parsed as Doc)._id !== 'string')
    throw new Error('a document line is not a document with a string _id');
  return parsed as Doc;
}

/** `value` with the members of every object in key order, so that a digest ignores member order. */
function sortedMembers(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(sortedMembers);
  if (value instanceof Binary || value instanceof BSONRegExp || value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortedMembers((value as Record<string, unknown>)[key]);
  return out;
}

const MODULUS = 1n << 256n;

/**
 * The digest of a collection's documents, whatever the order they are read in and the order of
 * members in each (MongoDB puts `_id` first; the embedded store keeps members as written): the sum,
 * modulo 2^256, of each document's SHA-256 over its Extended JSON with members in key order.
 * Two collections with the same digest and count hold the same documents.
 */
export class CollectionDigest {
  private sum = 0n;
  count = 0;

  add(doc: Doc, where: string): void {
    const text = EJSON.stringify(sortedMembers(toBsonValues(doc, `${where} ${JSON.stringify(doc._id)}`)) as Doc, { relaxed: true });
    this.sum = (this.sum + BigInt(`0x${createHash('sha256').update(text).digest('hex')}`)) % MODULUS;
    this.count += 1;
  }

  /** 64 hex digits. */
  hex(): string {
    return this.sum.toString(16).padStart(64, '0');
  }
}
