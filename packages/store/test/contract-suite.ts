/**
 * The behaviour every Store implementation must show, as one jest suite. Call
 * `runStoreContractSuite` from a test file; it registers its tests with jest's globals and does
 * nothing when merely imported.
 */
import { DeclaredIndexes } from '../src/index';
import type { Doc, IndexSpec, Store } from '../src/index';

/** What the contract suite needs from an implementation. */
export interface StoreSuiteTarget {
  /** Opens a store on a fresh, empty database that no other test uses. */
  open(): Promise<Store>;
  /** Opens the database of `store` again after `store.close()`, for persistence checks. */
  reopen(store: Store): Promise<Store>;
  /** Releases what the target holds (containers, directories); called once after the suite. */
  dispose?(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function ids(docs: Doc[]): string[] {
  return docs.map((d) => d._id);
}

function sortedIds(docs: Doc[]): string[] {
  return ids(docs).sort();
}

/** A small deterministic pseudo-random sequence, so data sets are the same on every run. */
function sequence(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * Registers the Store contract tests under `describe(name)`. `setup` runs once before the tests
 * (it may start a server; it gets `setupTimeoutMs`, default 120 s) and returns the target that
 * opens a fresh store per test.
 */
export function runStoreContractSuite(
  name: string,
  setup: () => Promise<StoreSuiteTarget>,
  options: { setupTimeoutMs?: number } = {},
): void {
  describe(name, () => {
    let target: StoreSuiteTarget | undefined;
    const opened: Store[] = [];

    beforeAll(async () => {
      target = await setup();
    }, options.setupTimeoutMs ?? 120_000);

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close().catch(() => undefined)));
    });

    afterAll(async () => {
      await target?.dispose?.();
    });

    async function fresh(): Promise<Store> {
      if (!target) throw new Error(`${name}: the suite setup did not provide a target`);
      const store = await target.open();
      opened.push(store);
      return store;
    }

    async function reopen(store: Store): Promise<Store> {
      if (!target) throw new Error(`${name}: the suite setup did not provide a target`);
      await store.close();
      const again = await target.reopen(store);
      opened.push(again);
      return again;
    }

    describe('documents', () => {
      it('generates a UUID _id when absent and returns a copy of the stored document', async () => {
        const items = (await fresh()).collection('items');
        const input: Record<string, unknown> = { name: 'core-1', nested: { port: 22 }, at: new Date('2026-01-02T03:04:05.000Z') };
        const stored = await items.insertOne(input);
        expect(stored._id).toMatch(UUID);
        expect(stored).toEqual({ _id: stored._id, name: 'core-1', nested: { port: 22 }, at: new Date('2026-01-02T03:04:05.000Z') });
        expect(input._id).toBeUndefined();
        (input.nested as Record<string, unknown>).port = 23;
        (stored.nested as Record<string, unknown>).port = 24;
        const found = await items.findOne({ _id: stored._id });
        expect(found).toEqual({ _id: stored._id, name: 'core-1', nested: { port: 22 }, at: new Date('2026-01-02T03:04:05.000Z') });
        (found?.nested as Record<string, unknown>).port = 25;
        expect((await items.findOne({ name: 'core-1' }))?.nested).toEqual({ port: 22 });
      });

      it('inserts answering only the _id: the document as it was at the call, refusals as insertOne', async () => {
        const items = (await fresh()).collection('items');
        await items.createIndexes([{ keys: { name: 1 }, unique: true }, { keys: { 'nested.port': 1 } }]);
        const input: Record<string, unknown> = {
          name: 'core-1',
          nested: { port: 22 },
          at: new Date('2026-01-02T03:04:05.000Z'),
          gone: undefined,
        };
        const pending = items.insertOneId(input);
        // changed before the write ran: what is stored is the document as it was at the call
        (input.nested as Record<string, unknown>).port = 23;
        input.name = 'changed';
        const id = await pending;
        expect(id).toMatch(UUID);
        expect(input._id).toBeUndefined();
        expect(await items.findOne({ _id: id })).toEqual({
          _id: id,
          name: 'core-1',
          nested: { port: 22 },
          at: new Date('2026-01-02T03:04:05.000Z'),
        });
        // its index entries are there
        expect((await items.find({ 'nested.port': 22 })).map((d) => d._id)).toEqual([id]);
        expect(await items.insertOneId({ _id: 'given', name: 'core-2' })).toBe('given');
        await expect(items.insertOneId({ _id: 'given', name: 'core-3' })).rejects.toMatchObject({
          code: 'STORE_DUPLICATE_KEY',
          status: 409,
        });
        await expect(items.insertOneId({ name: 'core-1' })).rejects.toMatchObject({
          code: 'STORE_DUPLICATE_KEY',
          details: { index: 'name_1' },
        });
        expect(await items.countDocuments()).toBe(2);
        // an index made after inserts: the next ones have their entries in it, and once it is dropped none
        await items.createIndexes([{ keys: { tag: 1 }, unique: true, sparse: true }]);
        const tagged = await items.insertOneId({ name: 'core-4', tag: 't1' });
        expect((await items.find({ tag: 't1' })).map((d) => d._id)).toEqual([tagged]);
        await expect(items.insertOneId({ name: 'core-5', tag: 't1' })).rejects.toMatchObject({
          code: 'STORE_DUPLICATE_KEY',
          details: { index: 'tag_1' },
        });
        expect(await items.dropIndex('tag_1')).toBe(true);
        expect(await items.insertOneId({ name: 'core-5', tag: 't1' })).toMatch(UUID);
        expect(await items.countDocuments()).toBe(4);
      });

      it('keeps a given string _id and refuses a second document with the same _id', async () => {
        const items = (await fresh()).collection('items');
        await items.insertOne({ _id: 'dev-1', n: 1 });
        await expect(items.insertOne({ _id: 'dev-1', n: 2 })).rejects.toMatchObject({
          code: 'STORE_DUPLICATE_KEY',
          status: 409,
          details: { index: '_id_', key: { _id: 'dev-1' } },
        });
        expect(await items.find({})).toEqual([{ _id: 'dev-1', n: 1 }]);
      });

      it('inserts many, then finds, counts and deletes', async () => {
        const items = (await fresh()).collection('items');
        const inserted = await items.insertMany([{ _id: 'a', n: 1 }, { _id: 'b', n: 2 }, { n: 3 }]);
        expect(inserted).toHaveLength(3);
        expect(inserted[2]?._id).toMatch(UUID);
        expect(await items.countDocuments()).toBe(3);
        expect(await items.estimatedCount()).toBe(3);
        expect(await items.countDocuments({ n: { $gte: 2 } })).toBe(2);
        expect(await items.findOne({ n: 99 })).toBeNull();
        expect(await items.deleteOne({ n: { $gte: 2 } })).toBe(1);
        expect(await items.countDocuments()).toBe(2);
        expect(await items.findOneAndDelete({ _id: 'a' })).toEqual({ _id: 'a', n: 1 });
        expect(await items.findOneAndDelete({ _id: 'a' })).toBeNull();
        expect(await items.deleteMany({})).toBe(1);
        expect(await items.countDocuments()).toBe(0);
        expect(await items.deleteMany({})).toBe(0);
        expect(await items.insertMany([])).toEqual([]);
      });

      it('replaces a whole document but keeps its _id', async () => {
        const items = (await fresh()).collection('items');
        await items.insertOne({ _id: 'r1', a: 1, b: 2 });
        expect(await items.replaceOne({ a: 1 }, { c: 3 })).toEqual({ matchedCount: 1, modifiedCount: 1 });
        expect(await items.findOne({ _id: 'r1' })).toEqual({ _id: 'r1', c: 3 });
        expect(await items.replaceOne({ a: 1 }, { c: 4 })).toEqual({ matchedCount: 0, modifiedCount: 0 });
        const upserted = await items.replaceOne({ kind: 'x' }, { kind: 'x', d: 5 }, { upsert: true });
        expect(upserted.matchedCount).toBe(0);
        expect(upserted.upsertedId).toMatch(UUID);
        expect(await items.findOne({ _id: upserted.upsertedId as string })).toEqual({ _id: upserted.upsertedId, kind: 'x', d: 5 });
        const pinned = await items.replaceOne({ _id: 'r2' }, { e: 6 }, { upsert: true });
        expect(pinned.upsertedId).toBe('r2');
        expect(await items.findOne({ _id: 'r2' })).toEqual({ _id: 'r2', e: 6 });
      });

      it('answers ping', async () => {
        await expect((await fresh()).ping()).resolves.toBeUndefined();
      });
    });

    describe('queries', () => {
      const data: Doc[] = [
        {
          _id: 'a',
          n: 1,
          s: 'alpha',
          tags: ['x', 'y'],
          nested: {
            k: 1,
            arr: [
              { v: 1, w: 'p' },
              { v: 2, w: 'q' },
            ],
          },
          flag: true,
        },
        { _id: 'b', n: 2, s: 'beta', tags: ['y'], nested: { k: 2, arr: [{ v: 3, w: 'p' }] }, flag: false },
        { _id: 'c', n: 3, s: 'gamma', tags: [], nested: { k: 3 }, opt: null },
        { _id: 'd', n: 4, s: 'Delta', tags: 'x', opt: 'set' },
        { _id: 'e', s: 'epsilon' },
      ];
      const cases: [string, Record<string, unknown>, string[]][] = [
        ['equality', { n: 2 }, ['b']],
        ['dotted path', { 'nested.k': 3 }, ['c']],
        ['scalar in array', { tags: 'x' }, ['a', 'd']],
        ['whole array', { tags: ['y'] }, ['b']],
        ['array position', { 'tags.0': 'x' }, ['a']],
        ['path through an array of objects', { 'nested.arr.v': 3 }, ['b']],
        ['$elemMatch', { 'nested.arr': { $elemMatch: { v: 1, w: 'p' } } }, ['a']],
        ['$elemMatch on one element only', { 'nested.arr': { $elemMatch: { v: 1, w: 'q' } } }, []],
        ['$exists true', { opt: { $exists: true } }, ['c', 'd']],
        ['$exists false', { opt: { $exists: false } }, ['a', 'b', 'e']],
        ['null matches missing', { opt: null }, ['a', 'b', 'c', 'e']],
        ['range', { n: { $gt: 1, $lte: 3 } }, ['b', 'c']],
        ['$in', { n: { $in: [1, 4] } }, ['a', 'd']],
        ['$nin', { n: { $nin: [1, 4] } }, ['b', 'c', 'e']],
        ['$ne', { n: { $ne: 2 } }, ['a', 'c', 'd', 'e']],
        ['$regex string', { s: { $regex: '^[a-d]' } }, ['a', 'b']],
        ['$regex with $options', { s: { $regex: '^d', $options: 'i' } }, ['d']],
        ['RegExp value', { s: /ta$/ }, ['b', 'd']],
        ['$and', { $and: [{ n: { $gte: 2 } }, { flag: false }] }, ['b']],
        ['$or', { $or: [{ n: 1 }, { s: 'gamma' }] }, ['a', 'c']],
        ['$nor', { $nor: [{ n: 1 }, { n: 2 }] }, ['c', 'd', 'e']],
        ['$not', { n: { $not: { $gt: 2 } } }, ['a', 'b', 'e']],
        ['$size', { tags: { $size: 0 } }, ['c']],
        ['$all', { tags: { $all: ['x', 'y'] } }, ['a']],
        ['boolean', { flag: true }, ['a']],
        ['$in on _id', { _id: { $in: ['b', 'e', 'zz'] } }, ['b', 'e']],
        ['_id range', { _id: { $gte: 'b', $lt: 'd' } }, ['b', 'c']],
      ];

      it.each(cases)('matches %s', async (_label, filter, expected) => {
        const items = (await fresh()).collection('items');
        await items.insertMany(data);
        expect(sortedIds(await items.find(filter))).toEqual(expected);
        expect(await items.countDocuments(filter)).toBe(expected.length);
      });

      it('refuses an unknown query operator or a bad pattern with BAD_REQUEST', async () => {
        const items = (await fresh()).collection('items');
        await items.insertOne({ n: 1 });
        await expect(items.find({ n: { $nope: 1 } })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
        await expect(items.find({ s: { $regex: '([' } })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      });

      it('projects by inclusion and exclusion', async () => {
        const items = (await fresh()).collection('items');
        await items.insertMany(data);
        expect(await items.findOne({ _id: 'a' }, { projection: { n: 1, s: 1 } })).toEqual({ _id: 'a', n: 1, s: 'alpha' });
        expect(await items.findOne({ _id: 'a' }, { projection: { n: 1, _id: 0 } })).toEqual({ n: 1 });
        expect(await items.findOne({ _id: 'a' }, { projection: { 'nested.k': 1 } })).toEqual({ _id: 'a', nested: { k: 1 } });
        expect(await items.findOne({ _id: 'b' }, { projection: { nested: 0, tags: 0, flag: 0 } })).toEqual({ _id: 'b', n: 2, s: 'beta' });
        expect(await items.find({ n: { $lte: 2 } }, { projection: { s: 1 }, sort: { n: 1 } })).toEqual([
          { _id: 'a', s: 'alpha' },
          { _id: 'b', s: 'beta' },
        ]);
        await expect(items.find({}, { projection: { n: 1, s: 0 } })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      });

      it('answers a document as JSON text with the members asked for decoded (findOneJson)', async () => {
        const items = (await fresh()).collection('items');
        // numbers of every BSON width MongoDB stores them in (int32, a double past int32, fractions), binary, nesting
        const typed = {
          _id: 'g',
          name: 'typed',
          s: 'typed',
          int: 7,
          big: 2 ** 40,
          neg: -3,
          frac: 0.25,
          bin: Buffer.from([0, 1, 2]),
          list: [1, 'two', null, { three: 3 }],
          empty: {},
        };
        await items.insertMany([...data, { _id: 'f', n: 6, s: 'é"\\', at: new Date(Date.UTC(2026, 0, 2)) }, typed]);
        const filters = [
          { n: 2 },
          { _id: 'a' },
          { 'nested.k': 3, s: 'gamma' },
          { $or: [{ n: 9 }, { s: 'epsilon' }] },
          { n: 6 },
          { tags: 'x', n: { $gt: 1 } },
          { _id: 'g' },
          { name: { $eq: 'typed' } },
        ];
        for (const filter of filters) {
          const found = await items.findOneJson(filter, ['_id', 's', 'opt']);
          const whole = await items.findOne(filter);
          expect(whole).not.toBeNull();
          expect(JSON.parse(found?.json ?? 'null')).toEqual(JSON.parse(JSON.stringify(whole)));
          expect(found?.doc).toEqual({ _id: whole?._id, s: whole?.s, ...(whole !== null && 'opt' in whole ? { opt: whole.opt } : {}) });
        }
        // the text is the document's JSON, numbers as numbers and binary as a Buffer's JSON, on both stores
        const typedJson = await items.findOneJson({ name: { $eq: 'typed' } }, ['_id', 'int', 'bin', 'none']);
        expect(JSON.parse(typedJson?.json ?? 'null')).toEqual({ ...typed, bin: { type: 'Buffer', data: [0, 1, 2] } });
        expect(typedJson?.doc).toEqual({ _id: 'g', int: 7, bin: Buffer.from([0, 1, 2]) });
        expect(await items.findOneJson({ n: 2, s: 'alpha' }, ['_id'])).toBeNull();
        expect(await (await fresh()).collection('none').findOneJson({ a: 1 }, ['_id'])).toBeNull();
      });

      it('sorts on several keys, then skips and limits', async () => {
        const items = (await fresh()).collection('items');
        await items.insertMany([
          { _id: '1', g: 'b', n: 1 },
          { _id: '2', g: 'a', n: 5 },
          { _id: '3', g: 'b', n: 7 },
          { _id: '4', g: 'a', n: 2 },
          { _id: '5', g: 'c', n: 0 },
          { _id: '6', g: 'a', n: 9 },
        ]);
        expect(ids(await items.find({}, { sort: { g: 1, n: -1 } }))).toEqual(['6', '2', '4', '3', '1', '5']);
        expect(ids(await items.find({}, { sort: { g: -1, n: 1 } }))).toEqual(['5', '1', '3', '4', '2', '6']);
        expect(ids(await items.find({}, { sort: { g: 1, n: -1 }, skip: 2, limit: 3 }))).toEqual(['4', '3', '1']);
        expect(ids(await items.find({ g: { $ne: 'c' } }, { sort: { n: 1 }, limit: 2 }))).toEqual(['1', '4']);
        expect(ids(await items.find({}, { sort: { n: 1 }, skip: 5 }))).toEqual(['6']);
        expect(ids(await items.find({}, { sort: { n: 1 }, skip: 10 }))).toEqual([]);
        expect((await items.findOne({ g: 'a' }, { sort: { n: -1 } }))?._id).toBe('6');
      });

      it('orders values of different types as MongoDB does', async () => {
        const items = (await fresh()).collection('items');
        await items.insertMany([
          { _id: 'date', v: new Date(0) },
          { _id: 'str-b', v: 'b' },
          { _id: 'true', v: true },
          { _id: 'num-2', v: 2 },
          { _id: 'missing' },
          { _id: 'str-a', v: 'a' },
          { _id: 'num-1', v: 1 },
          { _id: 'null', v: null },
          { _id: 'false', v: false },
        ]);
        const ascending = ['missing', 'null', 'num-1', 'num-2', 'str-a', 'str-b', 'false', 'true', 'date'];
        expect(ids(await items.find({}, { sort: { v: 1, _id: 1 } }))).toEqual(ascending);
        expect(ids(await items.find({}, { sort: { v: -1, _id: -1 } }))).toEqual([...ascending].reverse());
      });
    });

    describe('updates', () => {
      async function one(
        update: Record<string, unknown>,
        doc: Record<string, unknown> = { _id: 'u', n: 1, tags: ['a', 'b'], nested: { k: 1 } },
      ) {
        const items = (await fresh()).collection('items');
        await items.insertOne(doc);
        const result = await items.updateOne({ _id: 'u' }, update);
        return { result, doc: await items.findOne({ _id: 'u' }), items };
      }

      it('applies $set on dotted paths and $unset', async () => {
        const { result, doc } = await one({ $set: { 'nested.k': 2, 'deep.er.x': true, s: 'v' }, $unset: { n: '' } });
        expect(result).toEqual({ matchedCount: 1, modifiedCount: 1 });
        expect(doc).toEqual({ _id: 'u', tags: ['a', 'b'], nested: { k: 2 }, deep: { er: { x: true } }, s: 'v' });
      });

      it('applies $inc to existing and missing fields', async () => {
        const { doc } = await one({ $inc: { n: 4, 'nested.k': -1, fresh: 2 } });
        expect(doc).toEqual({ _id: 'u', n: 5, tags: ['a', 'b'], nested: { k: 0 }, fresh: 2 });
      });

      it('applies $push, with $each', async () => {
        const { doc, items } = await one({ $push: { tags: 'c', list: 1 } });
        expect(doc).toMatchObject({ tags: ['a', 'b', 'c'], list: [1] });
        await items.updateOne({ _id: 'u' }, { $push: { tags: { $each: ['d', 'a'] } } });
        expect((await items.findOne({ _id: 'u' }))?.tags).toEqual(['a', 'b', 'c', 'd', 'a']);
      });

      it('applies $pull by value and by condition', async () => {
        const { doc, items } = await one(
          { $pull: { tags: 'a' } },
          { _id: 'u', tags: ['a', 'b', 'a'], nums: [1, 5, 9], objs: [{ k: 1 }, { k: 2 }] },
        );
        expect(doc?.tags).toEqual(['b']);
        await items.updateOne({ _id: 'u' }, { $pull: { nums: { $gt: 4 }, objs: { k: 2 } } });
        expect(await items.findOne({ _id: 'u' })).toEqual({ _id: 'u', tags: ['b'], nums: [1], objs: [{ k: 1 }] });
      });

      it('applies $addToSet, with $each', async () => {
        const { doc, items } = await one({ $addToSet: { tags: 'a' } });
        expect(doc?.tags).toEqual(['a', 'b']);
        await items.updateOne({ _id: 'u' }, { $addToSet: { tags: { $each: ['b', 'c', 'c'] } } });
        expect((await items.findOne({ _id: 'u' }))?.tags).toEqual(['a', 'b', 'c']);
      });

      it('raises a counter in one conditional $inc ($or of $exists:false and $lte) only while it stays within a limit, also when many raise it at once', async () => {
        // a job tree's count on its root job (workflow's countTreeJobs)
        const jobs = (await fresh()).collection('jobs');
        await jobs.insertMany([{ _id: 'root' }, { _id: 'nulled', treeJobs: null }, { _id: 'text', treeJobs: '1' }, { _id: 'busy' }]);
        const LIMIT = 10;
        const countIn = (id: string, count: number) =>
          jobs.updateOne(
            { _id: id, $or: [{ treeJobs: { $exists: false } }, { treeJobs: { $lte: LIMIT - count } }] },
            { $inc: { treeJobs: count } },
          );
        // missing: made with the increment
        expect(await countIn('root', 4)).toEqual({ matchedCount: 1, modifiedCount: 1 });
        expect(await jobs.findOne({ _id: 'root' }, { projection: { treeJobs: 1 } })).toEqual({ _id: 'root', treeJobs: 4 });
        // up to the limit exactly, then no further
        expect(await countIn('root', 6)).toEqual({ matchedCount: 1, modifiedCount: 1 });
        expect(await countIn('root', 1)).toEqual({ matchedCount: 0, modifiedCount: 0 });
        expect(await jobs.findOne({ _id: 'root' })).toEqual({ _id: 'root', treeJobs: LIMIT });
        // null is present (not $exists:false) and no number ($lte compares numbers with numbers only); a string neither
        expect(await countIn('nulled', 1)).toEqual({ matchedCount: 0, modifiedCount: 0 });
        expect(await countIn('text', 1)).toEqual({ matchedCount: 0, modifiedCount: 0 });
        expect(await countIn('gone', 1)).toEqual({ matchedCount: 0, modifiedCount: 0 });
        expect(sortedIds(await jobs.find({ treeJobs: { $type: 'number' } }))).toEqual(['root']);
        // twelve raising by 2 at once under a limit of 10: exactly five are counted, whatever their order
        const raised = await Promise.all(Array.from({ length: 12 }, () => countIn('busy', 2)));
        expect(raised.filter((r) => r.matchedCount === 1)).toHaveLength(5);
        expect(raised.filter((r) => r.modifiedCount === 1)).toHaveLength(5);
        expect(await jobs.findOne({ _id: 'busy' })).toEqual({ _id: 'busy', treeJobs: LIMIT });
      });

      it('counts matched and modified documents', async () => {
        const items = (await fresh()).collection('items');
        await items.insertMany([
          { _id: '1', g: 1, v: 0 },
          { _id: '2', g: 1, v: 1 },
          { _id: '3', g: 2, v: 1 },
        ]);
        expect(await items.updateMany({ g: 1 }, { $set: { v: 1 } })).toEqual({ matchedCount: 2, modifiedCount: 1 });
        expect(await items.updateOne({ g: 1 }, { $set: { v: 1 } })).toEqual({ matchedCount: 1, modifiedCount: 0 });
        expect(await items.updateOne({ g: 9 }, { $set: { v: 1 } })).toEqual({ matchedCount: 0, modifiedCount: 0 });
        expect(await items.updateMany({}, { $inc: { v: 1 } })).toEqual({ matchedCount: 3, modifiedCount: 3 });
        expect(sortedIds(await items.find({ v: 2 }))).toEqual(['1', '2', '3']);
      });

      it('ignores $setOnInsert on a match and applies it on an upsert, seeded from the filter equalities', async () => {
        const items = (await fresh()).collection('items');
        const filter = { name: 'n1', 'meta.kind': 'x', score: { $gt: 5 }, $and: [{ zone: { $eq: 'z1' } }] };
        const first = await items.updateOne(filter, { $set: { v: 1 }, $setOnInsert: { created: true } }, { upsert: true });
        expect(first.matchedCount).toBe(0);
        expect(first.upsertedId).toMatch(UUID);
        const inserted = await items.findOne({ _id: first.upsertedId as string });
        expect(inserted).toEqual({ _id: first.upsertedId, name: 'n1', meta: { kind: 'x' }, zone: 'z1', v: 1, created: true });
        await items.updateOne({ _id: first.upsertedId as string }, { $set: { score: 6 } });
        const second = await items.updateOne(filter, { $set: { v: 2 }, $setOnInsert: { created: false } }, { upsert: true });
        expect(second).toEqual({ matchedCount: 1, modifiedCount: 1 });
        expect(await items.findOne({ name: 'n1' }, { projection: { v: 1, created: 1, _id: 0 } })).toEqual({ v: 2, created: true });
        const pinned = await items.updateOne({ _id: 'given' }, { $inc: { n: 1 } }, { upsert: true });
        expect(pinned.upsertedId).toBe('given');
        expect(await items.findOne({ _id: 'given' })).toEqual({ _id: 'given', n: 1 });
      });

      it('refuses malformed updates with BAD_REQUEST and changes nothing', async () => {
        const items = (await fresh()).collection('items');
        await items.insertOne({ _id: 'u', n: 1, s: 'text', z: null });
        await expect(items.updateOne({ _id: 'u' }, { $nope: { n: 2 } })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
        await expect(items.updateOne({ _id: 'u' }, { n: 2 })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
        await expect(items.updateOne({ _id: 'u' }, { $inc: { s: 1 } })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
        await expect(items.updateOne({ _id: 'u' }, { $set: { _id: 'other' } })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
        // null is a value of the wrong type, not a missing field: MongoDB refuses these (the embedded store did nothing)
        for (const update of [{ $inc: { z: 1 } }, { $mul: { z: 2 } }, { $push: { z: 1 } }, { $addToSet: { z: 1 } }, { $pull: { z: 1 } }])
          await expect(items.updateOne({ _id: 'u' }, update)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
        expect(await items.find({})).toEqual([{ _id: 'u', n: 1, s: 'text', z: null }]);
      });
    });

    describe('findOneAndUpdate', () => {
      it('returns the document before or after, picks by sort, projects, and returns null without a match', async () => {
        const jobs = (await fresh()).collection('jobs');
        await jobs.insertMany([
          { _id: 'j1', state: 'ready', priority: 2 },
          { _id: 'j2', state: 'ready', priority: 1 },
          { _id: 'j3', state: 'done', priority: 0 },
        ]);
        const before = await jobs.findOneAndUpdate({ state: 'ready' }, { $set: { state: 'running' } }, { sort: { priority: 1 } });
        expect(before).toEqual({ _id: 'j2', state: 'ready', priority: 1 });
        const after = await jobs.findOneAndUpdate(
          { state: 'ready' },
          { $set: { state: 'running' } },
          { sort: { priority: 1 }, returnDocument: 'after', projection: { state: 1 } },
        );
        expect(after).toEqual({ _id: 'j1', state: 'running' });
        expect(await jobs.findOneAndUpdate({ state: 'ready' }, { $set: { state: 'running' } })).toBeNull();
        expect(await jobs.countDocuments({ state: 'running' })).toBe(2);
      });

      it('upserts, returning the new document after and null before', async () => {
        const items = (await fresh()).collection('items');
        const after = await items.findOneAndUpdate({ key: 'k1' }, { $inc: { n: 1 } }, { upsert: true, returnDocument: 'after' });
        expect(after).toEqual({ _id: expect.stringMatching(UUID), key: 'k1', n: 1 });
        expect(await items.findOneAndUpdate({ key: 'k2' }, { $inc: { n: 1 } }, { upsert: true })).toBeNull();
        expect(await items.countDocuments({})).toBe(2);
        expect((await items.findOne({ key: 'k2' }))?._id).toMatch(UUID);
      });

      it('is atomic: 50 concurrent increments give 50, each sees a distinct value', async () => {
        const counters = (await fresh()).collection('counters');
        await counters.insertOne({ _id: 'c', n: 0 });
        const results = await Promise.all(
          Array.from({ length: 50 }, () => counters.findOneAndUpdate({ _id: 'c' }, { $inc: { n: 1 } }, { returnDocument: 'after' })),
        );
        expect((await counters.findOne({ _id: 'c' }))?.n).toBe(50);
        expect(new Set(results.map((r) => r?.n)).size).toBe(50);
      });

      it('hands each queued job to exactly one of many concurrent claimers', async () => {
        const jobs = (await fresh()).collection('jobs');
        await jobs.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: `job-${i}`, state: 'ready' })));
        const claims = await Promise.all(
          Array.from({ length: 40 }, (_, worker) =>
            jobs.findOneAndUpdate({ state: 'ready' }, { $set: { state: 'taken', worker } }, { returnDocument: 'after' }),
          ),
        );
        const taken = claims.filter((c): c is Doc => c !== null);
        expect(taken).toHaveLength(20);
        expect(new Set(taken.map((c) => c._id)).size).toBe(20);
        expect(await jobs.countDocuments({ state: 'ready' })).toBe(0);
      });
    });

    describe('indexes', () => {
      it('creates, names and lists indexes; creating them again changes nothing', async () => {
        const store = await fresh();
        const items = store.collection('items');
        const specs: IndexSpec[] = [
          { keys: { email: 1 }, unique: true },
          { keys: { group: 1, n: -1 } },
          { name: 'custom', keys: { x: 1 }, unique: true, sparse: true },
        ];
        await items.createIndexes(specs);
        await items.createIndexes(specs);
        const listed = (await items.listIndexes()).sort((a, b) => a.name.localeCompare(b.name));
        expect(listed).toEqual([
          { name: 'custom', keys: { x: 1 }, unique: true, sparse: true },
          { name: 'email_1', keys: { email: 1 }, unique: true, sparse: false },
          { name: 'group_1_n_-1', keys: { group: 1, n: -1 }, unique: false, sparse: false },
        ]);
        expect(await store.collection('untouched').listIndexes()).toEqual([]);
      });

      it('drops an index by name, its entries with it; an unknown name drops nothing', async () => {
        const store = await fresh();
        const items = store.collection('drop-items');
        await items.createIndexes([
          { keys: { email: 1 }, unique: true },
          { name: 'by_group', keys: { group: 1 } },
        ]);
        await items.insertMany([
          { email: 'a@example.com', group: 'g' },
          { email: 'b@example.com', group: 'g' },
        ]);
        expect(await items.dropIndex('email_1')).toBe(true);
        expect(await items.dropIndex('email_1')).toBe(false);
        expect(await items.dropIndex('never-made')).toBe(false);
        expect(await store.collection('no-such-collection').dropIndex('x_1')).toBe(false);
        expect((await items.listIndexes()).map((i) => i.name)).toEqual(['by_group']);
        // the unique constraint went with the index; the other index still answers queries
        await items.insertOne({ email: 'a@example.com', group: 'h' });
        expect(await items.countDocuments({ email: 'a@example.com' })).toBe(2);
        expect(await items.countDocuments({ group: 'g' })).toBe(2);
        // made again under another name over the same keys, it sees every document
        await items.createIndexes([{ name: 'email_again', keys: { email: 1 } }]);
        expect(await items.countDocuments({ email: 'a@example.com' })).toBe(2);
        await expect(items.dropIndex('_id_')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      });

      it("compares declared indexes with the store's and creates what is missing or misnamed, leaving undeclared ones", async () => {
        const store = await fresh();
        const declared = new DeclaredIndexes(store, {
          runs: [{ keys: { started: -1 } }, { keys: { device: 1 } }, { name: 'by_job', keys: { job: 1 }, unique: true, sparse: true }],
        });
        const runs = store.collection('runs');
        await runs.insertMany([
          { started: 1, device: 'a', job: 'j1' },
          { started: 2, device: 'b' },
        ]);
        await runs.createIndexes([{ keys: { started: -1 } }, { name: 'dev', keys: { device: 1 } }, { name: 'extra', keys: { note: 1 } }]);
        const before = await declared.status('runs');
        expect(before.indexed.map((i) => i.name)).toEqual(['started_-1']);
        expect(before.misnamed.map((m) => [m.expected.name, m.actual.name])).toEqual([['device_1', 'dev']]);
        expect(before.missing).toEqual([{ name: 'by_job', keys: { job: 1 }, unique: true, sparse: true }]);
        expect(before.external.map((i) => i.name)).toEqual(['extra']);
        expect(await declared.create('runs')).toEqual({ collection: 'runs', unchanged: 1, changed: 2, total: 3, running: 0 });
        const after = await declared.status('runs');
        expect({ missing: after.missing, misnamed: after.misnamed, external: after.external.map((i) => i.name) }).toEqual({
          missing: [],
          misnamed: [],
          external: ['extra'],
        });
        expect((await runs.listIndexes()).map((i) => i.name).sort()).toEqual(['by_job', 'device_1', 'extra', 'started_-1']);
        // the recreated index serves queries over the existing documents
        expect(await runs.countDocuments({ device: 'b' })).toBe(1);
        await expect(declared.status('other')).rejects.toMatchObject({ code: 'INDEX_COLLECTION_NOT_FOUND' });
      });

      it('lists collections that hold documents or indexes', async () => {
        const store = await fresh();
        await store.collection('alpha').insertOne({ a: 1 });
        await store.collection('beta').createIndexes([{ keys: { b: 1 } }]);
        store.collection('gamma');
        const names = await store.listCollections();
        expect(names).toEqual(expect.arrayContaining(['alpha', 'beta']));
        expect(names).not.toContain('gamma');
      });

      it('refuses a duplicate key on insert, update, upsert, replace and findOneAndUpdate, writing nothing', async () => {
        const users = (await fresh()).collection('users');
        await users.createIndexes([{ keys: { email: 1 }, unique: true }]);
        await users.insertMany([
          { _id: 'u1', email: 'a@example.com', name: 'A' },
          { _id: 'u2', email: 'b@example.com', name: 'B' },
        ]);
        const duplicate = { code: 'STORE_DUPLICATE_KEY', status: 409, details: { index: 'email_1', key: { email: 'a@example.com' } } };
        await expect(users.insertOne({ email: 'a@example.com', name: 'C' })).rejects.toMatchObject(duplicate);
        await expect(users.updateOne({ _id: 'u2' }, { $set: { email: 'a@example.com', name: 'changed' } })).rejects.toMatchObject(
          duplicate,
        );
        await expect(users.updateOne({ name: 'Z' }, { $set: { email: 'a@example.com' } }, { upsert: true })).rejects.toMatchObject(
          duplicate,
        );
        await expect(users.replaceOne({ _id: 'u2' }, { email: 'a@example.com', name: 'R' })).rejects.toMatchObject(duplicate);
        await expect(
          users.findOneAndUpdate({ _id: 'u2' }, { $set: { email: 'a@example.com', name: 'F' } }, { returnDocument: 'after' }),
        ).rejects.toMatchObject(duplicate);
        expect(await users.find({}, { sort: { _id: 1 } })).toEqual([
          { _id: 'u1', email: 'a@example.com', name: 'A' },
          { _id: 'u2', email: 'b@example.com', name: 'B' },
        ]);
        // The refused writes left no index entry behind: the old key is still taken, the new one free.
        await expect(users.insertOne({ email: 'b@example.com' })).rejects.toMatchObject({ code: 'STORE_DUPLICATE_KEY' });
        await users.updateOne({ _id: 'u2' }, { $set: { email: 'c@example.com' } });
        await users.insertOne({ _id: 'u3', email: 'b@example.com' });
        expect(await users.countDocuments({})).toBe(3);
      });

      it('enforces compound, multikey, sparse and non-sparse unique indexes', async () => {
        const store = await fresh();
        const pairs = store.collection('pairs');
        await pairs.createIndexes([{ keys: { a: 1, b: 1 }, unique: true }]);
        await pairs.insertMany([
          { a: 1, b: 1 },
          { a: 1, b: 2 },
          { a: 2, b: 1 },
        ]);
        await expect(pairs.insertOne({ a: 1, b: 1 })).rejects.toMatchObject({
          code: 'STORE_DUPLICATE_KEY',
          details: { key: { a: 1, b: 1 } },
        });

        const tagged = store.collection('tagged');
        await tagged.createIndexes([{ keys: { tags: 1 }, unique: true }]);
        await tagged.insertOne({ tags: ['a', 'b'] });
        await tagged.insertOne({ tags: ['c', 'c'] });
        await expect(tagged.insertOne({ tags: ['d', 'b'] })).rejects.toMatchObject({
          code: 'STORE_DUPLICATE_KEY',
          details: { key: { tags: 'b' } },
        });

        const sparse = store.collection('sparse');
        await sparse.createIndexes([{ keys: { code: 1 }, unique: true, sparse: true }]);
        await sparse.insertMany([{ name: 'x' }, { name: 'y' }, { code: 'k1' }]);
        await expect(sparse.insertOne({ code: 'k1' })).rejects.toMatchObject({ code: 'STORE_DUPLICATE_KEY' });

        const dense = store.collection('dense');
        await dense.createIndexes([{ keys: { code: 1 }, unique: true }]);
        await dense.insertOne({ name: 'x' });
        await expect(dense.insertOne({ name: 'y' })).rejects.toMatchObject({
          code: 'STORE_DUPLICATE_KEY',
          details: { key: { code: null } },
        });
      });

      it('refuses a unique index over existing duplicates and does not create it', async () => {
        const items = (await fresh()).collection('items');
        await items.insertMany([{ k: 1 }, { k: 2 }, { k: 1 }]);
        await expect(items.createIndexes([{ keys: { k: 1 }, unique: true }])).rejects.toMatchObject({ code: 'STORE_DUPLICATE_KEY' });
        expect(await items.listIndexes()).toEqual([]);
        await items.insertOne({ k: 2 });
        expect(await items.countDocuments({ k: 2 })).toBe(2);
      });

      it('refuses a sparse unique index over documents sharing a value, naming the index and the value (null is one, a missing field is none), and makes it once they are resolved', async () => {
        // studio's index on a form's id: made at start over forms a release without it stored
        const forms = (await fresh()).collection('forms');
        const FORM_ID = { name: 'id_1', keys: { id: 1 }, unique: true, sparse: true } as const;
        await forms.insertMany([
          { _id: 'f1', id: 'ext-1' },
          { _id: 'f2', id: 'ext-1' },
          { _id: 'f3' },
          { _id: 'f4' },
          { _id: 'f5', id: 'ext-5' },
        ]);
        await expect(forms.createIndexes([FORM_ID])).rejects.toMatchObject({
          code: 'STORE_DUPLICATE_KEY',
          status: 409,
          details: { index: 'id_1', key: { id: 'ext-1' } },
        });
        expect(await forms.listIndexes()).toEqual([]);
        await forms.updateOne({ _id: 'f2' }, { $set: { id: null } });
        await forms.insertOne({ _id: 'f6', id: null });
        // a sparse index holds the documents where the field is present, null included
        await expect(forms.createIndexes([FORM_ID])).rejects.toMatchObject({
          code: 'STORE_DUPLICATE_KEY',
          details: { index: 'id_1', key: { id: null } },
        });
        await forms.updateOne({ _id: 'f6' }, { $unset: { id: '' } });
        await forms.createIndexes([FORM_ID]);
        expect(await forms.listIndexes()).toEqual([{ name: 'id_1', keys: { id: 1 }, unique: true, sparse: true }]);
        await expect(forms.insertOne({ id: 'ext-5' })).rejects.toMatchObject({ details: { index: 'id_1', key: { id: 'ext-5' } } });
        await expect(forms.insertOne({ id: null })).rejects.toMatchObject({ details: { index: 'id_1', key: { id: null } } });
        await forms.insertMany([{ _id: 'f7' }, { _id: 'f8', id: 'ext-8' }]);
        expect(await forms.countDocuments({ id: { $exists: false } })).toBe(4);
      });

      it('gives the same results with indexes as without', async () => {
        const store = await fresh();
        const indexed = store.collection('indexed');
        const plain = store.collection('plain');
        await indexed.createIndexes([
          { keys: { n: 1 } },
          { keys: { s: 1 } },
          { keys: { tags: 1 } },
          { keys: { grp: 1, n: -1 } },
          { keys: { at: -1 } },
          { keys: { 'nested.k': 1 } },
          { keys: { flag: 1, s: -1 } },
        ]);
        const random = sequence(42);
        const words = ['alpha', 'beta', 'Gamma', 'delta', 'é-accent', 'zeta', ''];
        const long = 'L'.repeat(1500);
        const docs = Array.from({ length: 300 }, (_, i) => {
          const doc: Record<string, unknown> = { _id: `d${String(i).padStart(3, '0')}` };
          if (random() < 0.9) doc.n = Math.floor(random() * 40) - 5;
          if (random() < 0.1) doc.n = random() < 0.5 ? null : 2.5;
          doc.s = random() < 0.05 ? `${long}${Math.floor(random() * 3)}` : (words[Math.floor(random() * words.length)] as string);
          if (random() < 0.7) doc.tags = words.filter(() => random() < 0.3);
          doc.grp = `g${Math.floor(random() * 4)}`;
          doc.at = new Date(Date.UTC(2026, 0, 1 + Math.floor(random() * 30)));
          if (random() < 0.8) doc.nested = { k: Math.floor(random() * 10) };
          doc.flag = random() < 0.5;
          return doc;
        });
        await indexed.insertMany(docs);
        await plain.insertMany(docs);
        const queries: [Record<string, unknown>, { sort?: Record<string, 1 | -1>; skip?: number; limit?: number }][] = [
          [{ n: 7 }, {}],
          [{ n: { $in: [1, 2, 3, null] } }, {}],
          [{ n: { $gte: 10, $lt: 20 } }, { sort: { n: 1, _id: 1 } }],
          [{ n: { $gt: 30 } }, { sort: { n: -1, _id: 1 }, limit: 5 }],
          [{ n: null }, {}],
          [{ s: 'beta' }, { sort: { _id: -1 } }],
          [{ s: { $gt: 'b', $lte: 'delta' } }, { sort: { s: 1, _id: 1 } }],
          [{ s: `${long}1` }, {}],
          [{ s: { $gte: long } }, { sort: { s: -1, _id: 1 } }],
          [{ tags: 'zeta' }, { sort: { n: 1, _id: 1 } }],
          [{ tags: { $in: ['alpha', 'beta'] } }, {}],
          [{ grp: 'g1' }, { sort: { n: -1, _id: 1 }, skip: 3, limit: 7 }],
          [{ grp: 'g2', n: { $lt: 10 } }, { sort: { n: -1, _id: 1 } }],
          [{ grp: { $in: ['g0', 'g3'] } }, { sort: { grp: 1, n: -1, _id: 1 }, limit: 20 }],
          [{}, { sort: { at: -1, _id: 1 }, skip: 10, limit: 10 }],
          [{ at: { $gte: new Date(Date.UTC(2026, 0, 10)) } }, { sort: { at: 1, _id: 1 } }],
          [{ 'nested.k': { $lte: 3 } }, { sort: { 'nested.k': -1, _id: 1 } }],
          [{ flag: true }, { sort: { s: -1, _id: 1 }, limit: 15 }],
          [{ flag: false, s: { $ne: 'beta' } }, { sort: { s: 1, _id: 1 } }],
          [{ $and: [{ n: { $gte: 0 } }, { n: { $lte: 5 } }], grp: 'g0' }, { sort: { _id: 1 } }],
          [{ $or: [{ n: 1 }, { s: 'zeta' }] }, { sort: { _id: 1 } }],
          [{ n: { $gt: 5 }, tags: { $size: 2 } }, { sort: { n: 1, _id: 1 } }],
          [{}, { sort: { n: 1, _id: 1 }, limit: 40 }],
          [{}, { sort: { s: 1, _id: 1 }, skip: 250 }],
          [{ n: 3, s: 'nothing-like-this' }, {}],
          [{}, { sort: { _id: -1 }, skip: 5, limit: 5 }],
          [{ grp: 'g3' }, { sort: { n: -1, _id: 1 }, skip: 40 }],
        ];
        for (const [filter, options] of queries) {
          const fromIndex = await indexed.find(filter, options);
          const fromScan = await plain.find(filter, options);
          const sorted = options.sort !== undefined;
          expect({ filter, options, ids: sorted ? ids(fromIndex) : sortedIds(fromIndex) }).toEqual({
            filter,
            options,
            ids: sorted ? ids(fromScan) : sortedIds(fromScan),
          });
          expect(await indexed.countDocuments(filter)).toBe(await plain.countDocuments(filter));
        }
        // Updates keep the indexes in step ($inc on an n of null would be refused, as MongoDB refuses it).
        await indexed.updateMany({ grp: 'g1', n: { $ne: null } }, { $inc: { n: 100 }, $push: { tags: 'new' } });
        await plain.updateMany({ grp: 'g1', n: { $ne: null } }, { $inc: { n: 100 }, $push: { tags: 'new' } });
        await indexed.deleteMany({ grp: 'g2' });
        await plain.deleteMany({ grp: 'g2' });
        for (const [filter, options] of [
          [{ n: { $gt: 90 } }, { sort: { n: 1, _id: 1 } }],
          [{ tags: 'new' }, { sort: { _id: 1 } }],
          [{ grp: 'g2' }, {}],
          [{}, { sort: { grp: 1, n: -1, _id: 1 } }],
        ] as const) {
          expect(ids(await indexed.find(filter, options))).toEqual(ids(await plain.find(filter, options)));
        }
      });
    });

    describe('the same as MongoDB', () => {
      const MIB = 1024 * 1024;

      it('refuses a document over 16 MiB with STORE_DOCUMENT_TOO_LARGE on insert, replace and update, changing nothing', async () => {
        const items = (await fresh()).collection('items');
        const tooLarge = { code: 'STORE_DOCUMENT_TOO_LARGE', status: 413, details: { collection: 'items', limitBytes: 16 * MIB } };
        await expect(items.insertOne({ _id: 'big', s: 'x'.repeat(16 * MIB) })).rejects.toMatchObject(tooLarge);
        await expect(items.insertOneId({ _id: 'big', s: 'x'.repeat(16 * MIB) })).rejects.toMatchObject(tooLarge);
        await items.insertOne({ _id: 'fits', s: 'x'.repeat(15 * MIB) });
        await expect(items.updateOne({ _id: 'fits' }, { $set: { t: 'y'.repeat(2 * MIB) } })).rejects.toMatchObject(tooLarge);
        await expect(items.findOneAndUpdate({ _id: 'fits' }, { $set: { t: 'y'.repeat(2 * MIB) } })).rejects.toMatchObject(tooLarge);
        await expect(items.replaceOne({ _id: 'fits' }, { s: 'z'.repeat(17 * MIB) })).rejects.toMatchObject(tooLarge);
        const kept = await items.findOne({ _id: 'fits' }, { projection: { t: 1 } });
        expect(kept).toEqual({ _id: 'fits' });
        expect(await items.countDocuments({})).toBe(1);
      });

      it('leaves undefined members out of documents and updates, and reads undefined in a filter as null', async () => {
        const items = (await fresh()).collection('items');
        await items.insertOne({ _id: 'u1', a: undefined, b: 1, nested: { c: undefined, d: 2 }, list: [undefined, 1] });
        await items.insertOne({ _id: 'u2', a: 5, b: 2 });
        expect(await items.findOne({ _id: 'u1' })).toEqual({ _id: 'u1', b: 1, nested: { d: 2 }, list: [null, 1] });
        expect(ids(await items.find({ a: { $exists: false } }))).toEqual(['u1']);
        expect(ids(await items.find({ 'nested.c': { $exists: true } }))).toEqual([]);
        await items.updateOne({ _id: 'u1' }, { $set: { b: undefined, e: 3 } });
        expect(await items.findOne({ _id: 'u1' }, { projection: { b: 1, e: 1 } })).toEqual({ _id: 'u1', b: 1, e: 3 });
        // never `{}`: undefined in a filter matches what null matches (a missing field), nothing else
        expect(ids(await items.find({ a: undefined }))).toEqual(['u1']);
        expect(await items.countDocuments({ a: undefined, b: 1 })).toBe(1);
        expect(await items.deleteMany({ a: undefined })).toBe(1);
        expect(ids(await items.find({}))).toEqual(['u2']);
      });

      it('breaks ties of every sort by _id ascending, with or without an index, in both directions, so pages never repeat', async () => {
        const store = await fresh();
        const data = [
          { _id: 'd', g: 1 },
          { _id: 'a', g: 2 },
          { _id: 'f', g: 1 },
          { _id: 'c', g: 2 },
          { _id: 'b', g: 1 },
          { _id: 'e', g: 2 },
        ];
        const up = store.collection('ties-up');
        const down = store.collection('ties-down');
        const plain = store.collection('ties-plain');
        await up.createIndexes([{ keys: { g: 1 } }]);
        await down.createIndexes([{ keys: { g: -1 } }]);
        for (const items of [up, down, plain]) {
          await items.insertMany(data);
          expect(ids(await items.find({}, { sort: { g: 1 } }))).toEqual(['b', 'd', 'f', 'a', 'c', 'e']);
          expect(ids(await items.find({}, { sort: { g: -1 } }))).toEqual(['a', 'c', 'e', 'b', 'd', 'f']);
          expect(ids(await items.find({ g: 2 }, { sort: { g: 1 } }))).toEqual(['a', 'c', 'e']);
          const pages = [];
          for (let skip = 0; skip < 6; skip += 2) pages.push(...ids(await items.find({}, { sort: { g: -1 }, skip, limit: 2 })));
          expect(pages).toEqual(['a', 'c', 'e', 'b', 'd', 'f']);
          expect((await items.findOne({}, { sort: { g: 1 } }))?._id).toBe('b');
          expect((await items.findOneAndUpdate({ g: 2 }, { $set: { seen: true } }, { sort: { g: -1 } }))?._id).toBe('a');
        }
      });

      it('inserts many in order: those before a refused document stay, the rest are not inserted, and the error says how many went in', async () => {
        const items = (await fresh()).collection('items');
        await items.insertOne({ _id: 'b', n: 0 });
        await expect(items.insertMany([{ _id: 'a' }, { _id: 'b' }, { _id: 'c' }])).rejects.toMatchObject({
          code: 'STORE_DUPLICATE_KEY',
          details: { index: '_id_', key: { _id: 'b' }, insertedCount: 1 },
        });
        expect(sortedIds(await items.find({}))).toEqual(['a', 'b']);
        await expect(items.insertMany([{ _id: 'x' }, { _id: 'y', s: 'x'.repeat(17 * MIB) }, { _id: 'z' }])).rejects.toMatchObject({
          code: 'STORE_DOCUMENT_TOO_LARGE',
          details: { insertedCount: 1 },
        });
        expect(sortedIds(await items.find({}))).toEqual(['a', 'b', 'x']);
      });

      it('makes a misnamed unique index again under its declared name, unique all along, with no bridge left', async () => {
        const store = await fresh();
        const runs = store.collection('runs');
        await runs.insertMany([{ job: 'j1' }, { job: 'j2' }]);
        await runs.createIndexes([{ keys: { job: 1 }, unique: true }]);
        const declared = new DeclaredIndexes(store, { runs: [{ name: 'by_job', keys: { job: 1 }, unique: true }] });
        expect((await declared.status('runs')).misnamed.map((m) => [m.expected.name, m.actual.name])).toEqual([['by_job', 'job_1']]);
        await declared.create('runs');
        expect(await runs.listIndexes()).toEqual([{ name: 'by_job', keys: { job: 1 }, unique: true, sparse: false }]);
        await expect(runs.insertOne({ job: 'j1' })).rejects.toMatchObject({ code: 'STORE_DUPLICATE_KEY', details: { index: 'by_job' } });
      });
    });

    describe('persistence', () => {
      it('keeps documents, collections and indexes across a reopen', async () => {
        const store = await fresh();
        const users = store.collection('users');
        await users.createIndexes([{ keys: { email: 1 }, unique: true }, { keys: { age: -1 } }]);
        await users.insertMany([
          { _id: 'u1', email: 'a@example.com', age: 30 },
          { _id: 'u2', email: 'b@example.com', age: 40 },
        ]);
        await users.updateOne({ _id: 'u1' }, { $set: { age: 31 } });
        const again = await reopen(store);
        const reopened = again.collection('users');
        expect(await again.listCollections()).toContain('users');
        expect((await reopened.listIndexes()).map((i) => i.name).sort()).toEqual(['age_-1', 'email_1']);
        expect(await reopened.find({}, { sort: { age: -1 } })).toEqual([
          { _id: 'u2', email: 'b@example.com', age: 40 },
          { _id: 'u1', email: 'a@example.com', age: 31 },
        ]);
        await expect(reopened.insertOne({ email: 'a@example.com' })).rejects.toMatchObject({ code: 'STORE_DUPLICATE_KEY' });
        expect(await reopened.countDocuments({ age: { $gt: 30 } })).toBe(2);
      });
    });
  });
}
