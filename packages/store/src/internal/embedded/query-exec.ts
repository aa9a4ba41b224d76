/**
 * Runs query plans against the LMDB databases. Synchronous from the plan to the last document, so
 * a query sees one consistent snapshot (or, inside a write transaction, that transaction).
 */
import type { Database } from 'lmdb';
import { MAX_KEY_BYTES, keyTooLong } from '../errors';
import type { Doc, Filter, SortSpec } from '../../types';
import type { CollectionDef, IndexDef } from './catalog';
import { decodeDoc } from './doc-codec';
import { componentEnd, isExactComponent, numberPrefix, successor } from './key-codec';
import { compileFilter, sortDocs, validateSort, type Matcher } from './mongo-semantics';
import { choosePlan, type IdBounds, type IndexOrder, type KeyRange, type Plan } from './query-plan';

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
  ) {}

  doc(id: string): Doc | undefined {
    this.stats.docsExamined++;
    const text = this.dbs.docs.get(docKey(this.collection, id));
    return text === undefined ? undefined : decodeDoc(text);
  }

  countKeys(ranges: KeyRange[], cap: number): number {
    // Iterated rather than `getKeysCount`, which counts the whole range whatever its limit.
    let n = 0;
    for (const range of ranges) {
      for (const _ of this.dbs.idx.getKeys({ start: range.start, end: range.end, limit: cap - n })) n++;
      if (n >= cap) break;
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
      yield decodeDoc(value);
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

  /**
   * Documents of one key range in sort order, read with one cursor. Keys with equal sort
   * components form a group; within a group documents follow `_id` order, as the stable sort of
   * a full scan leaves them, and are sorted by the sort keys the index does not cover. A group
   * of exact components needing no such sort streams straight through in forward scans.
   */
  *indexOrdered(index: IndexDef, range: KeyRange, order: IndexOrder, sort: SortSpec, skip = 0): Iterable<Doc> {
    // `skip` > 0 only when every key is a match: skipped keys need no document.
    let toSkip = skip;
    const keys = order.reverse
      ? this.dbs.idx.getKeys({ start: range.end, end: range.start, reverse: true, exclusiveStart: true, inclusiveEnd: true })
      : this.dbs.idx.getKeys({ start: range.start, end: range.end });
    const streams = !order.reverse && !order.sortsWithinGroups && order.groupsEndKey;
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
      let exact = true;
      for (let i = 0; i < order.groupComponents; i++) {
        const field = index.fields[i] as IndexDef['fields'][number];
        const end = componentEnd(key, at, field.direction);
        if (i >= order.firstGroupComponent && !isExactComponent(key, at, end, field.direction)) exact = false;
        at = end;
      }
      if (group === undefined || group.length !== at || key.compare(group, 0, at, 0, at) !== 0) {
        yield* flush();
        group = Buffer.from(key.subarray(0, at));
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
      if (plan.order && sort && plan.ranges.length === 1) {
        const skipHere = plan.exact ? skip : 0;
        return {
          docs: reader.indexOrdered(plan.index, plan.ranges[0] as KeyRange, plan.order, sort, skipHere),
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
  const reader = new Reader(dbs, collection, stats);
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
  for (const doc of execution.docs) if (matches(doc)) out.push(doc);
  if (!execution.idOrder) out.sort(idCompare);
  const page = sortDocs(out, sort).slice(skip, skip + limit);
  stats.returned = page.length;
  return page;
}

/**
 * The number of documents that match `filter`. When an index answers the filter exactly, only
 * its keys are counted; otherwise the matches are read.
 */
export function countQuery(dbs: StoreDbs, collection: CollectionDef | undefined, filter: Filter | undefined): number {
  compileFilter(filter);
  if (!collection) return 0;
  if (filter === undefined || filter === null || Object.keys(filter).length === 0) return collection.count;
  const reader = new Reader(dbs, collection, { plan: 'empty', sortedByIndex: false, keysExamined: 0, docsExamined: 0, returned: 0 });
  const plan = choosePlan({
    collection,
    filter,
    sort: undefined,
    skip: 0,
    limit: Number.POSITIVE_INFINITY,
    countKeys: (ranges, cap) => reader.countKeys(ranges, cap),
  });
  if (plan.kind === 'empty') return 0;
  if (plan.kind === 'index' && plan.exact) {
    return plan.ranges.reduce((n, range) => n + dbs.idx.getKeysCount({ start: range.start, end: range.end }), 0);
  }
  return runQuery(dbs, collection, filter).length;
}
