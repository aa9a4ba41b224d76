/**
 * Runs query plans against the LMDB databases. Synchronous from the plan to the last document, so
 * a query sees one consistent snapshot (or, inside a write transaction, that transaction).
 */
import type { Database } from 'lmdb';
import { MAX_KEY_BYTES, keyTooLong } from '../errors';
import type { Doc, Filter, SortSpec } from '../../types';
import { multikeyFields, type CollectionDef, type IndexDef } from './catalog';
import { decodeDoc } from './doc-codec';
import { componentEnd, isExactComponent, numberPrefix, successor } from './key-codec';
import { compileFilter, sortDocs, validateSort, type Matcher } from './mongo-semantics';
import { choosePlan, componentsEnd, type IdBounds, type IndexOrder, type KeyRange, type Plan } from './query-plan';

/** The LMDB databases of a store. */
export interface StoreDbs {
  /** `u32 collection number | UTF-8 _id` → encoded document (see `doc-codec`). */
  docs: Database<string, Buffer>;
  /** `u32 index number | components | UTF-8 _id` → empty. */
  idx: Database<Buffer, Buffer>;
}

/** What a query did: the plan it used and how much it read. */
export interface QueryStats {
  /** `ids`: `_id` lookups; `index`: a secondary index; `primary`: the documents in `_id` order (a full scan unless `_id` is bounded); `empty`: nothing can match. */
  plan: 'empty' | 'ids' | 'primary' | 'index';
  /** Name of the index used, for `index` plans. */
  index?: string;
  /** True when documents were read in the requested sort order (no in-memory sort of all matches). */
  sortedByIndex: boolean;
  keysExamined: number;
  docsExamined: number;
  returned: number;
}

export interface QueryOptions {
  sort?: SortSpec;
  skip?: number;
  limit?: number;
  /** How a stored document is read (`decodeDoc` unless said): a reader that needs some members only decodes those. */
  decode?: (text: string) => Doc;
}

export function docKey(collection: CollectionDef, id: string): Buffer {
  const key = Buffer.concat([numberPrefix(collection.no), Buffer.from(id, 'utf8')]);
  if (key.length > MAX_KEY_BYTES) throw keyTooLong(`The _id "${id.slice(0, 32)}…"`, { collection: collection.name });
  return key;
}

function idOfIndexKey(index: IndexDef, key: Buffer): string {
  let at = 4;
  for (const field of index.fields) at = componentEnd(key, at, field.direction);
  return key.toString('utf8', at);
}

function idBytesOfIndexKey(index: IndexDef, key: Buffer): Buffer {
  let at = 4;
  for (const field of index.fields) at = componentEnd(key, at, field.direction);
  return key.subarray(at);
}

class Reader {
  constructor(
    private readonly dbs: StoreDbs,
    private readonly collection: CollectionDef,
    readonly stats: QueryStats,
    private readonly decode: (text: string) => Doc = decodeDoc,
  ) {}

  doc(id: string): Doc | undefined {
    this.stats.docsExamined++;
    const text = this.dbs.docs.get(docKey(this.collection, id));
    return text === undefined ? undefined : this.decode(text);
  }

  /**
   * The keys of one range, counted up to `cap` without crossing into JavaScript per key: LMDB
   * skips `cap - 1` keys to see whether one more is there (then the count is `cap`), else counts
   * the range (fewer than `cap` keys).
   */
  private rangeCount(range: KeyRange, cap: number): number {
    if (cap <= 0) return 0;
    if (Number.isFinite(cap))
      for (const _ of this.dbs.idx.getKeys({ start: range.start, end: range.end, offset: cap - 1, limit: 1 })) return cap;
    return this.dbs.idx.getKeysCount({ start: range.start, end: range.end });
  }

  /** The keys of `ranges`, counted up to `cap`. */
  countKeys(ranges: KeyRange[], cap: number): number {
    let n = 0;
    for (const range of ranges) {
      n += this.rangeCount(range, cap - n);
      if (n >= cap) return cap;
    }
    return n;
  }

  *ids(ids: string[]): Iterable<Doc> {
    for (const id of ids) {
      const doc = this.doc(id);
      if (doc) yield doc;
    }
  }

  *primary(bounds: IdBounds, reverse: boolean, offset = 0): Iterable<Doc> {
    const prefix = numberPrefix(this.collection.no);
    const lo = bounds.lo ? Buffer.concat([prefix, bounds.lo.bytes]) : prefix;
    const hi = bounds.hi ? Buffer.concat([prefix, bounds.hi.bytes]) : (successor(prefix) as Buffer);
    const range = reverse
      ? {
          start: hi,
          end: lo,
          reverse: true,
          exclusiveStart: !bounds.hi?.inclusive,
          inclusiveEnd: bounds.lo ? bounds.lo.inclusive : true,
          offset,
        }
      : {
          start: lo,
          end: hi,
          exclusiveStart: bounds.lo ? !bounds.lo.inclusive : false,
          inclusiveEnd: bounds.hi?.inclusive === true,
          offset,
        };
    for (const { value } of this.dbs.docs.getRange(range)) {
      this.stats.docsExamined++;
      yield this.decode(value);
    }
  }

  /** Documents of an index's key ranges in key order; each document once. */
  *indexUnordered(index: IndexDef, ranges: KeyRange[]): Iterable<Doc> {
    // A document has one key in an index unless the index is multikey.
    const seen = index.multikey ? new Set<string>() : undefined;
    for (const range of ranges) {
      for (const key of this.dbs.idx.getKeys({ start: range.start, end: range.end })) {
        this.stats.keysExamined++;
        const id = idOfIndexKey(index, key);
        if (seen) {
          if (seen.has(id)) continue;
          seen.add(id);
        }
        const doc = this.doc(id);
        if (doc) yield doc;
      }
    }
  }

  /** The keys of one range in ascending order, or descending when `reverse`. */
  private rangeKeys(range: KeyRange, reverse: boolean): Iterable<Buffer> {
    return reverse
      ? this.dbs.idx.getKeys({ start: range.end, end: range.start, reverse: true, exclusiveStart: true, inclusiveEnd: true })
      : this.dbs.idx.getKeys({ start: range.start, end: range.end });
  }

  /**
   * The keys of `ranges` in the order of `order`. Ranges with the same values in the fields before
   * the first group component are read one after the other; ranges that differ there (an `$in`
   * on a leading field) are read side by side and merged on the components after, and a document
   * met in two of them (an array field holding both values) is given once.
   */
  private *orderedKeys(index: IndexDef, ranges: KeyRange[], order: IndexOrder): Iterable<Buffer> {
    const lead = order.firstGroupComponent;
    const groups = new Map<string, KeyRange[]>();
    for (const range of ranges) {
      const tag = range.start.toString('latin1', 0, componentsEnd(index, range.start, lead));
      const list = groups.get(tag);
      if (list) list.push(range);
      else groups.set(tag, [range]);
    }
    const reverse = order.reverse;
    const readGroup = function* (this: Reader, list: KeyRange[]): Generator<Buffer> {
      const sorted = [...list].sort((a, b) => Buffer.compare(a.start, b.start));
      if (reverse) sorted.reverse();
      for (const range of sorted) yield* this.rangeKeys(range, reverse);
    }.bind(this);
    if (groups.size === 1) {
      yield* readGroup([...groups.values()][0] as KeyRange[]);
      return;
    }
    const heads: { it: Iterator<Buffer>; key: Buffer; from: number }[] = [];
    // Each LMDB range holds a read transaction (a reader slot of the environment) until it is read to
    // its end or closed: a consumer that stops early (a page's limit) must close every open range, or
    // the environment runs out of readers (MDB_READERS_FULL).
    try {
      for (const list of groups.values()) {
        const it = readGroup(list);
        const first = it.next();
        if (first.done) continue;
        heads.push({ it, key: first.value, from: componentsEnd(index, first.value, lead) });
      }
      yield* this.mergeHeads(heads, index, lead, reverse);
    } finally {
      for (const head of heads) head.it.return?.();
    }
  }

  /** The merge of {@link orderedKeys}: the smallest (largest when `reverse`) head first, each key once. */
  private *mergeHeads(
    heads: { it: Iterator<Buffer>; key: Buffer; from: number }[],
    index: IndexDef,
    lead: number,
    reverse: boolean,
  ): Iterable<Buffer> {
    let last: { key: Buffer; from: number } | undefined;
    while (heads.length > 0) {
      let pick = 0;
      for (let i = 1; i < heads.length; i++) {
        const a = heads[i] as (typeof heads)[number];
        const b = heads[pick] as (typeof heads)[number];
        const c = a.key.compare(b.key, b.from, b.key.length, a.from, a.key.length);
        if (reverse ? c > 0 : c < 0) pick = i;
      }
      const head = heads[pick] as (typeof heads)[number];
      const duplicate = last !== undefined && head.key.compare(last.key, last.from, last.key.length, head.from, head.key.length) === 0;
      if (!duplicate) {
        last = { key: head.key, from: head.from };
        yield head.key;
      }
      const next = head.it.next();
      if (next.done)
        heads.splice(pick, 1); // a range read to its end has closed itself
      else {
        head.key = next.value;
        head.from = componentsEnd(index, next.value, lead);
      }
    }
  }

  /**
   * Documents of key ranges in sort order (see {@link orderedKeys}). Keys with equal sort
   * components form a group; within a group documents follow `_id` order, as the stable sort of a
   * full scan leaves them, and are sorted by the sort keys the index does not cover. A group ends
   * at its first inexact component (a long string cut short): its documents are sorted by their
   * values. Groups of exact components needing no such sort stream straight through.
   */
  *indexOrdered(index: IndexDef, ranges: KeyRange[], order: IndexOrder, sort: SortSpec, skip = 0): Iterable<Doc> {
    // `skip` > 0 only when every key is a match: skipped keys need no document.
    let toSkip = skip;
    const keys = this.orderedKeys(index, ranges, order);
    const streams = !order.sortsWithinGroups && (order.groupsAreDocuments || (!order.reverse && order.groupsEndKey));
    let group: Buffer | undefined;
    let groupExact = true;
    let pending: Buffer[] = [];

    const flush = function* (this: Reader): Iterable<Doc> {
      const ids = pending;
      pending = [];
      if (ids.length === 0) return;
      if (ids.length <= toSkip) {
        toSkip -= ids.length;
        return;
      }
      if (order.groupsEndKey && order.reverse) ids.reverse();
      else if (!order.groupsEndKey) ids.sort(Buffer.compare);
      if (groupExact && !order.sortsWithinGroups) {
        for (const id of ids.slice(toSkip)) {
          const doc = this.doc(id.toString('utf8'));
          if (doc) yield doc;
        }
      } else {
        const docs: Doc[] = [];
        for (const id of ids) {
          const doc = this.doc(id.toString('utf8'));
          if (doc) docs.push(doc);
        }
        yield* sortDocs(docs, sort).slice(toSkip);
      }
      toSkip = 0;
    }.bind(this);

    for (const key of keys) {
      this.stats.keysExamined++;
      let at = 4;
      let from = 4;
      let exact = true;
      for (let i = 0; i < order.groupComponents; i++) {
        const field = index.fields[i] as IndexDef['fields'][number];
        if (i === order.firstGroupComponent) from = at;
        const end = componentEnd(key, at, field.direction);
        const inexact = i >= order.firstGroupComponent && !isExactComponent(key, at, end, field.direction);
        at = end;
        if (inexact) {
          exact = false;
          break;
        }
      }
      const same = group !== undefined && group.length === at - from && key.compare(group, 0, group.length, from, at) === 0;
      if (!same) {
        yield* flush();
        group = Buffer.from(key.subarray(from, at));
        groupExact = exact;
      }
      if (streams && groupExact) {
        if (toSkip > 0) {
          toSkip--;
          continue;
        }
        const doc = this.doc(idOfIndexKey(index, key));
        if (doc) yield doc;
      } else {
        pending.push(Buffer.from(idBytesOfIndexKey(index, key)));
      }
    }
    yield* flush();
  }

  /**
   * The distinct documents of the keys of `ranges` of an index with array values, counted up to
   * `cap`. A range of `cap` keys or more answers at once (its documents alone reach the cap);
   * otherwise the largest range is counted in LMDB and only the others are read, each key counted
   * unless its document is in the largest range too — the same components after the first `lead`
   * fields, which hold every array value, put under the largest range's values.
   */
  countDocuments(index: IndexDef, ranges: KeyRange[], cap: number, lead: number): number {
    const counts = ranges.map((range) => this.rangeCount(range, cap));
    if (counts.some((n) => n >= cap)) return cap;
    const multikey = multikeyFields(index);
    const suffixesMatch = index.fields.slice(lead).every((f) => !multikey.has(f.path));
    const largest = suffixesMatch ? counts.indexOf(Math.max(...counts)) : -1;
    const main = ranges[largest];
    const mainPrefix = main ? main.start.subarray(0, componentsEnd(index, main.start, lead)) : undefined;
    let n = main ? (counts[largest] as number) : 0;
    const seen = new Set<string>();
    for (const [i, range] of ranges.entries()) {
      if (i === largest) continue;
      for (const key of this.dbs.idx.getKeys({ start: range.start, end: range.end })) {
        this.stats.keysExamined++;
        const id = idOfIndexKey(index, key);
        if (seen.has(id)) continue;
        seen.add(id);
        if (main && mainPrefix) {
          const twin = Buffer.concat([mainPrefix, key.subarray(componentsEnd(index, key, lead))]);
          const inMain = Buffer.compare(twin, main.start) >= 0 && Buffer.compare(twin, main.end) < 0 && this.dbs.idx.doesExist(twin);
          if (inMain) continue;
        }
        if (++n >= cap) return cap;
      }
    }
    return n;
  }
}

interface Execution {
  docs: Iterable<Doc>;
  /** Documents come in the requested sort order. */
  sorted: boolean;
  /** Documents come in `_id` order (what a full scan gives). */
  idOrder: boolean;
  /** The skip was applied to keys already. */
  skipped: boolean;
}

function execute(reader: Reader, plan: Plan, sort: SortSpec | undefined, skip: number): Execution {
  switch (plan.kind) {
    case 'empty':
      return { docs: [], sorted: true, idOrder: true, skipped: true };
    case 'ids':
      return { docs: reader.ids(plan.ids), sorted: false, idOrder: true, skipped: false };
    case 'primary': {
      // Without a sort, a full scan is in `_id` order too; an exact one can skip natively.
      const inOrder = plan.ordered || !sort;
      const skipHere = plan.exact && inOrder ? skip : 0;
      return {
        docs: reader.primary(plan.bounds, plan.reverse, skipHere),
        sorted: plan.ordered,
        idOrder: !plan.reverse,
        skipped: skipHere > 0,
      };
    }
    case 'index':
      if (plan.order && sort) {
        const skipHere = plan.exact ? skip : 0;
        return {
          docs: reader.indexOrdered(plan.index, plan.ranges, plan.order, sort, skipHere),
          sorted: true,
          idOrder: false,
          skipped: skipHere > 0,
        };
      }
      return { docs: reader.indexUnordered(plan.index, plan.ranges), sorted: false, idOrder: false, skipped: false };
  }
}

function idCompare(a: Doc, b: Doc): number {
  return Buffer.compare(Buffer.from(a._id, 'utf8'), Buffer.from(b._id, 'utf8'));
}

/**
 * The documents of `collection` that match `filter`, sorted, skipped and limited as MongoDB
 * would. Results equal those of a full scan followed by a stable sort, whatever plan is used;
 * without a sort the order is the plan's.
 */
export function runQuery(
  dbs: StoreDbs,
  collection: CollectionDef | undefined,
  filter: Filter | undefined,
  options: QueryOptions = {},
  stats: QueryStats = { plan: 'empty', sortedByIndex: false, keysExamined: 0, docsExamined: 0, returned: 0 },
): Doc[] {
  const matches: Matcher = compileFilter(filter);
  validateSort(options.sort);
  const sort = options.sort && Object.keys(options.sort).length > 0 ? options.sort : undefined;
  const skip = Math.max(0, Math.trunc(options.skip ?? 0));
  const limit = options.limit !== undefined && options.limit > 0 ? Math.trunc(options.limit) : Number.POSITIVE_INFINITY;
  if (!collection) {
    stats.plan = 'empty';
    return [];
  }
  const reader = new Reader(dbs, collection, stats, options.decode);
  const plan = choosePlan({
    collection,
    filter,
    sort,
    skip,
    limit,
    countKeys: (ranges, cap) => reader.countKeys(ranges, cap),
  });
  stats.plan = plan.kind;
  if (plan.kind === 'index') stats.index = plan.index.name;
  const execution = execute(reader, plan, sort, skip);
  stats.sortedByIndex = sort !== undefined && execution.sorted;

  const out: Doc[] = [];
  if (!sort || execution.sorted) {
    let skipped = execution.skipped ? skip : 0;
    if (limit === 0) return out;
    for (const doc of execution.docs) {
      if (!matches(doc)) continue;
      if (skipped < skip) {
        skipped++;
        continue;
      }
      out.push(doc);
      if (out.length >= limit) break;
    }
    stats.returned = out.length;
    return out;
  }
  // Sorted in memory: with a limit, only the best `skip + limit` are kept as they come, so memory
  // stays bounded by the page however many documents match.
  const keep = skip + limit;
  const compactAt = Number.isFinite(keep) ? Math.max(256, 4 * keep) : Number.POSITIVE_INFINITY;
  let best: Doc[] = [];
  // the stable sort of a full scan: ties stay in `_id` order, which a compacted list has lost
  let compacted = false;
  const compact = (docs: Doc[]): Doc[] => sortDocs(execution.idOrder && !compacted ? docs : docs.sort(idCompare), sort).slice(0, keep);
  for (const doc of execution.docs) {
    if (!matches(doc)) continue;
    best.push(doc);
    if (best.length >= compactAt) {
      best = compact(best);
      compacted = true;
    }
  }
  const page = compact(best).slice(skip);
  stats.returned = page.length;
  return page;
}

/**
 * The number of documents that match `filter`, counted up to `limit` when one is given (a count
 * that reaches it stops there). When an index answers the filter exactly, only its keys are
 * counted; otherwise the matches are read.
 */
export function countQuery(
  dbs: StoreDbs,
  collection: CollectionDef | undefined,
  filter: Filter | undefined,
  limit?: number,
  stats: QueryStats = { plan: 'empty', sortedByIndex: false, keysExamined: 0, docsExamined: 0, returned: 0 },
): number {
  compileFilter(filter);
  const cap = limit !== undefined && limit > 0 ? Math.trunc(limit) : Number.POSITIVE_INFINITY;
  if (!collection) return 0;
  const done = (n: number): number => {
    stats.returned = n;
    return n;
  };
  if (filter === undefined || filter === null || Object.keys(filter).length === 0) {
    stats.plan = 'primary';
    return done(Math.min(collection.count, cap));
  }
  const reader = new Reader(dbs, collection, stats);
  const plan = choosePlan({
    collection,
    filter,
    sort: undefined,
    skip: 0,
    limit: Number.POSITIVE_INFINITY,
    countKeys: (ranges, n) => reader.countKeys(ranges, n),
    forCount: true,
  });
  stats.plan = plan.kind;
  if (plan.kind === 'empty') return done(0);
  if (plan.kind === 'index') stats.index = plan.index.name;
  if (plan.kind === 'index' && plan.exact) {
    if (!plan.unique) return done(reader.countDocuments(plan.index, plan.ranges, cap, plan.pointFields));
    if (Number.isFinite(cap)) return done(reader.countKeys(plan.ranges, cap));
    return done(plan.ranges.reduce((n, range) => n + dbs.idx.getKeysCount({ start: range.start, end: range.end }), 0));
  }
  const found = runQuery(dbs, collection, filter, Number.isFinite(cap) ? { limit: cap } : {}, stats).length;
  return done(found);
}
