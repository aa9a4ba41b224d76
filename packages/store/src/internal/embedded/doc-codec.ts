/**
 * Document encoding for the embedded store: JSON text, with the values JSON cannot carry (dates,
 * regular expressions, binary, non-finite numbers) tagged and listed by path so decoding revives
 * them without walking the whole document.
 *
 * Encoding and cloning happen in this module's own JavaScript realm on purpose: under jest the
 * test's objects live in a VM context, and a codec loaded elsewhere (lmdb's msgpack) would not
 * recognise their Dates. Functions and symbols are dropped, `undefined` object members are
 * dropped and `undefined` array elements become null, as the MongoDB driver stores them.
 */
import type { Doc } from '../../types';
import { isBinary, isDate, isRegExp } from '../values';

type Path = (string | number)[];
type Tagged =
  | { t: 'date'; v: number | null }
  | { t: 're'; s: string; f: string }
  | { t: 'bin'; v: string }
  | { t: 'num'; v: 'NaN' | 'Infinity' | '-Infinity' };

const PLAIN = 'J';
const WITH_SPECIALS = 'T';

function special(value: unknown): Tagged | undefined {
  if (isDate(value)) {
    const time = value.getTime();
    return { t: 'date', v: Number.isNaN(time) ? null : time };
  }
  if (isRegExp(value)) return { t: 're', s: value.source, f: value.flags };
  if (isBinary(value)) return { t: 'bin', v: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  if (typeof value === 'number' && !Number.isFinite(value)) {
    return { t: 'num', v: Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity' };
  }
  return undefined;
}

function revive(tag: Tagged): unknown {
  switch (tag.t) {
    case 'date':
      return new Date(tag.v ?? Number.NaN);
    case 're':
      return new RegExp(tag.s, tag.f);
    case 'bin':
      return Buffer.from(tag.v, 'base64');
    case 'num':
      return Number(tag.v);
  }
}

/** A JSON-safe copy of `value` with specials replaced by tags; their paths go to `paths`. */
function toJsonSafe(value: unknown, path: Path, paths: Path[]): unknown {
  const tag = special(value);
  if (tag) {
    paths.push(path);
    return tag;
  }
  if (Array.isArray(value))
    return value.map((v, i) =>
      toJsonSafe(v === undefined || typeof v === 'function' || typeof v === 'symbol' ? null : v, [...path, i], paths),
    );
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      out[k] = toJsonSafe(v, [...path, k], paths);
    }
    return out;
  }
  if (typeof value === 'bigint') return Number(value);
  return value;
}

function hasSpecials(value: unknown): boolean {
  if (typeof value !== 'object' || value === null)
    return typeof value === 'bigint' || (typeof value === 'number' && !Number.isFinite(value));
  if (Array.isArray(value)) {
    for (const v of value) if (hasSpecials(v)) return true;
    return false;
  }
  // a plain object of this realm is no special itself (the tag tests hold across realms, and cost)
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null && special(value)) return true;
  // for…in rather than Object.values: no array made for every object of every document written
  for (const k in value) if (Object.hasOwn(value, k) && hasSpecials((value as Record<string, unknown>)[k])) return true;
  return false;
}

/**
 * Encodes a document for storage. `plain`: the caller knows the document holds only values JSON
 * carries (a copy that noted none, see `cloneValue`), so it is not walked to find out.
 */
export function encodeDoc(doc: Doc, plain = false): string {
  if (plain || !hasSpecials(doc)) return PLAIN + JSON.stringify(doc);
  const paths: Path[] = [];
  const safe = toJsonSafe(doc, [], paths);
  return WITH_SPECIALS + JSON.stringify([paths, safe]);
}

/** Decodes a stored document into fresh objects of this realm. */
export function decodeDoc(text: string): Doc {
  if (text.startsWith(PLAIN)) return JSON.parse(text.slice(1)) as Doc;
  const [paths, doc] = JSON.parse(text.slice(1)) as [Path[], Doc];
  for (const path of paths) {
    let parent: Record<string | number, unknown> = doc;
    for (let i = 0; i < path.length - 1; i++) parent = parent[path[i] as string | number] as Record<string | number, unknown>;
    const last = path[path.length - 1] as string | number;
    parent[last] = revive(parent[last] as Tagged);
  }
  return doc;
}
