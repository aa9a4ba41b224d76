/**
 * Runs query plans against the LMDB databases. Synchronous from the plan to the last document, so
 * a query sees one consistent snapshot (or, inside a write transaction, that transaction).
 */
import type { Database } from 'lmdb';
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
  return Buffer.concat([numberPrefix(collection.no), Buffer.from(id, 'utf8')]);
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
    let n = 0;
    for (const range of ranges) {
      n += this.dbs.idx.getKeysCount({ start: range.start, end: range.end, limit: cap - n });
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

  *primary(bounds: IdBounds, reverse: boolean): Iterable<Doc> {
    const prefix = numberPrefix(this.collection.no);
    const lo = bounds.lo ? Buffer.concat([prefix, bounds.lo.bytes]) : prefix;
    const hi = bounds.hi ? Buffer.concat([prefix, bounds.hi.bytes]) : (successor(prefix) as Buffer);
    const range = reverse
      ? { start: hi, end: lo, reverse: true, exclusiveStart: !bounds.hi?.inclusive, inclusiveEnd: bounds.lo ? bounds.lo.inclusive : true }
      : { start: lo, end: hi, exclusiveStart: bounds.lo ? !bounds.lo.inclusive : false, inclusiveEnd: bounds.hi?.inclusive === true };
    for (const { value } of this.dbs.docs.getRange(range)) {
      this.stats.docsExamined++;
      yield decodeDoc(value);
    }
  }

  /** Documents of an index's key ranges in key order; each document once. */
  *indexUnordered(index: IndexDef, ranges: KeyRange[]): Iterable<Doc> {
    const seen = index.multikey || ranges.length > 1 ? new Set<string>() : undefined;
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

  private firstKey(lo: Buffer, hi: Buffer, reverse: boolean): Buffer | undefined {
    const range = reverse
      ? { start: hi, end: lo, reverse: true, exclusiveStart: true, inclusiveEnd: true, limit: 1 }
      : { start: lo, end: hi, limit: 1 };
    for (const key of this.dbs.idx.getKeys(range)) return key;
    return undefined;
  }

  /**
   * Documents of one key range in sort order. The range is read group by group (a group holds
   * the keys with equal sort components); within a group documents follow `_id` order, as the
   * stable sort of a full scan would leave them, and are sorted by the sort keys the index does not
   * cover.
   */
  *indexOrdered(index: IndexDef, range: KeyRange, order: IndexOrder, sort: SortSpec): Iterable<Doc> {
    let lo = range.start;
    let hi = range.end;
    for (;;) {
      const head = this.firstKey(lo, hi, order.reverse);
      if (!head) return;
      let at = 4;
      let exact = true;
      for (let i = 0; i < order.groupComponents; i++) {
        const field = index.fields[i] as IndexDef['fields'][number];
        const end = componentEnd(head, at, field.direction);
        if (i >= order.firstGroupComponent && !isExactComponent(head, at, end, field.direction)) exact = false;
        at = end;
      }
      const group = Buffer.from(head.subarray(0, at));
      const groupEnd = successor(group) as Buffer;
      const start = Buffer.compare(group, lo) > 0 ? group : lo;
      const end = Buffer.compare(groupEnd, hi) < 0 ? groupEnd : hi;
      const keys = this.dbs.idx.getKeys({ start, end });
      if (exact && !order.sortsWithinGroups && order.groupsEndKey) {
        for (const key of keys) {
          this.stats.keysExamined++;
          const doc = this.doc(idOfIndexKey(index, key));
          if (doc) yield doc;
        }
      } else {
        const ids: Buffer[] = [];
        for (const key of keys) {
          this.stats.keysExamined++;
          ids.push(Buffer.from(idBytesOfIndexKey(index, key)));
        }
        if (!order.groupsEndKey) ids.sort(Buffer.compare);
        if (exact && !order.sortsWithinGroups) {
          for (const id of ids) {
            const doc = this.doc(id.toString('utf8'));
            if (doc) yield doc;
          }
        } else {
          const docs: Doc[] = [];
          for (const id of ids) {
            const doc = this.doc(id.toString('utf8'));
            if (doc) docs.push(doc);
          }
          yield* sortDocs(docs, sort);
        }
      }
      if (order.reverse) hi = group;
      else lo = groupEnd;
    }
  }
}

interface Execution {
  docs: Iterable<Doc>;
  /** Documents come in the requested sort order. */
  sorted: boolean;
  /** Documents come in `_id` order (what a full scan gives). */
  idOrder: boolean;
}

function execute(reader: Reader, plan: Plan, sort: SortSpec | undefined): Execution {
  switch (plan.kind) {
    case 'empty':
      return { docs: [], sorted: true, idOrder: true };
    case 'ids':
      return { docs: reader.ids(plan.ids), sorted: false, idOrder: true };
    case 'primary':
      return { docs: reader.primary(plan.bounds, plan.reverse), sorted: plan.ordered, idOrder: !plan.reverse };
    case 'index':
      if (plan.order && sort && plan.ranges.length === 1) {
        return { docs: reader.indexOrdered(plan.index, plan.ranges[0] as KeyRange, plan.order, sort), sorted: true, idOrder: false };
      }
      return { docs: reader.indexUnordered(plan.index, plan.ranges), sorted: false, idOrder: false };
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
  const execution = execute(reader, plan, sort);
  stats.sortedByIndex = sort !== undefined && execution.sorted;

  const out: Doc[] = [];
  if (!sort || execution.sorted) {
    let skipped = 0;
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
