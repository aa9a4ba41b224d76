import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { createEmbeddedStore, type EmbeddedStore } from '../../index';
import { decodeDoc, decodeMembers, encodeChangedMembers, encodeDoc, isPlainUpdate, jsonArrayLength, storedMembers } from './doc-codec';

// Writes by `_id` read and write only the members they name (see `writeByMembers`); these tests
// check that what such a write leaves is what the whole-document path would have left.

describe('doc-codec members format', () => {
  const doc = {
    _id: 'j1',
    name: 'a "quoted"\nname',
    tasks: { t1: { status: 'pending', n: [1, 2, { x: null }] } },
    empty: {},
    list: [],
    skipped: undefined,
    n: 0,
  };

  it('decodes to what JSON would, and its spans are the members', () => {
    const text = encodeDoc(doc);
    expect(decodeDoc(text)).toEqual(JSON.parse(JSON.stringify(doc)));
    const stored = storedMembers(text);
    expect(stored).toBeDefined();
    expect([...(stored?.spans.keys() ?? [])]).toEqual(['_id', 'name', 'tasks', 'empty', 'list', 'n']);
    expect(decodeMembers(stored!, new Set(['name', 'n', 'absent']))).toEqual({ name: doc.name, n: 0 });
  });

  it('writes back the members it did not change as they were, and drops and adds members', () => {
    const stored = storedMembers(encodeDoc(doc))!;
    const part = decodeMembers(stored, new Set(['_id', 'n', 'list']));
    part.n = 5;
    delete part.list;
    part.added = { deep: ['v'] };
    const text = encodeChangedMembers(stored, part, new Set(['n', 'list', 'added']));
    expect(text).toBeDefined();
    expect(decodeDoc(text!)).toEqual({ _id: 'j1', name: doc.name, tasks: doc.tasks, empty: {}, n: 5, added: { deep: ['v'] } });
  });

  it('refuses to encode a change to a value JSON cannot carry (the whole document is written then)', () => {
    const stored = storedMembers(encodeDoc(doc))!;
    const part = decodeMembers(stored, new Set(['_id']));
    part.when = new Date(0);
    expect(encodeChangedMembers(stored, part, new Set(['when']))).toBeUndefined();
  });

  it('finds a value JSON cannot carry at any depth, and stores a document without one as members', () => {
    const plain = { _id: 'p', a: [1, 'x', true, null, { b: [2.5, { c: 'd' }] }], e: { f: -0, g: '' }, h: Object.create(null) };
    expect(storedMembers(encodeDoc(plain))).toBeDefined();
    class Holder {
      when = new Date(7);
    }
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { n: Number.NEGATIVE_INFINITY });
    const specials: { doc: { _id: string } & Record<string, unknown>; decoded?: unknown }[] = [
      { doc: { _id: 's1', a: [1, { b: ['x', Number.NaN] }] } },
      { doc: { _id: 's2', a: { b: { c: Number.POSITIVE_INFINITY } } } },
      { doc: { _id: 's3', a: ['x', [BigInt(7)]] }, decoded: { _id: 's3', a: ['x', [7]] } },
      { doc: { _id: 's4', a: [{ when: new Date(5) }] } },
      { doc: { _id: 's5', a: { bytes: Buffer.from('hi') } } },
      { doc: { _id: 's6', a: [new Holder()] } },
      { doc: { _id: 's7', a: bare } },
    ];
    for (const { doc, decoded = doc } of specials) {
      const text = encodeDoc(doc);
      // tagged and stored whole: the members format holds plain JSON only
      expect(storedMembers(text)).toBeUndefined();
      expect(decodeDoc(text)).toEqual(decoded);
    }
  });

  it('tells an update that keeps a document plain JSON from one that may not', () => {
    expect(isPlainUpdate({ $set: { a: { b: [1, 'x', null] } }, $unset: { c: '' }, $push: { d: { $each: [1] } } })).toBe(true);
    expect(isPlainUpdate({ $set: { a: new Date(0) } })).toBe(false);
    expect(isPlainUpdate({ $set: { a: { deep: [Number.NaN] } } })).toBe(false);
    expect(isPlainUpdate({ $inc: { n: 1 } })).toBe(false);
    expect(isPlainUpdate({ $currentDate: { at: true } })).toBe(false);
  });

  it('keeps a member named __proto__ a member (an assignment would set the prototype instead)', () => {
    const hostile = JSON.parse('{"_id":"p1","__proto__":{"polluted":true},"n":1}') as Record<string, unknown>;
    const stored = storedMembers(encodeDoc(hostile as never))!;
    const part = decodeMembers(stored, new Set(['__proto__', 'n']));
    expect(Object.getPrototypeOf(part)).toBe(Object.prototype);
    expect(Object.hasOwn(part, '__proto__')).toBe(true);
    expect((part as Record<string, unknown>).polluted).toBeUndefined();
    part.n = 2;
    const text = encodeChangedMembers(stored, part, new Set(['n']))!;
    const back = decodeDoc(text) as Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(JSON.stringify(back)).toBe('{"_id":"p1","__proto__":{"polluted":true},"n":2}');
  });

  it('counts the elements of a JSON array without parsing it, and says when the text is no array', () => {
    const arrays: unknown[][] = [
      [],
      [[]],
      [{}],
      [1, 'a,b', '"', '\\', '\\"', 'x\\\\', '],[{}'],
      [{ a: [1, 2, { b: '],}"' }] }, null, true, [[3], []]],
      Array.from({ length: 42 }, (_, i) => ({ id: `e${i}`, payload: { text: 'a"b\\c,[{', n: i } })),
    ];
    for (const array of arrays) expect(jsonArrayLength(JSON.stringify(array))).toBe(array.length);
    expect(jsonArrayLength('{"a":[1,2]}')).toBeUndefined();
    expect(jsonArrayLength('"[1,2]"')).toBeUndefined();
    expect(jsonArrayLength('null')).toBeUndefined();
  });

  it('still reads documents in the earlier whole-JSON format', () => {
    expect(decodeDoc(`J${JSON.stringify(doc)}`)).toEqual(JSON.parse(JSON.stringify(doc)));
    expect(storedMembers(`J${JSON.stringify(doc)}`)).toBeUndefined();
  });
});

describe('EmbeddedStore writes by _id that read some members', () => {
  let root: string;
  let store: EmbeddedStore;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'nap-store-members-'));
    store = createEmbeddedStore({ path: join(root, 'db') });
    await store.collection('jobs').createIndexes([{ keys: { status: 1, 'metrics.start_time': 1 } }, { keys: { lease: 1 } }]);
  });

  afterEach(async () => {
    await store.close();
    rmSync(root, { recursive: true, force: true });
  });

  const job = () => ({
    _id: 'j1',
    status: 'running',
    lease: 'engine-a',
    metrics: { start_time: 10 },
    tasks: { t1: { status: 'running' }, t2: { status: 'pending', variables: { incoming: { big: 'x'.repeat(2000) } } } },
    outbox: [{ id: 'e1' }, { id: 'e2' }],
    eventsPublished: 0,
  });

  it('changes the named members, keeps the others, and keeps the indexes in step', async () => {
    const jobs = store.collection('jobs');
    await jobs.insertOne(job());
    const res = await jobs.updateOne(
      { _id: 'j1', eventsPublished: 0, status: { $nin: ['running', 'paused'] }, outbox: { $size: 2 } },
      { $set: { outbox: [] } },
    );
    expect(res).toEqual({ matchedCount: 0, modifiedCount: 0 });
    const done = await jobs.updateOne(
      { _id: 'j1', 'metrics.start_time': 10 },
      { $set: { status: 'complete', 'tasks.t1.status': 'complete', outbox: [], eventsPublished: 2 }, $unset: { lease: '' } },
    );
    expect(done).toEqual({ matchedCount: 1, modifiedCount: 1 });
    const expected = { ...job(), status: 'complete', outbox: [], eventsPublished: 2 } as Record<string, unknown>;
    delete expected.lease;
    (expected.tasks as { t1: { status: string } }).t1.status = 'complete';
    expect(await jobs.findOne({ _id: 'j1' })).toEqual(expected);
    // the indexes follow: the old keys are gone, the new ones found
    expect(await jobs.countDocuments({ lease: { $gt: '' } })).toBe(0);
    expect(await jobs.countDocuments({ status: 'running' })).toBe(0);
    expect((await jobs.find({ status: 'complete' })).map((j) => j._id)).toEqual(['j1']);
    expect((await store.explain('jobs', { status: 'complete' })).plan).toBe('index');
  });

  it("checks an array's $size without parsing it, and replaces or keeps it as the update says", async () => {
    const jobs = store.collection('jobs');
    await jobs.insertOne({ ...job(), status: 'complete' });
    const ack = (size: number, update: Record<string, unknown>) =>
      jobs.updateOne({ _id: 'j1', eventsPublished: 0, status: { $nin: ['running', 'paused'] }, outbox: { $size: size } }, update);
    expect(await ack(3, { $set: { outbox: [] } })).toEqual({ matchedCount: 0, modifiedCount: 0 });
    // a member the update leaves alone keeps what it held
    expect(await ack(2, { $set: { note: 'seen' } })).toEqual({ matchedCount: 1, modifiedCount: 1 });
    expect((await jobs.findOne({ _id: 'j1' }))?.outbox).toEqual([{ id: 'e1' }, { id: 'e2' }]);
    // replaced by an array of as many elements, whatever they are, it changes
    expect(await ack(2, { $set: { outbox: [null, null] } })).toEqual({ matchedCount: 1, modifiedCount: 1 });
    expect((await jobs.findOne({ _id: 'j1' }))?.outbox).toEqual([null, null]);
    expect(await ack(2, { $set: { outbox: [], eventsPublished: 2 }, $unset: { lease: '' } })).toEqual({
      matchedCount: 1,
      modifiedCount: 1,
    });
    expect(await jobs.findOne({ _id: 'j1' })).toEqual({
      ...job(),
      status: 'complete',
      note: 'seen',
      outbox: [],
      eventsPublished: 2,
      lease: undefined,
    });
    expect(await jobs.countDocuments({ lease: { $gt: '' } })).toBe(0);
    // an update that reads into the array still sees its elements
    await jobs.updateOne({ _id: 'j1' }, { $set: { outbox: [{ id: 'e3' }, { id: 'e4' }] } });
    expect(await jobs.updateOne({ _id: 'j1', outbox: { $size: 2 } }, { $pull: { outbox: { id: 'e3' } } })).toEqual({
      matchedCount: 1,
      modifiedCount: 1,
    });
    expect((await jobs.findOne({ _id: 'j1' }))?.outbox).toEqual([{ id: 'e4' }]);
    expect(
      await jobs.findOneAndUpdate(
        { _id: 'j1', outbox: { $size: 1 } },
        { $set: { n: 1 } },
        { projection: { outbox: 1 }, returnDocument: 'after' },
      ),
    ).toEqual({ _id: 'j1', outbox: [{ id: 'e4' }] });
  });

  it('keeps a compound index in step when only one of its members changes', async () => {
    const jobs = store.collection('jobs');
    await jobs.insertOne(job());
    await jobs.insertOne({ ...job(), _id: 'j2', metrics: { start_time: 20 } });
    await jobs.updateOne({ _id: 'j1' }, { $set: { 'metrics.start_time': 30 } });
    const sorted = await jobs.find({ status: 'running' }, { sort: { 'metrics.start_time': 1 } });
    expect(sorted.map((j) => [j._id, (j.metrics as { start_time: number }).start_time])).toEqual([
      ['j2', 20],
      ['j1', 30],
    ]);
    expect(await jobs.countDocuments({ status: 'running', 'metrics.start_time': 10 })).toBe(0);
    expect((await store.explain('jobs', { status: 'running' }, { sort: { 'metrics.start_time': 1 } })).sortedByIndex).toBe(true);
  });

  it('answers findOneAndUpdate with the projected members, before or after', async () => {
    const jobs = store.collection('jobs');
    await jobs.insertOne(job());
    const after = await jobs.findOneAndUpdate(
      { _id: 'j1', status: 'running' },
      { $set: { 'tasks.t2.status': 'running' }, $push: { outbox: { $each: [{ id: 'e3' }] } } },
      { returnDocument: 'after', projection: { outbox: 1, eventsPublished: 1, status: 1 } },
    );
    expect(after).toEqual({ _id: 'j1', outbox: [{ id: 'e1' }, { id: 'e2' }, { id: 'e3' }], eventsPublished: 0, status: 'running' });
    const before = await jobs.findOneAndUpdate(
      { _id: 'j1' },
      { $set: { status: 'paused' } },
      { projection: { status: 1, 'tasks.t2.status': 1 } },
    );
    expect(before).toEqual({ _id: 'j1', status: 'running', tasks: { t2: { status: 'running' } } });
    expect(
      await jobs.findOneAndUpdate({ _id: 'j1', status: 'running' }, { $set: { status: 'x' } }, { projection: { status: 1 } }),
    ).toBeNull();
    expect((await jobs.findOne({ _id: 'j1' }))?.status).toBe('paused');
  });

  it('stores a date an update sets as a date (the whole document is written then)', async () => {
    const jobs = store.collection('jobs');
    await jobs.insertOne(job());
    await jobs.updateOne({ _id: 'j1' }, { $set: { when: new Date(5) } });
    // arithmetic that ends in a number JSON cannot carry is stored as that number too
    await jobs.updateOne({ _id: 'j1' }, { $set: { big: 1e308 } });
    await jobs.updateOne({ _id: 'j1' }, { $mul: { big: 10 } });
    expect((await jobs.findOne({ _id: 'j1' }))?.big).toBe(Number.POSITIVE_INFINITY);
    const found = await jobs.findOne({ _id: 'j1' });
    expect(found?.when).toBeInstanceOf(Date);
    expect((found?.when as Date).getTime()).toBe(5);
    expect(found?.tasks).toEqual(job().tasks);
    // and a later write of a few members keeps it a date
    await jobs.updateOne({ _id: 'j1' }, { $set: { status: 'complete' } });
    expect((await jobs.findOne({ _id: 'j1' }))?.when).toBeInstanceOf(Date);
  });

  it('refuses an update the whole-document path refuses, writing nothing', async () => {
    const jobs = store.collection('jobs');
    await jobs.insertOne(job());
    await expect(jobs.updateOne({ _id: 'j1' }, { $push: { status: 'x' } })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(await jobs.findOne({ _id: 'j1' })).toEqual(job());
    // an upsert whose filter does not match the document with that _id tries the insert, as before
    await expect(jobs.updateOne({ _id: 'j1', status: 'gone' }, { $set: { n: 1 } }, { upsert: true })).rejects.toMatchObject({
      code: 'STORE_DUPLICATE_KEY',
    });
  });

  it('updates a document stored in the earlier whole-JSON format', async () => {
    const path = store.path;
    const jobs = store.collection('jobs');
    await jobs.insertOne(job());
    await store.close();
    // rewrite the stored text as the earlier format did
    const env = open({ path });
    const docs = env.openDB<string, Buffer>('docs', { keyEncoding: 'binary', encoding: 'string' });
    let rewrote = 0;
    for (const { key, value } of docs.getRange({})) {
      docs.putSync(key, `J${JSON.stringify(decodeDoc(value))}`);
      rewrote++;
    }
    await env.close();
    expect(rewrote).toBe(1);
    store = createEmbeddedStore({ path });
    const reopened = store.collection('jobs');
    expect(await reopened.updateOne({ _id: 'j1' }, { $set: { status: 'complete' } })).toEqual({ matchedCount: 1, modifiedCount: 1 });
    expect(await reopened.findOne({ _id: 'j1' })).toEqual({ ...job(), status: 'complete' });
    expect(await reopened.countDocuments({ status: 'complete' })).toBe(1);
  });
});
