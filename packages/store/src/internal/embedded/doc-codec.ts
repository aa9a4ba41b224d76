/**
 * Document encoding for the embedded store: JSON text, with the values JSON cannot carry (dates,
 * regular expressions, binary, non-finite numbers) tagged and listed by path so decoding revives
 * them without walking the whole document.
 *
 * A document of plain JSON values is stored with where each of its top-level members lies in the
 * text, and the length of each that is an array (format `L`: a header, a newline, then the
 * document's JSON): a write of a few members (the engine clearing a job's outbox, a step of a job)
 * reads only the members it and the collection's indexes name and writes the others back as the
 * text they were, instead of decoding and encoding the whole document (see {@link storedMembers}),
 * and a `$size` filter reads an array's length from the header. Documents stored before it (`M`,
 * the same without lengths; `J`, whole JSON) and those with specials (`T`) are read as ever; an
 * `M` document is written as `L` by its next write.
 *
 * Encoding and cloning happen in this module's own JavaScript realm on purpose: under jest the
 * test's objects live in a VM context, and a codec loaded elsewhere (lmdb's msgpack) would not
 * recognise their Dates. Functions and symbols are dropped, `undefined` object members are
 * dropped and `undefined` array elements become null, as the MongoDB driver stores them.
 */
import { setOwn } from '@nap/util';
import type { Doc } from '../../types';
import { isBinary, isDate, isRegExp } from '../values';
import { unknownDocumentFormat } from './store-format';

type Path = (string | number)[];
type Tagged =
  | { t: 'date'; v: number | null }
  | { t: 're'; s: string; f: string }
  | { t: 'bin'; v: string }
  | { t: 'num'; v: 'NaN' | 'Infinity' | '-Infinity' };

/** Whole JSON text (stored before the members format; still read). */
const PLAIN = 'J';
const WITH_SPECIALS = 'T';
/** A header `[name, start, end, …]` (the span of each top-level member's value in the JSON), a newline, the JSON (stored before {@link MEMBERS}; still read). */
const MEMBERS_WITHOUT_LENGTHS = 'M';
/**
 * A header `[name, start, end, length?, …]`: the span of each top-level member's value in the JSON
 * and, after that of a member that is an array, its count of elements (a number where a name would
 * follow, so the header of a document with few arrays is hardly longer than `M`'s); a newline; the
 * JSON. A letter of its own, and store format 3 (see `store-format.ts`): a release that knows only
 * `M` does not open a store that may hold these, and one that has it open already names the letter
 * it does not know rather than reading the header wrong.
 */
const MEMBERS = 'L';

/** The length of an array member in a header of format `L`, from `i` its name; undefined for a member that is no array. */
function lengthAt(header: readonly (string | number)[], i: number): number | undefined {
  const length = header[i + 3];
  return typeof length === 'number' ? length : undefined;
}

/** How many header elements from `i` (a member's name) describe that member: 4 when its length follows its span. */
function entryWidth(header: readonly (string | number)[], i: number): number {
  return typeof header[i + 3] === 'number' ? 4 : 3;
}

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
  return typeof value === 'object' && value !== null ? objectHasSpecials(value) : specialPrimitive(value);
}

/** A number JSON cannot carry, or a bigint (stored as a number). */
function specialPrimitive(value: unknown): boolean {
  return typeof value === 'bigint' || (typeof value === 'number' && !Number.isFinite(value));
}

/**
 * {@link hasSpecials} of an object. The primitives among its members are tested here rather than
 * by a call each: most values of a document are strings and numbers, and a call per value cost
 * about as much as the rest of the walk.
 */
function objectHasSpecials(value: object): boolean {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const v: unknown = value[i];
      if (typeof v === 'object' ? v !== null && objectHasSpecials(v) : typeof v !== 'string' && specialPrimitive(v)) return true;
    }
    return false;
  }
  // for…in rather than Object.values: no array made for every object of every document written
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    // an object of another realm (the tag tests hold across realms, and cost), or not a plain one: its own members only
    if (special(value)) return true;
    for (const k in value) if (Object.hasOwn(value, k) && hasSpecials((value as Record<string, unknown>)[k])) return true;
    return false;
  }
  // a plain object of this realm is no special itself, and has no inherited members but those of a polluted prototype
  for (const k in value) {
    const v: unknown = (value as Record<string, unknown>)[k];
    if (
      (typeof v === 'object' ? v !== null && objectHasSpecials(v) : typeof v !== 'string' && specialPrimitive(v)) &&
      Object.hasOwn(value, k)
    )
      return true;
  }
  return false;
}

/**
 * Encodes a document for storage. `plain`: the caller knows the document holds only values JSON
 * carries (a copy that noted none, see `cloneValue`), so it is not walked to find out.
 */
export function encodeDoc(doc: Doc, plain = false): string {
  return encodeDocWithMembers(doc, plain).text;
}

/** A document as {@link encodeDoc} encodes it, with its members as {@link storedMembers} would read them back (members format only). */
export interface EncodedDoc {
  text: string;
  members: MemberTexts | undefined;
}

/**
 * {@link encodeDoc}, with the header and JSON of the members format as written: an insert that
 * needs some members (those its indexes name) decodes them from these rather than parsing the
 * header it has just written.
 */
export function encodeDocWithMembers(doc: Doc, plain = false): EncodedDoc {
  if (plain || !hasSpecials(doc)) return encodeMembers(doc, undefined, undefined);
  const paths: Path[] = [];
  const safe = toJsonSafe(doc, [], paths);
  return { text: WITH_SPECIALS + JSON.stringify([paths, safe]), members: undefined };
}

/**
 * The members format of `doc`. With `from`, the stored document `doc` was read from (partly): its
 * members not in `changed` are written back as the text they were (the members `doc` lacks among
 * them), the others as `doc` holds them now (a member `doc` no longer has is gone); members new to
 * `doc` follow, in its order.
 */
function encodeMembers(doc: Doc, from: StoredMembers | undefined, changed: ReadonlySet<string> | undefined): EncodedDoc {
  // concatenated rather than joined: V8 keeps the pieces until the text is written, then copies once
  let body = '{';
  const header: (string | number)[] = [];
  const add = (name: string, text: string, length: number | undefined): void => {
    body += `${header.length === 0 ? '' : ','}${JSON.stringify(name)}:`;
    header.push(name, body.length, body.length + text.length);
    if (length !== undefined) header.push(length);
    body += text;
  };
  const write = (name: string): void => {
    const value = doc[name];
    // as JSON.stringify leaves out a member that is undefined, a function or a symbol
    const text = value === undefined ? undefined : (JSON.stringify(value) as string | undefined);
    // the length of the array the text holds (a value with a toJSON of its own may write another)
    if (text !== undefined) add(name, text, Array.isArray(value) && text.charCodeAt(0) === OPEN_ARRAY ? value.length : undefined);
  };
  if (from !== undefined) {
    const { header: stored, body, withLengths } = from;
    for (let i = 0; i < stored.length; i += entryWidth(stored, i)) {
      const name = stored[i] as string;
      if (changed?.has(name) === true) {
        if (Object.hasOwn(doc, name)) write(name);
      } else {
        const text = body.slice(stored[i + 1] as number, stored[i + 2] as number);
        // a member of a document stored without lengths is counted once, as it is written with one
        add(name, text, withLengths ? lengthAt(stored, i) : jsonArrayLength(text));
      }
    }
    for (const name in doc) if (Object.hasOwn(doc, name) && !from.spans.has(name)) write(name);
  } else {
    for (const name in doc) if (Object.hasOwn(doc, name)) write(name);
  }
  body += '}';
  return { text: `${MEMBERS}${JSON.stringify(header)}\n${body}`, members: { header, body, withLengths: true } };
}

/**
 * The header of a document in the members format and its JSON: `[name, start, end, length?, …]`
 * (see {@link MEMBERS}), or `[name, start, end, …]` for a document stored without lengths.
 */
export interface MemberTexts {
  header: (string | number)[];
  body: string;
  /** The header gives the length of each array member (format `L`); without, the length of none is known. */
  withLengths: boolean;
}

/** A stored document in the members format: its header, its JSON, and each member's span in it. */
export interface StoredMembers extends MemberTexts {
  spans: Map<string, [number, number]>;
}

/** The members of a stored document, or undefined when it is not in the members format (it is read whole then). */
export function storedMembers(text: string): StoredMembers | undefined {
  const withLengths = text.startsWith(MEMBERS);
  if (!withLengths && !text.startsWith(MEMBERS_WITHOUT_LENGTHS)) return undefined;
  const end = text.indexOf('\n');
  const header = JSON.parse(text.slice(1, end)) as (string | number)[];
  const spans = new Map<string, [number, number]>();
  for (let i = 0; i < header.length; i += entryWidth(header, i))
    spans.set(header[i] as string, [header[i + 1] as number, header[i + 2] as number]);
  return { header, body: text.slice(end + 1), spans, withLengths };
}

/**
 * The members `names` of a stored document (those it has), decoded, in the stored order. A member
 * of `counted` that is an array is read as an array of its length (from the header, or counted
 * in its text by {@link jsonArrayLength} for a document stored without lengths), not parsed: for a
 * write that needs only its length (a `$size` filter) and replaces it whole if it changes it. Its
 * elements are {@link COUNTED_ELEMENT}, which no value equals, so that replacing it always counts
 * as a change.
 */
export function decodeMembers(stored: MemberTexts, names: ReadonlySet<string>, counted?: ReadonlySet<string>): Doc {
  const out: Record<string, unknown> = {};
  const { header, body, withLengths } = stored;
  for (let i = 0; i < header.length; i += entryWidth(header, i)) {
    const name = header[i] as string;
    if (!names.has(name)) continue;
    let length: number | undefined;
    if (counted?.has(name) === true)
      length = withLengths ? lengthAt(header, i) : jsonArrayLength(body.slice(header[i + 1] as number, header[i + 2] as number));
    setOwn(
      out,
      name,
      length === undefined
        ? JSON.parse(body.slice(header[i + 1] as number, header[i + 2] as number))
        : new Array<symbol>(length).fill(COUNTED_ELEMENT),
    );
  }
  return out as Doc;
}

/** The elements of an array member read for its length only (see {@link decodeMembers}). */
const COUNTED_ELEMENT = Symbol('an element of an array read for its length only');

const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * How many elements the JSON array `text` holds (JSON as `JSON.stringify` writes it, with no white
 * space), counted without parsing it; undefined when `text` is not an array.
 */
export function jsonArrayLength(text: string): number | undefined {
  if (text.charCodeAt(0) !== OPEN_ARRAY) return undefined;
  if (text.length === 2 && text.charCodeAt(1) === CLOSE_ARRAY) return 0;
  let depth = 0;
  let commas = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // on to the closing quote: the first one after an even run of backslashes
      for (;;) {
        i = text.indexOf('"', i + 1);
        if (i === -1) return undefined;
        let slashes = 0;
        while (text.charCodeAt(i - 1 - slashes) === BACKSLASH) slashes += 1;
        if (slashes % 2 === 0) break;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) depth += 1;
    else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth -= 1;
    else if (c === COMMA && depth === 1) commas += 1;
  }
  return depth === 0 ? commas + 1 : undefined;
}

/**
 * The stored document `from` with the members `changed` as `doc` (read from it with {@link
 * decodeMembers} and changed since) holds them now, encoded; the other members keep their text.
 */
export function encodeChangedMembers(
  from: StoredMembers,
  doc: Doc,
  changed: ReadonlySet<string>,
  /** The change brought no value JSON cannot carry (see {@link isPlainUpdate}): the changed members are not walked to find one. */
  plainChange = false,
): string | undefined {
  // a value JSON cannot carry (a date set by the update) needs the whole document encoded with its tags
  if (!plainChange) for (const name of changed) if (hasSpecials(doc[name])) return undefined;
  return encodeMembers(doc, from, changed).text;
}

/**
 * True when applying `update` to a document of plain JSON leaves it plain JSON: `$set`, `$unset` and
 * `$push` of values JSON carries (arithmetic could make a non-finite number, `$currentDate` a date).
 * Walks the update, not the document.
 */
export function isPlainUpdate(update: Record<string, unknown>): boolean {
  for (const op in update) if (op !== '$set' && op !== '$unset' && op !== '$push') return false;
  return !hasSpecials(update);
}

/** The whole stored document `from` with the members `changed` as `doc` (read from it partly) holds them now. */
export function wholeDoc(from: StoredMembers, doc: Doc, changed: ReadonlySet<string>): Doc {
  const whole = JSON.parse(from.body) as Record<string, unknown>;
  for (const name of changed) {
    if (Object.hasOwn(doc, name)) setOwn(whole, name, doc[name]);
    else delete whole[name];
  }
  return whole as Doc;
}

/** Decodes a stored document into fresh objects of this realm. */
export function decodeDoc(text: string): Doc {
  if (text.startsWith(MEMBERS) || text.startsWith(MEMBERS_WITHOUT_LENGTHS)) return JSON.parse(text.slice(text.indexOf('\n') + 1)) as Doc;
  if (text.startsWith(PLAIN)) return JSON.parse(text.slice(1)) as Doc;
  if (!text.startsWith(WITH_SPECIALS)) throw unknownDocumentFormat(text.slice(0, 1));
  const [paths, doc] = JSON.parse(text.slice(1)) as [Path[], Doc];
  for (const path of paths) {
    let parent: Record<string | number, unknown> = doc;
    for (let i = 0; i < path.length - 1; i++) parent = parent[path[i] as string | number] as Record<string | number, unknown>;
    const last = path[path.length - 1] as string | number;
    parent[last] = revive(parent[last] as Tagged);
  }
  return doc;
}
