/**
 * Query planning for the embedded store: which key ranges to read for a filter and sort.
 *
 * Only the top-level conjunction of a filter (and `$and` clauses) is used for bounds: equality,
 * `$eq`, `$in` of scalars and `$gt/$gte/$lt/$lte`. Every candidate a plan yields is still tested
 * against the whole filter, so a plan only has to return a superset of the matches; the
 * executor also keeps results in the order a full scan plus sort would give.
 */
import { isPlainObject } from '@nap/util';
import type { Filter, SortSpec } from '../../types';
import { multikeyFields, type CollectionDef, type IndexDef } from './catalog';
import { componentEnd, directed, encodeComponent, invert, maxStringBytes, numberPrefix, successor, type Component } from './key-codec';
import { isDate } from '../values';

type RangeOp = '$gt' | '$gte' | '$lt' | '$lte';

/** One usable condition on a field path. */
export type Predicate = { kind: 'points'; values: unknown[] } | { kind: 'range'; op: RangeOp; value: unknown };

const RANGE_OPS: readonly RangeOp[] = ['$gt', '$gte', '$lt', '$lte'];

function isPointValue(value: unknown): boolean {
  if (value === null) return true;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return !Number.isNaN(value);
    case 'object':
      return isDate(value) && !Number.isNaN(value.getTime());
    default:
      return false;
  }
}

function isRangeValue(value: unknown): boolean {
  return value !== null && isPointValue(value);
}

function addPredicate(out: Map<string, Predicate[]>, path: string, predicate: Predicate): void {
  const list = out.get(path);
  if (list) list.push(predicate);
  else out.set(path, [predicate]);
}

/** The usable conditions of a filter by field path, and whether they are all of it. */
export interface Predicates {
  byPath: Map<string, Predicate[]>;
  /**
   * True when the filter is nothing but these conditions and its `$or`s (no `$ne`, `$regex`,
   * object equality, …).
   */
  complete: boolean;
  /** The `$or`s of the conjunction, each as its branches' conditions. */
  ors: Predicates[][];
}

function emptyPredicates(): Predicates {
  return { byPath: new Map(), complete: true, ors: [] };
}

function extractInto(filter: Record<string, unknown>, out: Predicates): void {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const clause of value) {
        if (isPlainObject(clause)) extractInto(clause, out);
        else out.complete = false;
      }
      continue;
    }
    if (key === '$or' && Array.isArray(value) && value.length > 0 && value.every((clause) => isPlainObject(clause))) {
      out.ors.push(value.map((clause) => extractPredicates(clause as Filter)));
      continue;
    }
    if (key.startsWith('$')) {
      out.complete = false;
      continue;
    }
    if (isPlainObject(value)) {
      const ops = Object.keys(value);
      if (ops.length === 0 || !ops.every((op) => op.startsWith('$'))) {
        out.complete = false;
        continue;
      }
      for (const op of ops) {
        const arg = value[op];
        if (op === '$eq' && isPointValue(arg)) addPredicate(out.byPath, key, { kind: 'points', values: [arg] });
        else if (op === '$in' && Array.isArray(arg) && arg.every(isPointValue))
          addPredicate(out.byPath, key, { kind: 'points', values: arg });
        else if ((RANGE_OPS as readonly string[]).includes(op) && isRangeValue(arg))
          addPredicate(out.byPath, key, { kind: 'range', op: op as RangeOp, value: arg });
        else out.complete = false;
      }
      continue;
    }
    if (isPointValue(value)) addPredicate(out.byPath, key, { kind: 'points', values: [value] });
    else out.complete = false;
  }
}

/** The usable conditions of a filter. */
export function extractPredicates(filter: Filter | undefined): Predicates {
  const out = emptyPredicates();
  if (filter && isPlainObject(filter)) extractInto(filter, out);
  else if (filter !== undefined && filter !== null) out.complete = false;
  return out;
}

/**
 * The conditions of `outer` and of one branch of its `$or` number `or` together: what a document
 * must meet to match through that branch. The other `$or`s stay conditions no index bound answers.
 */
function withBranch(outer: Predicates, or: number, branch: Predicates): Predicates {
  const byPath = new Map<string, Predicate[]>();
  for (const [path, list] of outer.byPath) byPath.set(path, [...list]);
  for (const [path, list] of branch.byPath) byPath.set(path, [...(byPath.get(path) ?? []), ...list]);
  const others = outer.ors.filter((_, i) => i !== or);
  return { byPath, complete: outer.complete && branch.complete && others.length === 0 && branch.ors.length === 0, ors: [] };
}

/** A half-open key range `[start, end)` of the `idx` database. */
export interface KeyRange {
  start: Buffer;
  end: Buffer;
}

interface Bound {
  bytes: Buffer;
  inclusive: boolean;
}

/** Bounds on one field, on ascending component encodings. */
type FieldBounds =
  { kind: 'none' } | { kind: 'empty' } | { kind: 'points'; points: Component[] } | { kind: 'range'; type: number; lo?: Bound; hi?: Bound };

function pointsOf(values: unknown[], maxBytes: number): Component[] {
  const byTag = new Map<string, Component>();
  for (const value of values) {
    const component = encodeComponent(value, maxBytes);
    byTag.set(component.bytes.toString('latin1'), component);
  }
  return [...byTag.values()].sort((a, b) => Buffer.compare(a.bytes, b.bytes));
}

function rangeOf(op: RangeOp, value: unknown, maxBytes: number): FieldBounds {
  const component = encodeComponent(value, maxBytes);
  // A value cut to a prefix stands for longer values too: keep its class in range.
  const inclusive = op === '$gte' || op === '$lte' || !component.exact;
  const bound = { bytes: component.bytes, inclusive };
  const type = component.bytes[0] as number;
  return op === '$gt' || op === '$gte' ? { kind: 'range', type, lo: bound } : { kind: 'range', type, hi: bound };
}

function inRange(point: Buffer, range: { type: number; lo?: Bound; hi?: Bound }): boolean {
  if (point[0] !== range.type) return false;
  if (range.lo) {
    const c = Buffer.compare(point, range.lo.bytes);
    if (c < 0 || (c === 0 && !range.lo.inclusive)) return false;
  }
  if (range.hi) {
    const c = Buffer.compare(point, range.hi.bytes);
    if (c > 0 || (c === 0 && !range.hi.inclusive)) return false;
  }
  return true;
}

function tighter(a: Bound | undefined, b: Bound | undefined, pick: 1 | -1): Bound | undefined {
  if (!a) return b;
  if (!b) return a;
  const c = Buffer.compare(a.bytes, b.bytes) * pick;
  if (c > 0) return a;
  if (c < 0) return b;
  return { bytes: a.bytes, inclusive: a.inclusive && b.inclusive };
}

function intersect(a: FieldBounds, b: FieldBounds): FieldBounds {
  if (a.kind === 'none') return b;
  if (b.kind === 'none') return a;
  if (a.kind === 'empty' || b.kind === 'empty') return { kind: 'empty' };
  if (a.kind === 'points' && b.kind === 'points') {
    const tags = new Set(b.points.map((p) => p.bytes.toString('latin1')));
    const points = a.points.filter((p) => tags.has(p.bytes.toString('latin1')));
    return points.length > 0 ? { kind: 'points', points } : { kind: 'empty' };
  }
  if (a.kind === 'points' || b.kind === 'points') {
    const points = a.kind === 'points' ? a : (b as { kind: 'points'; points: Component[] });
    const range = (a.kind === 'range' ? a : b) as { kind: 'range'; type: number; lo?: Bound; hi?: Bound };
    const kept = points.points.filter((p) => inRange(p.bytes, range));
    return kept.length > 0 ? { kind: 'points', points: kept } : { kind: 'empty' };
  }
  if (a.kind === 'range' && b.kind === 'range') {
    if (a.type !== b.type) return { kind: 'empty' };
    const lo = tighter(a.lo, b.lo, 1);
    const hi = tighter(a.hi, b.hi, -1);
    if (lo && hi) {
      const c = Buffer.compare(lo.bytes, hi.bytes);
      if (c > 0 || (c === 0 && !(lo.inclusive && hi.inclusive))) return { kind: 'empty' };
    }
    const out: FieldBounds = { kind: 'range', type: a.type };
    if (lo) out.lo = lo;
    if (hi) out.hi = hi;
    return out;
  }
  return { kind: 'none' };
}

function boundsOf(predicate: Predicate, maxBytes: number): FieldBounds {
  return predicate.kind === 'points'
    ? predicate.values.length === 0
      ? { kind: 'empty' }
      : { kind: 'points', points: pointsOf(predicate.values, maxBytes) }
    : rangeOf(predicate.op, predicate.value, maxBytes);
}

function boundsExact(bounds: FieldBounds): boolean {
  if (bounds.kind === 'points') return bounds.points.every((p) => p.exact);
  if (bounds.kind === 'range') {
    // A bound cut from a long string was made inclusive to keep its class: not exact.
    const cut = (b: Bound | undefined) => b !== undefined && b.bytes[0] === 0x04 && b.bytes[b.bytes.length - 1] === 0x02;
    return !cut(bounds.lo) && !cut(bounds.hi);
  }
  return true;
}

/** Bounds on one field; `exact` when every key in them matches all the field's conditions. */
function fieldBounds(
  predicates: Predicate[] | undefined,
  index: IndexDef,
  multikey: boolean,
  maxBytes: number,
): { bounds: FieldBounds; exact: boolean } {
  if (!predicates) return { bounds: { kind: 'none' }, exact: true };
  // A sparse index lacks documents without the field, which null matches.
  const usable = index.sparse ? predicates.filter((p) => p.kind === 'range' || !p.values.some((v) => v === null)) : predicates;
  if (usable.length === 0) return { bounds: { kind: 'none' }, exact: false };
  if (multikey) {
    // Conditions on an array field may be met by different elements: use one of them only. One
    // condition alone is answered exactly (an element in bounds is a match), null aside (an
    // empty array has no element, yet MongoDB's null matching is subtle there).
    const chosen = usable.find((p) => p.kind === 'points') ?? (usable[0] as Predicate);
    const bounds = boundsOf(chosen, maxBytes);
    const alone = predicates.length === 1 && (chosen.kind === 'range' || !chosen.values.some((v) => v === null));
    return { bounds, exact: alone && boundsExact(bounds) };
  }
  const bounds = usable.reduce<FieldBounds>((acc, p) => intersect(acc, boundsOf(p, maxBytes)), { kind: 'none' });
  return { bounds, exact: usable.length === predicates.length && boundsExact(bounds) };
}

/** Where an index narrows a filter. */
export interface IndexBounds {
  /** Disjoint, in ascending key order. */
  ranges: KeyRange[];
  /** Leading fields bound to one single value each, the same in every range. */
  singlePointFields: number;
  /**
   * Leading fields bound to one value in each range (ranges may differ there): within one range
   * the keys follow the index order of the fields after them.
   */
  pointFields: number;
  /** Fields with any bound. */
  boundFields: number;
  hasRange: boolean;
  /** Higher is more selective. */
  score: number;
  /** Every key in the ranges belongs to a match: the filter is fully answered by the index. */
  exact: boolean;
  /** No document has two keys in the ranges (the index holds no array values), so keys count documents. */
  unique: boolean;
}

const MAX_RANGES = 256;

function rangeFor(prefix: Buffer, bounds: { type: number; lo?: Bound; hi?: Bound }, direction: 1 | -1): KeyRange {
  const typeByte = (t: number): Buffer => Buffer.from([direction === 1 ? t : 0xff - t]);
  let start: Buffer;
  let end: Buffer;
  if (direction === 1) {
    start = bounds.lo ? (bounds.lo.inclusive ? bounds.lo.bytes : (successor(bounds.lo.bytes) as Buffer)) : typeByte(bounds.type);
    end = bounds.hi ? (bounds.hi.inclusive ? (successor(bounds.hi.bytes) as Buffer) : bounds.hi.bytes) : typeByte(bounds.type + 1);
  } else {
    start = bounds.hi
      ? bounds.hi.inclusive
        ? invert(bounds.hi.bytes)
        : (successor(invert(bounds.hi.bytes)) ?? typeByte(bounds.type - 1))
      : typeByte(bounds.type);
    end = bounds.lo
      ? bounds.lo.inclusive
        ? (successor(invert(bounds.lo.bytes)) ?? typeByte(bounds.type - 1))
        : invert(bounds.lo.bytes)
      : typeByte(bounds.type - 1);
  }
  return { start: Buffer.concat([prefix, start]), end: Buffer.concat([prefix, end]) };
}

/** The whole key space of an index. */
export function wholeIndex(index: IndexDef): KeyRange {
  const start = numberPrefix(index.no);
  return { start, end: successor(start) as Buffer };
}

/** The key ranges of `index` that hold every match of the predicates, or undefined if it does not help. */
export function indexBounds(index: IndexDef, filter: Predicates): IndexBounds | undefined {
  const predicates = filter.byPath;
  const maxBytes = maxStringBytes(index.fields.length);
  const multikey = multikeyFields(index);
  let exact = filter.complete && filter.ors.length === 0;
  let prefixes = [numberPrefix(index.no)];
  let singlePointFields = 0;
  let pointFields = 0;
  let stillSingle = true;
  let boundFields = 0;
  let ranges: KeyRange[] | undefined;
  const usedPaths = new Set<string>();
  for (const field of index.fields) {
    const { bounds, exact: fieldExact } = fieldBounds(predicates.get(field.path), index, multikey.has(field.path), maxBytes);
    if (bounds.kind === 'none') break;
    if (bounds.kind === 'empty') {
      return {
        ranges: [],
        singlePointFields,
        pointFields,
        boundFields: boundFields + 1,
        hasRange: false,
        score: 1000,
        exact: true,
        unique: true,
      };
    }
    if (bounds.kind === 'points' && prefixes.length * bounds.points.length > MAX_RANGES) break;
    exact &&= fieldExact;
    usedPaths.add(field.path);
    if (bounds.kind === 'points') {
      prefixes = prefixes.flatMap((prefix) => bounds.points.map((p) => Buffer.concat([prefix, directed(p.bytes, field.direction)])));
      if (bounds.points.length === 1 && stillSingle) singlePointFields++;
      else stillSingle = false;
      pointFields++;
      boundFields++;
      continue;
    }
    ranges = prefixes.map((prefix) => rangeFor(prefix, bounds, field.direction));
    boundFields++;
    break;
  }
  if (boundFields === 0) return undefined;
  for (const path of predicates.keys()) if (!usedPaths.has(path)) exact = false;
  const hasRange = ranges !== undefined;
  const finalRanges = (ranges ?? prefixes.map((prefix) => ({ start: prefix, end: successor(prefix) as Buffer }))).sort((a, b) =>
    Buffer.compare(a.start, b.start),
  );
  const allPoints = !hasRange && boundFields === index.fields.length;
  const score =
    (index.unique && allPoints && finalRanges.length === 1 ? 100 : 0) + boundFields * 4 - (hasRange ? 2 : 0) + singlePointFields;
  return { ranges: finalRanges, singlePointFields, pointFields, boundFields, hasRange, score, exact, unique: multikey.size === 0 };
}

/** The end of the first `count` components of `key` (past the 4-byte index number). */
export function componentsEnd(index: IndexDef, key: Buffer, count: number): number {
  let at = 4;
  for (let i = 0; i < count && at < key.length; i++) at = componentEnd(key, at, (index.fields[i] as IndexDef['fields'][number]).direction);
  return at;
}

/** Sorts ranges and joins those that overlap or touch, so that no key is in two of them. */
function disjoint(ranges: KeyRange[]): KeyRange[] {
  const sorted = [...ranges].sort((a, b) => Buffer.compare(a.start, b.start) || Buffer.compare(a.end, b.end));
  const out: KeyRange[] = [];
  for (const range of sorted) {
    const last = out[out.length - 1];
    if (last && Buffer.compare(range.start, last.end) <= 0) {
      if (Buffer.compare(range.end, last.end) > 0) last.end = range.end;
    } else {
      out.push({ start: range.start, end: range.end });
    }
  }
  return out;
}

/**
 * The bounds of `index` for the `$or` number `or` of `filter`: the union of the bounds of each of
 * its branches (with the rest of the conjunction), or undefined when a branch is not bounded by
 * the index (then the `$or` is tested on each candidate instead). This is how keyset pages
 * (`{ $or: [{ k: { $lt: v } }, { k: v, _id: { $lt: id } }] }`) read exactly the keys after their
 * start, and how `$or`s of equalities on one field read only their values.
 */
export function orBounds(index: IndexDef, filter: Predicates, or: number): IndexBounds | undefined {
  const branches = filter.ors[or] ?? [];
  const parts: IndexBounds[] = [];
  for (const branch of branches) {
    const part = indexBounds(index, withBranch(filter, or, branch));
    if (!part) return undefined;
    parts.push(part);
  }
  const live = parts.filter((p) => p.ranges.length > 0);
  if (live.length === 0) {
    return { ranges: [], singlePointFields: 0, pointFields: 0, boundFields: 1, hasRange: false, score: 1000, exact: true, unique: true };
  }
  const pointFields = Math.min(...live.map((p) => p.pointFields));
  // Ranges of different point prefixes stay apart: each is read in index order and merged.
  const groups = new Map<string, KeyRange[]>();
  for (const part of live) {
    for (const range of part.ranges) {
      const tag = range.start.subarray(0, componentsEnd(index, range.start, pointFields)).toString('latin1');
      groups.set(tag, [...(groups.get(tag) ?? []), range]);
    }
  }
  const ranges = [...groups.values()].flatMap(disjoint).sort((a, b) => Buffer.compare(a.start, b.start));
  // Fields with one and the same value in every range.
  let singlePointFields = Math.min(...live.map((p) => p.singlePointFields));
  while (singlePointFields > 0) {
    const first = ranges[0] as KeyRange;
    const end = componentsEnd(index, first.start, singlePointFields);
    const head = first.start.subarray(0, end);
    if (ranges.every((r) => r.start.length >= end && r.start.subarray(0, end).equals(head))) break;
    singlePointFields--;
  }
  return {
    ranges,
    singlePointFields,
    pointFields,
    boundFields: Math.min(...live.map((p) => p.boundFields)),
    hasRange: live.some((p) => p.hasRange),
    score: Math.min(...live.map((p) => p.score)),
    exact: parts.every((p) => p.exact),
    unique: parts.every((p) => p.unique),
  };
}

/** How an index scan yields documents in sort order. */
export interface IndexOrder {
  reverse: boolean;
  /** Leading key components that make up a group of equal sort values. */
  groupComponents: number;
  /** The sort has keys the index does not cover: each group is sorted by them. */
  sortsWithinGroups: boolean;
  /** No index field follows the group components, so a group is already in `_id` order. */
  groupsEndKey: boolean;
  /**
   * Index of the first grouping component. The fields before it are bound to one value in each
   * range; ranges that differ there are read side by side and merged on the components after.
   */
  firstGroupComponent: number;
  /** `_id` is one of the group components: every group is one document. */
  groupsAreDocuments: boolean;
}

/**
 * How `index` yields the sort order when its first `constantFields` fields are bound to one value
 * in each range, the first `singleFields` of them to the same value in every range; undefined when
 * it cannot. A sort on a field whose value differs between ranges cannot be read that way.
 */
export function indexOrder(
  index: IndexDef,
  sort: [string, 1 | -1][],
  constantFields: number,
  singleFields = constantFields,
): IndexOrder | undefined {
  if (index.sparse || sort.length === 0) return undefined;
  // Array fields give a document several places; only those bound to values may be multikey.
  const multikey = multikeyFields(index);
  if (index.fields.slice(constantFields).some((f) => multikey.has(f.path))) return undefined;
  const varying = new Set(index.fields.slice(singleFields, constantFields).map((f) => f.path));
  if (sort.some(([field]) => varying.has(field))) return undefined;
  const constant = new Set(index.fields.slice(0, constantFields).map((f) => f.path));
  const rest = sort.filter(([field]) => !constant.has(field));
  const first = rest[0];
  const firstField = index.fields[constantFields];
  if (!first || !firstField || firstField.path !== first[0]) return undefined;
  const relative = first[1] * firstField.direction;
  let covered = 1;
  for (;;) {
    const next = rest[covered];
    const field = index.fields[constantFields + covered];
    if (!next || !field || next[0] !== field.path || next[1] * field.direction !== relative) break;
    covered++;
  }
  const groupFields = index.fields.slice(constantFields, constantFields + covered);
  return {
    reverse: relative === -1,
    groupComponents: constantFields + covered,
    sortsWithinGroups: rest.length > covered,
    groupsEndKey: constantFields + covered === index.fields.length,
    firstGroupComponent: constantFields,
    groupsAreDocuments: groupFields.some((f) => f.path === '_id'),
  };
}

/** Bounds on `_id`, which is the key of the `docs` database. */
export interface IdBounds {
  lo?: Bound;
  hi?: Bound;
  empty: boolean;
}

/** A plan for one query. */
export type Plan =
  | { kind: 'empty' }
  | { kind: 'ids'; ids: string[] }
  | { kind: 'primary'; reverse: boolean; ordered: boolean; bounds: IdBounds; exact: boolean }
  | {
      kind: 'index';
      index: IndexDef;
      ranges: KeyRange[];
      order?: IndexOrder;
      exact: boolean;
      unique: boolean;
      /** Leading fields bound to one value in each range (see {@link IndexBounds.pointFields}). */
      pointFields: number;
    };

function idPoints(predicates: Predicate[] | undefined): string[] | undefined {
  let ids: Set<string> | undefined;
  for (const p of predicates ?? []) {
    if (p.kind !== 'points') continue;
    const strings = new Set(p.values.filter((v): v is string => typeof v === 'string'));
    ids = ids ? new Set([...ids].filter((id) => strings.has(id))) : strings;
  }
  return ids ? [...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))) : undefined;
}

function idBounds(predicates: Predicate[] | undefined): IdBounds {
  const out: IdBounds = { empty: false };
  for (const p of predicates ?? []) {
    if (p.kind !== 'range') continue;
    if (typeof p.value !== 'string') return { empty: true };
    const bound = { bytes: Buffer.from(p.value), inclusive: p.op === '$gte' || p.op === '$lte' };
    if (p.op === '$gt' || p.op === '$gte') {
      const lo = tighter(out.lo, bound, 1);
      if (lo) out.lo = lo;
    } else {
      const hi = tighter(out.hi, bound, -1);
      if (hi) out.hi = hi;
    }
  }
  return out;
}

export interface PlanInput {
  collection: CollectionDef;
  filter: Filter | undefined;
  sort: SortSpec | undefined;
  skip: number;
  limit: number;
  /** Counts the keys of `ranges`, stopping at `cap`. */
  countKeys(ranges: KeyRange[], cap: number): number;
  /** The plan counts matches: an index that answers the filter exactly needs no document. */
  forCount?: boolean;
}

/** Keys counted at most when racing candidate indexes against each other. */
const RACE_KEYS = 200;

interface Candidate {
  index: IndexDef;
  bounds: IndexBounds;
  /** Keys counted so far and the cap they were counted to. */
  counted?: { keys: number; cap: number };
}

/** Picks the plan for a query. */
export function choosePlan(input: PlanInput): Plan {
  const predicates = extractPredicates(input.filter);
  const byPath = predicates.byPath;
  const sort = Object.entries(input.sort ?? {}) as [string, 1 | -1][];
  const ids = idPoints(byPath.get('_id'));
  if (ids) return ids.length === 0 ? { kind: 'empty' } : { kind: 'ids', ids };
  const primaryBounds = idBounds(byPath.get('_id'));
  if (primaryBounds.empty) return { kind: 'empty' };
  const idSort = sort[0]?.[0] === '_id' ? sort[0] : undefined;
  // An empty filter: every document matches, so whole scans can skip without reading documents.
  const matchesAll = predicates.complete && byPath.size === 0 && predicates.ors.length === 0;

  // Each index, bounded by the conjunction alone and with each `$or` it can bound as well.
  const candidates: Candidate[] = [];
  for (const index of input.collection.indexes) {
    const bounds = indexBounds(index, predicates);
    if (bounds) candidates.push({ index, bounds });
    predicates.ors.forEach((_, or) => {
      const union = orBounds(index, predicates, or);
      if (union) candidates.push({ index, bounds: union });
    });
  }
  if (candidates.some((c) => c.bounds.ranges.length === 0)) return { kind: 'empty' };
  const count = (c: Candidate, cap: number): number => {
    if (c.counted && (c.counted.keys < c.counted.cap || c.counted.cap >= cap)) return Math.min(c.counted.keys, cap);
    const keys = input.countKeys(c.bounds.ranges, cap);
    c.counted = { keys, cap };
    return keys;
  };
  const orders = new Map<Candidate, IndexOrder | undefined>();
  const orderOf = (c: Candidate): IndexOrder | undefined => {
    if (sort.length === 0) return undefined;
    if (!orders.has(c)) {
      const { singlePointFields, pointFields } = c.bounds;
      // The ranges one after the other, else side by side merged on the fields after their values.
      const order =
        indexOrder(c.index, sort, singlePointFields) ??
        (pointFields > singlePointFields ? indexOrder(c.index, sort, pointFields, singlePointFields) : undefined);
      orders.set(c, order);
    }
    return orders.get(c);
  };
  const indexPlan = (c: Candidate, order?: IndexOrder): Plan => {
    const plan: Plan = {
      kind: 'index',
      index: c.index,
      ranges: c.bounds.ranges,
      exact: c.bounds.exact,
      unique: c.bounds.unique,
      pointFields: c.bounds.pointFields,
    };
    if (order) plan.order = order;
    return plan;
  };

  // Several indexes narrow the filter: count their keys, up to a small cap, and prefer the
  // fewest, then one that also gives the sort order, then the most fields bound — a cheap form
  // of MongoDB's plan racing.
  if (candidates.length > 1 && !candidates.some((c) => c.bounds.score >= 100)) {
    for (const c of candidates) count(c, RACE_KEYS);
  }
  candidates.sort(
    (a, b) =>
      (input.forCount ? Number(!a.bounds.exact) - Number(!b.bounds.exact) : 0) ||
      (a.counted?.keys ?? 0) - (b.counted?.keys ?? 0) ||
      Number(orderOf(b) !== undefined) - Number(orderOf(a) !== undefined) ||
      b.bounds.score - a.bounds.score ||
      a.bounds.ranges.length - b.bounds.ranges.length,
  );
  const best = candidates[0];
  if (sort.length === 0) {
    if (best) return indexPlan(best);
    return { kind: 'primary', reverse: false, ordered: false, bounds: primaryBounds, exact: matchesAll };
  }
  if (best) {
    const order = orderOf(best);
    if (order) return indexPlan(best, order);
  }

  // Reading in sort order: an index that also narrows the filter, else `_id` order, else any
  // index that gives the order.
  let sortPlan: Plan | undefined;
  for (const c of candidates) {
    const order = orderOf(c);
    if (order) {
      sortPlan = indexPlan(c, order);
      break;
    }
  }
  if (!sortPlan && idSort)
    sortPlan = { kind: 'primary', reverse: idSort[1] === -1, ordered: true, bounds: primaryBounds, exact: matchesAll };
  if (!sortPlan) {
    for (const index of input.collection.indexes) {
      const order = indexOrder(index, sort, 0);
      if (order) {
        sortPlan = { kind: 'index', index, ranges: [wholeIndex(index)], order, exact: matchesAll, unique: true, pointFields: 0 };
        break;
      }
    }
  }
  if (best && sortPlan) {
    // Reading in sort order until the page is full costs about (skip + limit) × total / matches
    // documents; reading the matches costs `matches`. The sort order wins when matches exceed
    // √((skip + limit) × total), so count keys only that far.
    if (!Number.isFinite(input.limit)) return indexPlan(best);
    const cap = Math.ceil(Math.sqrt((input.skip + input.limit) * Math.max(1, input.collection.count))) + 1;
    return count(best, cap) >= cap ? sortPlan : indexPlan(best);
  }
  if (sortPlan) return sortPlan;
  if (best) return indexPlan(best);
  return { kind: 'primary', reverse: false, ordered: false, bounds: primaryBounds, exact: matchesAll };
}
