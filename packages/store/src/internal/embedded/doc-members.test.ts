import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { createEmbeddedStore, type EmbeddedStore } from '../../index';
import { decodeDoc, decodeMembers, encodeChangedMembers, encodeDoc, isPlainUpdate, jsonArrayLength, storedMembers } from './doc-codec';
import { STORE_FORMAT, STORE_FORMAT_KEY } from './store-format';

/** A document of the members format as stored before lengths: `M`, its header `[name, start, end, …]`. */
function withoutLengths(text: string): string {
  expect(text.startsWith('L')).toBe(true);
  const end = text.indexOf('\n');
  const header = JSON.parse(text.slice(1, end)) as unknown[];
  // a length is the number after a span, where a name would follow
  return `M${JSON.stringify(header.filter((v, i) => typeof v !== 'number' || typeof header[i - 3] !== 'string'))}${text.slice(end)}`;
}

/** The array members of a document stored with lengths and the length its header gives each, checked against its JSON. */
function headerLengths(text: string): Record<string, number> {
  expect(text.startsWith('L')).toBe(true);
  const end = text.indexOf('\n');
  const header = JSON.parse(text.slice(1, end)) as (string | number)[];
  const body = text.slice(end + 1);
  const lengths: Record<string, number> = {};
  for (let i = 0; i < header.length; i += 3) {
    const name = header[i] as string;
    const value: unknown = JSON.parse(body.slice(header[i + 1] as number, header[i + 2] as number));
    const length = typeof header[i + 3] === 'number' ? (header[i + 3] as number) : undefined;
    expect([name, length]).toEqual([name, Array.isArray(value) ? value.length : undefined]);
    if (length !== undefined) {
      lengths[name] = length;
      i += 1;
    }
  }
  return lengths;
}

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

  it("keeps each array member's length in the header, and reads a counted member's length from there", () => {
    const text = encodeDoc(doc);
    expect(headerLengths(text)).toEqual({ list: 0 });
    const stored = storedMembers(text)!;
    // the header is what is read: one that says otherwise (no release writes it) is believed
    const header = [...stored.header];
    header[header.indexOf('list') + 3] = 5;
    expect(decodeMembers({ ...stored, header }, new Set(['list']), new Set(['list'])).list).toHaveLength(5);
    // a counted member that is no array is parsed
    expect(decodeMembers(stored, new Set(['n', 'name']), new Set(['n', 'name']))).toEqual({ n: 0, name: doc.name });
    // members written anew and members copied from the stored text both carry their lengths
    const part = decodeMembers(stored, new Set(['_id', 'n']));
    part.n = 1;
    part.added = [1, [2, 3], { a: [] }];
    part.nulls = [undefined, () => 1];
    const changed = encodeChangedMembers(stored, part, new Set(['n', 'added', 'nulls']))!;
    expect(headerLengths(changed)).toEqual({ list: 0, added: 3, nulls: 2 });
  });

  it('reads, counts and rewrites with lengths a document stored without them', () => {
    const old = withoutLengths(encodeDoc({ ...doc, list: [{ s: '],"' }, 2] }));
    expect(decodeDoc(old)).toEqual(JSON.parse(JSON.stringify({ ...doc, list: [{ s: '],"' }, 2] })));
    const stored = storedMembers(old)!;
    expect(decodeMembers(stored, new Set(['list', 'n']), new Set(['list', 'n']))).toEqual({
      list: [expect.anything(), expect.anything()],
      n: 0,
    });
    const part = decodeMembers(stored, new Set(['_id', 'n']));
    part.n = 2;
    const text = encodeChangedMembers(stored, part, new Set(['n']))!;
    expect(headerLengths(text)).toEqual({ list: 2 });
    expect(decodeDoc(text)).toEqual({ ...decodeDoc(old), n: 2 });
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

  it('answers a $size filter right after $push, $pull and $set change the array, by either write path', async () => {
    const jobs = store.collection('jobs');
    await jobs.insertOne(job());
    const sized = (size: number) => jobs.updateOne({ _id: 'j1', outbox: { $size: size } }, { $set: { seen: size } });
    const count = (size: number) => jobs.countDocuments({ outbox: { $size: size } });
    await jobs.updateOne({ _id: 'j1' }, { $push: { outbox: { $each: [{ id: 'e3' }, { id: 'e4' }] } } });
    expect(await sized(2)).toEqual({ matchedCount: 0, modifiedCount: 0 });
    expect(await sized(4)).toEqual({ matchedCount: 1, modifiedCount: 1 });
    await jobs.updateOne({ _id: 'j1' }, { $pull: { outbox: { id: { $in: ['e1', 'e3', 'e9'] } } } });
    expect(await sized(4)).toEqual({ matchedCount: 0, modifiedCount: 0 });
    expect(await sized(2)).toEqual({ matchedCount: 1, modifiedCount: 1 });
    expect([await count(2), await count(4)]).toEqual([1, 0]);
    await jobs.updateOne({ _id: 'j1' }, { $set: { outbox: [{ id: 'e5' }] } });
    expect(await sized(2)).toEqual({ matchedCount: 0, modifiedCount: 0 });
    expect(await sized(1)).toEqual({ matchedCount: 1, modifiedCount: 1 });
    // an element set by path, and the whole-document path (an update not known to keep the document plain JSON)
    await jobs.updateOne({ _id: 'j1' }, { $set: { 'outbox.3': { id: 'e6' } } });
    expect(await sized(4)).toEqual({ matchedCount: 1, modifiedCount: 1 });
    await jobs.updateMany({ status: 'running' }, { $pop: { outbox: 1 }, $inc: { eventsPublished: 1 } });
    expect(await sized(3)).toEqual({ matchedCount: 1, modifiedCount: 1 });
    expect((await jobs.findOne({ _id: 'j1' }))?.outbox).toEqual([{ id: 'e5' }, null, null]);
    // no longer an array: no size matches, and an array again is counted again
    await jobs.updateOne({ _id: 'j1' }, { $set: { outbox: 'none' } });
    expect([await sized(0), await sized(1)]).toEqual([
      { matchedCount: 0, modifiedCount: 0 },
      { matchedCount: 0, modifiedCount: 0 },
    ]);
    await jobs.updateOne({ _id: 'j1' }, { $set: { outbox: [] } });
    expect(await sized(0)).toEqual({ matchedCount: 1, modifiedCount: 1 });
  });

  it('reads, $size-filters and updates a document stored without lengths, which carries them after', async () => {
    const path = store.path;
    await store.collection('jobs').insertOne(job());
    await store.close();
    // the document as the members format stored it before lengths, in a store of that format
    const rewrite = async (change: (text: string) => string): Promise<string[]> => {
      const env = open({ path, maxDbs: 4 });
      const docs = env.openDB<string, Buffer>('docs', { keyEncoding: 'binary', encoding: 'string' });
      const texts: string[] = [];
      for (const { key, value } of docs.getRange({})) {
        texts.push(change(value));
        docs.putSync(key, texts[texts.length - 1]!);
      }
      env.openDB<unknown, string>('meta', {}).putSync(STORE_FORMAT_KEY, 2);
      await env.close();
      return texts;
    };
    expect((await rewrite(withoutLengths)).map((text) => text[0])).toEqual(['M']);
    store = createEmbeddedStore({ path });
    const jobs = store.collection('jobs');
    expect(await jobs.findOne({ _id: 'j1' })).toEqual(job());
    const ack = (size: number) =>
      jobs.updateOne({ _id: 'j1', eventsPublished: 0, outbox: { $size: size } }, { $set: { 'tasks.t1.status': 'complete' } });
    expect(await ack(3)).toEqual({ matchedCount: 0, modifiedCount: 0 });
    expect(await ack(2)).toEqual({ matchedCount: 1, modifiedCount: 1 });
    const expected = { ...job(), tasks: { ...job().tasks, t1: { status: 'complete' } } };
    expect(await jobs.findOne({ _id: 'j1' })).toEqual(expected);
    expect(await jobs.countDocuments({ status: 'running' })).toBe(1);
    await store.close();
    let after = '';
    const env = open({ path, maxDbs: 4 });
    for (const { value } of env.openDB<string, Buffer>('docs', { keyEncoding: 'binary', encoding: 'string' }).getRange({})) after = value;
    expect(env.openDB<unknown, string>('meta', {}).get(STORE_FORMAT_KEY)).toBe(STORE_FORMAT);
    await env.close();
    // the members copied unchanged carry their lengths too
    expect(headerLengths(after)).toEqual({ outbox: 2 });
    store = createEmbeddedStore({ path });
    expect(await store.collection('jobs').updateOne({ _id: 'j1', outbox: { $size: 2 } }, { $set: { outbox: [] } })).toEqual({
      matchedCount: 1,
      modifiedCount: 1,
    });
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
