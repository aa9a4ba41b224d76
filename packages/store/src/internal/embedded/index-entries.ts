import type { Doc } from '../../types';
import { badRequest } from '../errors';
import type { IndexDef } from './catalog';
import { NUMBER_PREFIX_BYTES, directed, encodeComponent, maxStringBytes, numberPrefix, writeNumberPrefix } from './key-codec';
import { isBinary, isDate, isRegExp } from '../values';

/** One index entry of a document, without the trailing `_id`. */
export interface Entry {
  /** `u32 index number | components`. The full key appends the document's UTF-8 `_id`. */
  prefix: Buffer;
  /** The values the components were made from, one per index field (`undefined` when missing). */
  values: unknown[];
  /**
   * False when a component stands for a class of values (objects, long strings, …); such an entry
   * may also stand for other values of the same document, so unique checks compare documents.
   */
  exact: boolean;
}

export interface EntrySet {
  entries: Entry[];
  /** True when a field held an array, which makes the index multikey. */
  multikey: boolean;
  /** The fields that held an array. */
  multikeyPaths: string[];
}

export interface Collected {
  values: unknown[];
  sawArray: boolean;
  present: boolean;
}

function isTraversable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !isDate(value) && !isRegExp(value) && !isBinary(value);
}

function pushLeaf(value: unknown, out: Collected): void {
  if (Array.isArray(value)) {
    out.sawArray = true;
    if (value.length === 0) {
      out.values.push(value);
      out.present = true;
      return;
    }
    for (const element of value) pushLeaf(element, out);
    return;
  }
  if (value !== undefined) out.present = true;
  out.values.push(value);
}

function walk(value: unknown, segments: string[], at: number, out: Collected): void {
  if (at === segments.length) {
    pushLeaf(value, out);
    return;
  }
  const segment = segments[at] as string;
  if (Array.isArray(value)) {
    out.sawArray = true;
    if (value.length === 0) out.values.push(undefined);
    if (/^\d+$/.test(segment) && Number(segment) < value.length) walk(value[Number(segment)], segments, at + 1, out);
    // Like MongoDB, a path through an array reaches into every element.
    for (const element of value) walk(element, segments, at, out);
    return;
  }
  if (isTraversable(value)) {
    walk(Object.hasOwn(value, segment) ? value[segment] : undefined, segments, at + 1, out);
    return;
  }
  out.values.push(undefined);
}

/** The segments of each dotted path seen, split once (index paths are few and written on every write). */
const SEGMENTS = new Map<string, string[]>();
const SEGMENTS_KEPT = 4096;

function segmentsOf(path: string): string[] {
  let segments = SEGMENTS.get(path);
  if (segments === undefined) {
    segments = path.split('.');
    // query paths are the callers' to choose: past the bound, split each time rather than grow
    if (SEGMENTS.size < SEGMENTS_KEPT) SEGMENTS.set(path, segments);
  }
  return segments;
}

/**
 * Every value a dotted path reaches in a document, arrays flattened, `undefined` for a branch where
 * the path is missing. A superset of what a MongoDB query on the path can match.
 */
export function collectValues(doc: unknown, path: string): Collected {
  const out: Collected = { values: [], sawArray: false, present: false };
  walk(doc, segmentsOf(path), 0, out);
  if (out.values.length === 0) out.values.push(undefined);
  return out;
}

/**
 * The entries a document contributes to an index (deduplicated); none for a sparse index it lacks.
 * `valuesOf` answers {@link collectValues} of the document, when the caller keeps them.
 */
export function indexEntries(
  doc: Doc,
  index: IndexDef,
  valuesOf: (path: string) => Collected = (path) => collectValues(doc, path),
): EntrySet {
  return entriesOfValues(index, valuesOf);
}

/** {@link indexEntries} from the values of a document's paths, however they were taken. */
export function entriesOfValues(index: IndexDef, valuesOf: (path: string) => Collected): EntrySet {
  const perField = index.fields.map((field) => valuesOf(field.path));
  if (index.sparse && !perField.some((c) => c.present)) return { entries: [], multikey: false, multikeyPaths: [] };
  const arrayFields = index.fields.filter((_, i) => perField[i]?.sawArray);
  if (arrayFields.length > 1) {
    throw badRequest(`Cannot index parallel arrays ${arrayFields.map((f) => `"${f.path}"`).join(' and ')} in index "${index.name}"`);
  }
  const maxBytes = maxStringBytes(index.fields.length);
  const multikeyPaths = arrayFields.map((f) => f.path);
  // the common case, one value in every field: one entry, nothing to deduplicate, one buffer
  if (perField.every((c) => c.values.length === 1)) {
    const parts: Buffer[] = [];
    const values: unknown[] = [];
    let exact = true;
    let length = NUMBER_PREFIX_BYTES;
    for (const [i, field] of index.fields.entries()) {
      const value = (perField[i] as Collected).values[0];
      const component = encodeComponent(value, maxBytes);
      const bytes = directed(component.bytes, field.direction);
      parts.push(bytes);
      length += bytes.length;
      values.push(value);
      exact &&= component.exact;
    }
    const prefix = Buffer.allocUnsafe(length);
    writeNumberPrefix(prefix, index.no);
    let at = NUMBER_PREFIX_BYTES;
    for (const bytes of parts) at += bytes.copy(prefix, at);
    return { entries: [{ prefix, values, exact }], multikey: multikeyPaths.length > 0, multikeyPaths };
  }
  const head = numberPrefix(index.no);
  let partial: { parts: Buffer[]; values: unknown[]; exact: boolean }[] = [{ parts: [head], values: [], exact: true }];
  index.fields.forEach((field, i) => {
    const collected = perField[i] as Collected;
    const next: typeof partial = [];
    const seen = new Set<string>();
    const encoded = collected.values.map((value) => ({ value, component: encodeComponent(value, maxBytes) }));
    for (const { value, component } of encoded) {
      const bytes = directed(component.bytes, field.direction);
      const tag = bytes.toString('latin1');
      if (seen.has(tag)) continue;
      seen.add(tag);
      for (const p of partial) next.push({ parts: [...p.parts, bytes], values: [...p.values, value], exact: p.exact && component.exact });
    }
    partial = next;
  });
  const entries: Entry[] = [];
  const seenKeys = new Set<string>();
  for (const p of partial) {
    const prefix = Buffer.concat(p.parts);
    const tag = prefix.toString('latin1');
    if (seenKeys.has(tag)) continue;
    seenKeys.add(tag);
    entries.push({ prefix, values: p.values, exact: p.exact });
  }
  return { entries, multikey: multikeyPaths.length > 0, multikeyPaths };
}
