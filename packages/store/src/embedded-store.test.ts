import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWithDeadline } from '@nap/contracts';
import { runStoreContractSuite } from '../test/contract-suite';
import { createEmbeddedStore, createStore, type EmbeddedStore, type Store } from './index';

runStoreContractSuite('EmbeddedStore contract', async () => {
  const root = mkdtempSync(join(tmpdir(), 'nap-store-contract-'));
  let n = 0;
  return {
    open: async () => createEmbeddedStore({ path: join(root, `db-${n++}`) }),
    reopen: async (store: Store) => createEmbeddedStore({ path: (store as EmbeddedStore).path }),
    dispose: async () => rmSync(root, { recursive: true, force: true }),
  };
});

describe('EmbeddedStore', () => {
  let root: string;
  const stores: Store[] = [];
  const open = (name = `db-${stores.length}`): EmbeddedStore => {
    const store = createEmbeddedStore({ path: join(root, name) });
    stores.push(store);
    return store;
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'nap-store-embedded-'));
  });

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    rmSync(root, { recursive: true, force: true });
  });

  describe('query plans', () => {
    let store: EmbeddedStore;
    beforeEach(async () => {
      store = open();
      const items = store.collection('items');
      await items.createIndexes([{ keys: { n: 1 } }, { keys: { grp: 1 } }, { keys: { grp: 1, at: -1 } }, { keys: { tags: 1 } }]);
      await items.insertMany(
        Array.from({ length: 500 }, (_, i) => ({
          _id: `i${String(i).padStart(3, '0')}`,
          n: i,
          grp: `g${i % 5}`,
          at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
          tags: [`t${i % 7}`, `t${i % 11}`],
          s: `s${i}`,
        })),
      );
    });

    it('answers findOneJson from an index, decoding only the members asked for and filtered on', async () => {
      const items = store.collection<{ _id: string; n: number; grp: string; s: string }>('items');
      // without a date: stored as plain members, so the text kept is what is answered
      await items.insertOne({ _id: 'plain', n: 1000, grp: 'p', s: 'é"\\' });
      expect(await items.findOneJson({ n: 1000 }, ['grp'])).toEqual({
        json: JSON.stringify(await items.findOne({ n: 1000 })),
        doc: { grp: 'p' },
      });
      expect(await items.findOneJson({ n: 1000, grp: 'q' }, ['_id'])).toBeNull();
      expect(await store.explain('items', { n: 1000 })).toMatchObject({ plan: 'index', docsExamined: 1 });
    });

    it('reads only the matching documents for equality, $in and ranges on an indexed field', async () => {
      expect(await store.explain('items', { n: 42 })).toMatchObject({ plan: 'index', index: 'n_1', docsExamined: 1, returned: 1 });
      expect(await store.explain('items', { n: { $in: [1, 2, 3, 999] } })).toMatchObject({
        plan: 'index',
        index: 'n_1',
        docsExamined: 3,
        returned: 3,
      });
      expect(await store.explain('items', { n: { $gte: 100, $lt: 110 } })).toMatchObject({
        plan: 'index',
        index: 'n_1',
        docsExamined: 10,
        returned: 10,
      });
      expect(await store.explain('items', { tags: 't3', n: { $lt: 0 } })).toMatchObject({ plan: 'index', docsExamined: 0, returned: 0 });
      expect(await store.explain('items', { _id: { $in: ['i001', 'i002'] } })).toMatchObject({ plan: 'ids', docsExamined: 2 });
      expect(await store.explain('items', { n: { $in: [] } })).toMatchObject({ plan: 'empty', docsExamined: 0 });
    });

    it('pages through an index in sort order without reading every document', async () => {
      // The index answers the (empty) filter exactly, so skipped rows cost keys, not documents.
      const deep = await store.explain('items', {}, { sort: { n: -1 }, skip: 10, limit: 5 });
      expect(deep).toMatchObject({ plan: 'index', index: 'n_1', sortedByIndex: true, docsExamined: 5, returned: 5 });
      // A reverse scan reads one key ahead to find where a group of equal values ends.
      expect(deep.keysExamined).toBeLessThanOrEqual(16);
      expect(await store.explain('items', { grp: 'g2' }, { sort: { at: -1 }, skip: 50, limit: 3 })).toMatchObject({
        index: 'grp_1_at_-1',
        keysExamined: 53,
        docsExamined: 3,
      });
      // A condition the index does not answer needs each skipped document read and tested.
      expect(await store.explain('items', { grp: 'g2', s: { $ne: 'x' } }, { sort: { at: -1 }, skip: 50, limit: 3 })).toMatchObject({
        index: 'grp_1_at_-1',
        docsExamined: 53,
        returned: 3,
      });
      expect(await store.explain('items', { grp: 'g2' }, { sort: { at: -1 }, limit: 3 })).toMatchObject({
        plan: 'index',
        index: 'grp_1_at_-1',
        sortedByIndex: true,
        docsExamined: 3,
      });
      const filteredBySort = await store.explain('items', { s: { $regex: '1$' } }, { sort: { n: 1 }, limit: 4 });
      expect(filteredBySort).toMatchObject({ plan: 'index', index: 'n_1', sortedByIndex: true, returned: 4 });
      expect(filteredBySort.docsExamined).toBeLessThan(40);
    });

    it('scans every document only when no index helps', async () => {
      expect(await store.explain('items', { s: 's7' })).toMatchObject({ plan: 'primary', docsExamined: 500, returned: 1 });
      expect(await store.explain('items', {}, { sort: { s: 1 }, limit: 1 })).toMatchObject({
        plan: 'primary',
        sortedByIndex: false,
        docsExamined: 500,
      });
      // A multikey index narrows filters but cannot give a sort order.
      expect(await store.explain('items', {}, { sort: { tags: 1 }, limit: 1 })).toMatchObject({ plan: 'primary', docsExamined: 500 });
    });

    it('answers an unknown collection with nothing', async () => {
      expect(await store.explain('nothing-here', { n: 1 })).toMatchObject({ plan: 'empty', returned: 0 });
      expect(await store.collection('nothing-here').find({})).toEqual([]);
      expect(await store.collection('nothing-here').countDocuments()).toBe(0);
    });
  });

  describe('lifecycle', () => {
    it('allows one open store per path, and several stores at different paths', async () => {
      const first = open('a');
      const second = open('b');
      expect(() => createEmbeddedStore({ path: join(root, 'a') })).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
      await first.collection('c').insertOne({ _id: 'x', v: 1 });
      await second.collection('c').insertOne({ _id: 'x', v: 2 });
      expect(await first.collection('c').findOne({ _id: 'x' })).toEqual({ _id: 'x', v: 1 });
      expect(await second.collection('c').findOne({ _id: 'x' })).toEqual({ _id: 'x', v: 2 });
      await first.close();
      const again = open('a');
      expect(await again.collection('c').findOne({ _id: 'x' })).toEqual({ _id: 'x', v: 1 });
    });

    it('answers STORE_UNAVAILABLE when the directory cannot be opened', () => {
      const file = join(root, 'a-file');
      writeFileSync(file, 'not a database');
      expect(() => createEmbeddedStore({ path: file })).toThrow(expect.objectContaining({ code: 'STORE_UNAVAILABLE' }));
      // The failed open leaves the path free.
      expect(() => createEmbeddedStore({ path: file })).toThrow(expect.objectContaining({ code: 'STORE_UNAVAILABLE' }));
    });

    it('answers STORE_UNAVAILABLE once closed', async () => {
      const store = open();
      const items = store.collection('items');
      await items.insertOne({ v: 1 });
      await store.close();
      await expect(items.find({})).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', status: 503 });
      await expect(items.insertOne({ v: 2 })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await expect(store.ping()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await store.close();
    });

    it('is what createStore gives without a MongoDB URL, at <dataDir>/<dbName>', async () => {
      const store = createStore({ dataDir: root, dbName: 'svc' });
      stores.push(store);
      expect(store.kind).toBe('embedded');
      expect((store as EmbeddedStore).path).toBe(join(root, 'svc'));
      await store.collection('c').insertOne({ v: 1 });
      expect(existsSync(join(root, 'svc', 'data.mdb'))).toBe(true);
      const mongo = createStore({ dataDir: root, dbName: 'svc', mongoUrl: 'mongodb://127.0.0.1:1' });
      expect(mongo.kind).toBe('mongo');
      await mongo.close();
    });
  });

  describe('edge cases', () => {
    it('keeps unique long strings apart when only their beginnings are equal', async () => {
      const docs = open().collection('docs');
      await docs.createIndexes([
        { keys: { body: 1 }, unique: true },
        { keys: { meta: 1 }, unique: true, sparse: true },
      ]);
      const head = 'x'.repeat(3000);
      await docs.insertOne({ body: `${head}a` });
      await docs.insertOne({ body: `${head}b` });
      await expect(docs.insertOne({ body: `${head}a` })).rejects.toMatchObject({ code: 'STORE_DUPLICATE_KEY' });
      expect(await docs.countDocuments({ body: `${head}b` })).toBe(1);
      expect(await docs.countDocuments({ body: { $gt: `${head}a` } })).toBe(1);
      await docs.insertOne({ body: 'm1', meta: { a: 1 } });
      await docs.insertOne({ body: 'm2', meta: { a: 2 } });
      await expect(docs.insertOne({ body: 'm3', meta: { a: 1 } })).rejects.toMatchObject({ code: 'STORE_DUPLICATE_KEY' });
    });

    it('refuses ids it cannot store and parallel arrays in a compound index', async () => {
      const docs = open().collection('docs');
      await expect(docs.insertOne({ _id: 7 as unknown as string })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      await expect(docs.insertOne({ _id: '' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      await expect(docs.insertOne({ _id: 'i'.repeat(600) })).rejects.toMatchObject({ code: 'STORE_KEY_TOO_LONG', status: 400 });
      await docs.createIndexes([{ keys: { a: 1, b: 1 } }]);
      await docs.insertOne({ a: [1, 2], b: 3 });
      await expect(docs.insertOne({ a: [1, 2], b: [3, 4] })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      expect(await docs.countDocuments()).toBe(1);
    });

    it('treats names of Object.prototype members as ordinary names', async () => {
      const store = open();
      const odd = store.collection('constructor');
      await odd.createIndexes([{ keys: { constructor: 1 } as const }, { keys: { toString: 1 } as const, unique: true, sparse: true }]);
      await odd.insertMany([{ _id: 'a', constructor: 1 }, { _id: 'b' }, { _id: 'c', toString: 'x' }]);
      expect((await odd.find({ constructor: null })).map((d) => d._id).sort()).toEqual(['b', 'c']);
      expect((await odd.find({ constructor: 1 })).map((d) => d._id)).toEqual(['a']);
      expect(await store.listCollections()).toEqual(['constructor']);
    });

    it('stores dates, regular expressions, binary and non-finite numbers', async () => {
      const docs = open().collection('docs');
      const doc = {
        _id: 'v',
        at: new Date(5),
        re: /ab+c/i,
        bin: Buffer.from([1, 2, 3]),
        inf: Number.POSITIVE_INFINITY,
        list: [new Date(7), 1],
      };
      await docs.insertOne(doc);
      const back = await docs.findOne({ _id: 'v' });
      expect(back).toEqual({
        _id: 'v',
        at: new Date(5),
        re: /ab+c/i,
        bin: Buffer.from([1, 2, 3]),
        inf: Number.POSITIVE_INFINITY,
        list: [new Date(7), 1],
      });
      expect(back?.at).toBeInstanceOf(Date);
      expect(await docs.countDocuments({ at: { $lt: new Date(6) } })).toBe(1);
      // one such value alone, deep down, is kept as well (inserted one by one and together)
      const deep = [
        { _id: 'd1', a: { b: { c: [{ at: new Date(9) }] } } },
        { _id: 'd2', a: { b: [1, { n: Number.NaN }] } },
        { _id: 'd3', a: [{ re: /x/g }] },
        { _id: 'd4', a: { b: 1 } },
      ];
      await docs.insertOne(deep[0] as Record<string, unknown>);
      await docs.insertMany(deep.slice(1));
      expect(await docs.find({ _id: { $in: ['d1', 'd2', 'd3', 'd4'] } }, { sort: { _id: 1 } })).toEqual(deep);
    });
  });

  describe('what only MongoDB has', () => {
    it('refuses partial, TTL and collation indexes, naming the index, rather than index every document as if they held', async () => {
      const docs = open().collection('docs');
      for (const option of [
        { partialFilterExpression: { a: { $exists: true } } },
        { expireAfterSeconds: 60 },
        { collation: { locale: 'en' } },
      ]) {
        await expect(docs.createIndexes([{ name: 'special', keys: { a: 1 }, ...option }])).rejects.toMatchObject({
          code: 'BAD_REQUEST',
          message: expect.stringContaining('"special"'),
        });
      }
      expect(await docs.listIndexes()).toEqual([]);
    });
  });

  describe('keys too long for LMDB', () => {
    it('refuses over-long ids with 400 STORE_KEY_TOO_LONG on reads and writes, and keys long indexed values by a prefix', async () => {
      const docs = open().collection('docs');
      await docs.createIndexes([{ keys: { name: 1 }, unique: true }]);
      const longId = 'i'.repeat(7_000);
      await expect(docs.insertOne({ _id: longId })).rejects.toMatchObject({ code: 'STORE_KEY_TOO_LONG', status: 400 });
      await expect(docs.findOne({ _id: longId })).rejects.toMatchObject({ code: 'STORE_KEY_TOO_LONG' });
      expect(await docs.countDocuments({})).toBe(0);
      // long indexed values are keyed by a prefix, so they store and query without a key error
      await docs.insertOne({ _id: 'ok', name: 'n'.repeat(7_000) });
      expect((await docs.find({ name: 'n'.repeat(7_000) })).map((d) => d._id)).toEqual(['ok']);
      expect(await docs.countDocuments({})).toBe(1);
    });
  });

  describe('the request deadline', () => {
    it('refuses calls that would start past the deadline of the request in scope, and only while the request runs', async () => {
      const docs = open().collection('docs');
      await docs.insertOne({ _id: 'a' });
      const expired = Date.now() - 1;
      await expect(runWithDeadline(expired, () => docs.findOne({ _id: 'a' }))).rejects.toMatchObject({ code: 'TIMEOUT', status: 504 });
      await expect(runWithDeadline(expired, () => docs.insertOne({ _id: 'b' }))).rejects.toMatchObject({ code: 'TIMEOUT' });
      expect(await runWithDeadline(Date.now() + 60_000, () => docs.findOne({ _id: 'a' }))).toEqual({ _id: 'a' });
      // work started by a request that outlives it (a job's runner) is no longer bound by it
      let later: Promise<unknown> | undefined;
      await runWithDeadline(Date.now() + 20, async () => {
        later = new Promise((resolve) => setTimeout(resolve, 40)).then(() => docs.insertOne({ _id: 'c' }));
      });
      await expect(later).resolves.toEqual({ _id: 'c' });
      expect(await docs.countDocuments({})).toBe(2);
    });
  });

  describe('group commit', () => {
    it('commits the writes of one turn together; one that fails leaves the others of its batch and nothing of its own', async () => {
      const docs = open().collection('docs');
      await docs.createIndexes([{ keys: { name: 1 }, unique: true }]);
      await docs.insertMany([
        { _id: 'taken', name: 'taken', tag: 't' },
        { _id: 'twin', name: 'twin', tag: 't' },
      ]);
      const results = await Promise.allSettled([
        docs.insertOne({ _id: 'a', name: 'a' }),
        // an index build that fails after it wrote entries: rolled back, alone
        docs.createIndexes([{ keys: { tag: 1 }, unique: true }]),
        docs.updateOne({ _id: 'taken' }, { $set: { 'deep.er.value': 1 } }),
        docs.insertOne({ _id: 'b', name: 'taken' }),
        docs.insertOne({ _id: 'c', name: 'c' }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
      expect((await docs.find({}, { sort: { _id: 1 } })).map((d) => d._id)).toEqual(['a', 'c', 'taken', 'twin']);
      expect((await docs.listIndexes()).map((i) => i.name)).toEqual(['name_1']);
      expect(await docs.findOne({ _id: 'taken' })).toEqual({ _id: 'taken', name: 'taken', tag: 't', deep: { er: { value: 1 } } });
    });

    it('counts the documents of a batch whose writes fail between others, and counts the same after reopening', async () => {
      const store = open();
      const docs = store.collection('docs');
      await docs.createIndexes([{ keys: { name: 1 }, unique: true }]);
      await docs.insertMany([
        { _id: 'taken', name: 'taken', tag: 't' },
        { _id: 'twin', name: 'twin', tag: 't' },
        { _id: 'gone', name: 'gone' },
      ]);
      const results = await Promise.allSettled([
        docs.insertOne({ _id: 'a', name: 'a' }),
        docs.insertOne({ _id: 'b', name: 'taken' }),
        docs.deleteOne({ _id: 'gone' }),
        // refused part-way: the documents before the refused one stay
        docs.insertMany([
          { _id: 'c', name: 'c' },
          { _id: 'd', name: 'twin' },
        ]),
        docs.createIndexes([{ keys: { tag: 1 }, unique: true }]),
        // a collection made within the batch is written with its catalog entry at once
        store.collection('fresh').insertOne({ _id: 'f' }),
        docs.insertOne({ _id: 'e', name: 'e' }),
        docs.insertOne({ _id: 'a', name: 'again' }),
      ]);
      expect(results.map((r) => r.status)).toEqual([
        'fulfilled',
        'rejected',
        'fulfilled',
        'rejected',
        'rejected',
        'fulfilled',
        'fulfilled',
        'rejected',
      ]);
      const ids = ['a', 'c', 'e', 'taken', 'twin'];
      expect((await docs.find({}, { sort: { _id: 1 } })).map((d) => d._id)).toEqual(ids);
      expect(await docs.countDocuments()).toBe(ids.length);
      expect(await store.collection('fresh').countDocuments()).toBe(1);
      const path = (store as EmbeddedStore).path;
      await store.close();
      stores.splice(stores.indexOf(store), 1);
      const again = createEmbeddedStore({ path });
      stores.push(again);
      expect(await again.collection('docs').countDocuments()).toBe(ids.length);
      expect(await again.collection('fresh').countDocuments()).toBe(1);
    });

    it('keeps index entries true when an update changes in place the objects and arrays an index holds', async () => {
      const docs = open().collection('docs');
      await docs.createIndexes([{ keys: { meta: 1 } }, { keys: { tags: 1 } }, { keys: { 'meta.kind': 1 } }, { keys: { n: 1 } }]);
      await docs.insertMany([
        { _id: 'x', meta: { kind: 'a' }, tags: [], n: 1 },
        { _id: 'y', meta: { kind: 'b' }, tags: ['t'], n: 2 },
      ]);
      await Promise.all([
        docs.updateOne({ _id: 'x' }, { $set: { 'meta.kind': 'b', other: 1 }, $push: { tags: 'u' } }),
        docs.updateOne({ _id: 'y' }, { $set: { 'meta.extra': true }, $pull: { tags: 't' }, $inc: { n: 1 } }),
      ]);
      const ids = async (filter: Record<string, unknown>) => (await docs.find(filter, { sort: { _id: 1 } })).map((d) => d._id);
      expect(await ids({ 'meta.kind': 'b' })).toEqual(['x', 'y']);
      expect(await ids({ 'meta.kind': 'a' })).toEqual([]);
      expect(await ids({ meta: { kind: 'b' } })).toEqual(['x']);
      expect(await ids({ meta: { kind: 'b', extra: true } })).toEqual(['y']);
      expect(await ids({ tags: 'u' })).toEqual(['x']);
      expect(await ids({ tags: 't' })).toEqual([]);
      expect(await ids({ tags: { $size: 0 } })).toEqual(['y']);
      expect(await ids({ n: 3 })).toEqual(['y']);
      expect(await ids({ n: 2 })).toEqual([]);
      expect(await ids({ n: 1 })).toEqual(['x']);
    });

    it('applies $set and $unset of named paths as MongoDB does, and leaves other updates to the general path', async () => {
      const docs = open().collection('docs');
      await docs.insertOne({
        _id: 'x',
        status: 'running',
        tags: ['a', 'b'],
        tasks: { t1: { status: 'incomplete' } },
        n: 1,
        list: [{ v: 1 }],
      });
      expect(
        await docs.updateOne(
          { _id: 'x', tags: 'b' },
          { $set: { 'tasks.t1.status': 'complete', 'tasks.t2': { status: 'running' } }, $unset: { n: '' } },
        ),
      ).toEqual({ matchedCount: 1, modifiedCount: 1 });
      expect(await docs.updateOne({ _id: 'x', status: 'running' }, { $set: { 'tasks.t1.status': 'complete' } })).toEqual({
        matchedCount: 1,
        modifiedCount: 0,
      });
      expect(await docs.updateOne({ _id: 'x', status: 'paused' }, { $set: { status: 'x' } })).toEqual({
        matchedCount: 0,
        modifiedCount: 0,
      });
      await docs.updateOne({ _id: 'x' }, { $set: { 'list.0.v': 2 } });
      expect(await docs.findOne({ _id: 'x' })).toEqual({
        _id: 'x',
        status: 'running',
        tags: ['a', 'b'],
        tasks: { t1: { status: 'complete' }, t2: { status: 'running' } },
        list: [{ v: 2 }],
      });
    });
  });
});
