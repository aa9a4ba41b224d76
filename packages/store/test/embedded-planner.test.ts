/**
 * The embedded store's planner on the shapes the job lists use: compound indexes ending with the
 * sort's tie-breakers, `$in` on a leading field merged in sort order, a multikey leading field
 * (visibility tokens), keyset `$or`s, skips and counts that stop at a limit. Every query is
 * answered by an indexed collection and by one without indexes (a full scan and a stable sort),
 * and the two must agree; the plans of the served shapes must read no more than their page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddedStore, type Collection, type Doc, type EmbeddedStore, type Filter, type SortSpec } from '../src/index';

function sequence(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const STATUSES = ['complete', 'error', 'running', 'canceled', 'paused'];
const NAMES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
const TOKENS = ['*', 'group:a', 'group:b', 'group:c', 'user:1', 'user:2'];
const INDEXES = [
  { keys: { start: 1, _id: 1 } },
  { keys: { status: 1, start: 1, _id: 1 } },
  { keys: { name: 1, start: 1, _id: 1 } },
  { keys: { runTime: 1, start: 1, _id: 1 } },
  { keys: { visibleTo: 1, start: 1, _id: 1 } },
  { keys: { visibleTo: 1, status: 1, start: 1, _id: 1 } },
] as const;

type KeyValue = string | number | null;

function valueOf(doc: Doc, field: string): KeyValue {
  const value = doc[field];
  return value === undefined || value === null ? null : (value as string | number);
}

/** The documents after `doc` in `sort` order, as a keyset `$or` (the shape the job lists send). */
function keyset(sort: SortSpec, doc: Doc): Filter {
  const fields = Object.entries(sort).filter(([f]) => f !== '_id');
  const branches: Filter[] = [];
  const equal: Filter[] = [];
  for (const [field, dir] of fields) {
    const v = valueOf(doc, field);
    const beyond: Filter[] =
      dir === 1
        ? v === null
          ? [{ [field]: { $gte: Number.NEGATIVE_INFINITY } }, { [field]: { $gte: '' } }]
          : typeof v === 'number'
            ? [{ [field]: { $gt: v } }, { [field]: { $gte: '' } }]
            : [{ [field]: { $gt: v } }]
        : v === null
          ? []
          : typeof v === 'number'
            ? [{ [field]: { $lt: v } }, { [field]: null }]
            : [{ [field]: { $lt: v } }, { [field]: { $lte: Number.POSITIVE_INFINITY } }, { [field]: null }];
    for (const clause of beyond) branches.push(equal.length === 0 ? clause : { $and: [...equal, clause] });
    equal.push(v === null ? { [field]: null } : { [field]: { $eq: v } });
  }
  const last = { _id: { [(sort._id ?? 1) === 1 ? '$gt' : '$lt']: doc._id } };
  branches.push(equal.length === 0 ? last : { $and: [...equal, last] });
  return { $or: branches };
}

const ids = (docs: Doc[]) => docs.map((d) => d._id);

describe('EmbeddedStore planner on the job list shapes', () => {
  let root: string;
  let store: EmbeddedStore;
  let indexed: Collection;
  let plain: Collection;
  const random = sequence(7);

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'nap-store-planner-'));
    store = createEmbeddedStore({ path: join(root, 'db') });
    indexed = store.collection('indexed');
    plain = store.collection('plain');
    await indexed.createIndexes(INDEXES.map((i) => ({ keys: { ...i.keys } })));
    const docs = Array.from({ length: 600 }, (_, i) => {
      const doc: Record<string, unknown> = {
        _id: `j${String(Math.floor(random() * 1e6)).padStart(6, '0')}-${i}`,
        status: STATUSES[Math.floor(random() * STATUSES.length)],
        name: NAMES[Math.floor(random() * NAMES.length)],
        // ties on purpose: jobs started in the same millisecond
        start: 1_000 + Math.floor(random() * 300),
        visibleTo: random() < 0.3 ? ['*'] : TOKENS.slice(1).filter(() => random() < 0.35),
      };
      const r = random();
      if (r < 0.6) doc.runTime = Math.floor(random() * 50);
      else if (r < 0.7) doc.runTime = null;
      else if (r < 0.8) doc.runTime = `t${Math.floor(random() * 9)}`;
      return doc;
    });
    await indexed.insertMany(docs);
    await plain.insertMany(docs);
  });

  afterAll(async () => {
    await store.close();
    rmSync(root, { recursive: true, force: true });
  });

  const filters: Filter[] = [
    {},
    { status: { $eq: 'complete' } },
    { status: { $in: ['error', 'canceled', 'paused'] } },
    { name: { $eq: 'gamma' } },
    { start: { $gte: 1_100, $lt: 1_200 } },
    { $and: [{ status: { $eq: 'complete' } }, { start: { $gte: 1_150 } }] },
    { visibleTo: { $in: ['*', 'group:a', 'user:1'] } },
    { $and: [{ status: { $eq: 'error' } }, { visibleTo: { $in: ['*', 'group:b', 'group:c'] } }] },
    { $and: [{ status: { $in: ['complete', 'running'] } }, { visibleTo: { $in: ['group:a', 'group:b'] } }] },
    { $and: [{ name: { $eq: 'beta' } }, { status: { $eq: 'complete' } }] },
    { name: { $regex: 'ta$' } },
  ];
  const sorts: SortSpec[] = [
    { start: -1, _id: -1 },
    { start: 1, _id: 1 },
    { status: 1, start: 1, _id: 1 },
    { name: -1, start: -1, _id: -1 },
    { runTime: 1, start: 1, _id: 1 },
    { runTime: -1, start: -1, _id: -1 },
    { _id: -1 },
  ];

  it('answers every filter, sort, skip and limit as a full scan does', async () => {
    for (const filter of filters) {
      for (const sort of sorts) {
        for (const [skip, limit] of [
          [0, 25],
          [40, 7],
          [0, 0],
        ] as const) {
          const options = { sort, skip, limit };
          expect({ filter, options, ids: ids(await indexed.find(filter, options)) }).toEqual({
            filter,
            options,
            ids: ids(await plain.find(filter, options)),
          });
        }
      }
      const count = await plain.countDocuments(filter);
      expect({ filter, count: await indexed.countDocuments(filter) }).toEqual({ filter, count });
      for (const limit of [1, 10, count, count + 1]) {
        expect({ filter, limit, count: await indexed.countDocuments(filter, { limit }) }).toEqual({
          filter,
          limit,
          count: Math.min(count, limit),
        });
      }
    }
  });

  it('closes the index ranges of a merged $in page it stops reading, so LMDB never runs out of readers', async () => {
    // Each open LMDB range holds a reader slot (126 by default) once a write has renewed the shared
    // read transaction; pages of a merged `$in` that stop at their limit left theirs open
    // (MDB_READERS_FULL after a few hundred pages of a job archive).
    for (let round = 0; round < 400; round++) {
      const page = await indexed.find(
        { status: { $in: ['complete', 'error', 'canceled'] } },
        { sort: { status: 1, start: 1, _id: 1 }, limit: 2 },
      );
      expect(page).toHaveLength(2);
      await indexed.updateOne({ _id: page[0]?._id }, { $set: { touched: round } });
    }
  });

  it('pages with keyset $ors through every match once, in order, as skip does', async () => {
    for (const filter of filters.slice(0, 9)) {
      for (const sort of sorts) {
        const all = ids(await plain.find(filter, { sort }));
        const seen: string[] = [];
        let last: Doc | undefined;
        for (let page = 0; page < 200; page++) {
          const where = last === undefined ? filter : { $and: [filter, keyset(sort, last)] };
          const found = await indexed.find(where, { sort, limit: 37 });
          seen.push(...ids(found));
          last = found[found.length - 1];
          if (found.length < 37) break;
        }
        expect({ filter, sort, ids: seen }).toEqual({ filter, sort, ids: all });
      }
    }
  });

  it('reads only the page for the served shapes, however deep the keyset position', async () => {
    const sort: SortSpec = { start: -1, _id: -1 };
    const served: [Filter, string][] = [
      [{}, 'start_1__id_1'],
      [{ status: { $eq: 'complete' } }, 'status_1_start_1__id_1'],
      [{ status: { $in: ['error', 'canceled', 'paused'] } }, 'status_1_start_1__id_1'],
      [{ visibleTo: { $in: ['*', 'group:a', 'user:1'] } }, 'visibleTo_1_start_1__id_1'],
      [{ $and: [{ status: { $eq: 'error' } }, { visibleTo: { $in: ['*', 'group:b'] } }] }, 'visibleTo_1_status_1_start_1__id_1'],
    ];
    for (const [filter, index] of served) {
      const all = await plain.find(filter, { sort });
      const deep = all[Math.floor(all.length * 0.8)] as Doc;
      for (const where of [filter, { $and: [filter, keyset(sort, deep)] }]) {
        const plan = await store.explain('indexed', where, { sort, limit: 10 });
        expect({ where, plan }).toMatchObject({ where, plan: { plan: 'index', index, sortedByIndex: true } });
        expect({ where, docsExamined: plan.docsExamined }).toEqual({ where, docsExamined: plan.returned });
        // a merge of several ranges looks one key ahead in each
        expect(plan.keysExamined).toBeLessThanOrEqual(plan.returned + 8);
      }
      const counted = await store.explainCount('indexed', filter, { limit: 50 });
      expect({ filter, counted }).toMatchObject({ filter, counted: { docsExamined: 0, returned: Math.min(50, all.length) } });
    }
    // by another served sort, ties broken by the start and _id of the index
    const byName = await store.explain('indexed', { name: { $eq: 'gamma' } }, { sort: { name: 1, start: 1, _id: 1 }, skip: 20, limit: 5 });
    expect(byName).toMatchObject({ index: 'name_1_start_1__id_1', sortedByIndex: true, docsExamined: 5 });
  });

  it('keeps the multikey paths of an index, and sorts on its other fields from the index', async () => {
    const indexes = await indexed.listIndexes();
    expect(indexes.map((i) => i.name)).toContain('visibleTo_1_start_1__id_1');
    const plan = await store.explain('indexed', { visibleTo: { $in: ['group:a', 'group:c'] } }, { sort: { start: 1, _id: 1 }, limit: 3 });
    expect(plan).toMatchObject({ index: 'visibleTo_1_start_1__id_1', sortedByIndex: true, returned: 3, docsExamined: 3 });
    // a sort on the array field itself is not read from the index
    expect(await store.explain('indexed', {}, { sort: { visibleTo: 1 }, limit: 1 })).toMatchObject({ sortedByIndex: false });
  });

  it('sorts a page in memory keeping only the best of the page as the matches come (the result of a whole sort)', async () => {
    const sort: SortSpec = { name: 1, runTime: -1, _id: 1 };
    for (const [skip, limit] of [
      [0, 5],
      [17, 9],
      [500, 30],
    ] as const) {
      expect(ids(await indexed.find({}, { sort, skip, limit }))).toEqual(ids(await plain.find({}, { sort, skip, limit })));
    }
  });
});
