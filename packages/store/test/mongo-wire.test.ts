/**
 * MongoStore on the wire, without a MongoDB server: against `mongodb-mock-server` (see
 * wire-mock.ts), the exact commands and options NAP sends, and NAP's reaction to replies a real
 * server gives only in a failover, under load or misconfigured.
 */
import { createServer } from 'node:net';
import { runWithDeadline, withinRequestDeadline } from '@nap/contracts';
import { DeclaredIndexes, createMongoStore, type Store } from '../src/index';
import { Double, Int32, Long } from 'mongodb';
import { answerOnce, cursorReply, startWireMock, type WireMock } from './wire-mock';

let mock: WireMock;
const stores: Store[] = [];

function open(options: { url?: string; clientOptions?: Record<string, unknown>; dbName?: string } = {}): Store {
  const store = createMongoStore({
    url: options.url ?? mock.url,
    dbName: options.dbName ?? 'nap_test',
    serverSelectionTimeoutMs: 5_000,
    ...(options.clientOptions ? { clientOptions: options.clientOptions } : {}),
  });
  stores.push(store);
  return store;
}

beforeEach(async () => {
  mock = await startWireMock();
});

afterEach(async () => {
  mock.releaseHeld();
  await Promise.all(stores.splice(0).map((s) => s.close().catch(() => undefined)));
  await mock.close();
});

const MAJORITY = { w: 'majority', j: true };

describe('what MongoStore sends', () => {
  it('asks every write for a journaled majority acknowledgement and every read for majority read concern', async () => {
    const items = open().collection('items');
    await items.insertOne({ _id: 'a', n: 1 });
    await items.insertMany([{ _id: 'b' }, { _id: 'c' }]);
    await items.updateOne({ _id: 'a' }, { $set: { n: 2 } });
    await items.updateMany({ n: 2 }, { $inc: { n: 1 } });
    await items.replaceOne({ _id: 'a' }, { n: 9 });
    await items.findOneAndUpdate({ _id: 'a' }, { $set: { n: 3 } });
    await items.findOneAndDelete({ _id: 'b' });
    await items.deleteOne({ _id: 'c' });
    await items.deleteMany({ n: 3 });
    await items.find({ n: 1 });
    await items.findOne({ _id: 'a' });
    await items.countDocuments({ n: 1 });
    const writes = mock.commands.filter((c) => ['insert', 'update', 'delete', 'findAndModify'].includes(Object.keys(c)[0] ?? ''));
    expect(writes).toHaveLength(9);
    for (const write of writes) expect(write.writeConcern).toEqual(MAJORITY);
    const reads = [...mock.sent('find'), ...mock.sent('aggregate')];
    expect(reads).toHaveLength(3);
    for (const read of reads) expect(read.readConcern).toEqual({ level: 'majority' });
  });

  it('sends insertMany ordered, and retryable writes with a session and a transaction number', async () => {
    const items = open().collection('items');
    await items.insertMany([{ _id: 'a' }, { _id: 'b' }]);
    const [insert] = mock.sent('insert');
    expect(insert).toMatchObject({ insert: 'items', ordered: true, documents: [{ _id: 'a' }, { _id: 'b' }] });
    expect(insert?.lsid).toBeDefined();
    expect(insert?.txnNumber).toBeDefined();
  });

  it('ends every sort with _id unless it names _id, on find, findOne and findOneAndUpdate', async () => {
    const items = open().collection('items');
    await items.find({}, { sort: { g: 1 } });
    await items.find({}, { sort: { g: -1, n: 1 }, skip: 10, limit: 5 });
    await items.find({}, { sort: { _id: -1 } });
    await items.find({}, { sort: { g: 1, _id: -1, n: 1 } });
    await items.findOne({}, { sort: { at: -1 } });
    await items.findOneAndUpdate({ state: 'ready' }, { $set: { state: 'taken' } }, { sort: { priority: 1 } });
    const sorts = mock.sent('find').map((f) => f.sort);
    expect(sorts).toEqual([{ g: 1, _id: 1 }, { g: -1, n: 1, _id: 1 }, { _id: -1 }, { g: 1, _id: -1, n: 1 }, { at: -1, _id: 1 }]);
    expect(Object.keys(sorts[1] as object)).toEqual(['g', 'n', '_id']);
    expect(mock.sent('findAndModify')[0]?.sort).toEqual({ priority: 1, _id: 1 });
  });

  it('leaves undefined out of documents and updates, and sends undefined in a filter as null', async () => {
    const items = open().collection('items');
    await items.insertOne({ _id: 'u', a: undefined, b: 1, nested: { c: undefined, d: 2 }, list: [undefined, 1] });
    await items.updateOne({ _id: 'u' }, { $set: { b: undefined, e: 3 } });
    await items.find({ owner: undefined });
    await items.deleteMany({ $or: [{ owner: undefined }, { n: 1 }] });
    expect(mock.sent('insert')[0]?.documents).toEqual([{ _id: 'u', b: 1, nested: { d: 2 }, list: [null, 1] }]);
    expect((mock.sent('update')[0]?.updates as unknown[])[0]).toMatchObject({ q: { _id: 'u' }, u: { $set: { e: 3 } } });
    expect(mock.sent('find')[0]?.filter).toEqual({ owner: null });
    expect((mock.sent('delete')[0]?.deletes as unknown[])[0]).toMatchObject({ q: { $or: [{ owner: null }, { n: 1 }] } });
  });

  it("gives each call of a request the request's remaining time as maxTimeMS, and background calls none", async () => {
    const items = open().collection('items');
    await runWithDeadline(Date.now() + 5_000, async () => {
      await items.find({ n: 1 });
      await items.updateOne({ _id: 'a' }, { $set: { n: 2 } });
      await items.findOneAndUpdate({ _id: 'a' }, { $set: { n: 3 } });
    });
    await items.find({ n: 2 });
    const [inRequest, background] = mock.sent('find');
    for (const command of [inRequest, mock.sent('update')[0], mock.sent('findAndModify')[0]]) {
      expect(command?.maxTimeMS).toBeGreaterThan(0);
      expect(command?.maxTimeMS).toBeLessThanOrEqual(5_000);
    }
    expect(background).not.toHaveProperty('maxTimeMS');
  });

  it('sends a conditional $inc as one update of one document, its filter as given and no upsert', async () => {
    const jobs = open().collection('jobs');
    mock.script(answerOnce('update', { ok: 1, n: 0, nModified: 0 }));
    const filter = { _id: 'root', $or: [{ treeJobs: { $exists: false } }, { treeJobs: { $lte: 8 } }] };
    expect(await jobs.updateOne(filter, { $inc: { treeJobs: 2 } })).toEqual({ matchedCount: 0, modifiedCount: 0 });
    const [update] = mock.sent('update');
    expect(update?.updates).toEqual([{ q: filter, u: { $inc: { treeJobs: 2 } }, upsert: false }]);
  });

  it('sends a sparse unique index with its options and name', async () => {
    await open()
      .collection('forms')
      .createIndexes([{ name: 'id_1', keys: { id: 1 }, unique: true, sparse: true }]);
    expect(mock.sent('createIndexes')).toMatchObject([
      { createIndexes: 'forms', indexes: [{ key: { id: 1 }, name: 'id_1', unique: true, sparse: true }] },
    ]);
  });

  it('answers findOneJson from one find of one document: the JSON of what findOne answers, numbers of every BSON width as numbers', async () => {
    const items = open().collection('items');
    const stored = {
      _id: 'g',
      name: 'typed',
      int: new Int32(7),
      long: Long.fromNumber(2 ** 40),
      double: new Double(2),
      frac: 0.25,
      at: new Date(Date.UTC(2026, 0, 2)),
      bin: Buffer.from([0, 1, 2]),
      list: [new Int32(1), null, { three: Long.fromNumber(3) }],
    };
    mock.script((command) => (Object.keys(command)[0] === 'find' ? cursorReply('nap_test.items', [stored]) : undefined));
    const found = await items.findOneJson({ name: { $eq: 'typed' } }, ['_id', 'long', 'bin']);
    const whole = await items.findOne({ name: { $eq: 'typed' } });
    expect(found?.json).toBe(JSON.stringify(whole));
    expect(JSON.parse(found?.json ?? 'null')).toEqual({
      _id: 'g',
      name: 'typed',
      int: 7,
      long: 2 ** 40,
      double: 2,
      frac: 0.25,
      at: '2026-01-02T00:00:00.000Z',
      bin: { type: 'Buffer', data: [0, 1, 2] },
      list: [1, null, { three: 3 }],
    });
    expect(found?.doc).toEqual({ _id: 'g', long: 2 ** 40, bin: Buffer.from([0, 1, 2]) });
    const [find] = mock.sent('find');
    expect(find).toMatchObject({ find: 'items', filter: { name: { $eq: 'typed' } }, limit: 1, readConcern: { level: 'majority' } });
    expect(find).not.toHaveProperty('projection');
  });
});

describe("a request's deadline bounds each call end to end", () => {
  it('answers TIMEOUT when the server does not reply before the deadline', async () => {
    const items = open().collection('items');
    await items.find({}); // connected
    mock.script(answerOnce('find', 'hold'));
    await expect(runWithDeadline(Date.now() + 300, () => items.find({ n: 1 }))).rejects.toMatchObject({ code: 'TIMEOUT', status: 504 });
    // a process with a MongoDB store has serve() open each request's scope: its handler's calls carry the deadline
    mock.script(answerOnce('find', 'hold'));
    await expect(withinRequestDeadline(Date.now() + 300, () => items.find({ n: 2 }))).rejects.toMatchObject({ code: 'TIMEOUT' });
    mock.releaseHeld();
  });

  it('answers TIMEOUT while waiting for a pooled connection past the deadline (the pool is busy)', async () => {
    const items = open({ clientOptions: { maxPoolSize: 1 } }).collection('items');
    await items.find({});
    mock.script(answerOnce('find', 'hold'));
    const busy = items.find({ n: 1 }).catch(() => undefined);
    await expect(runWithDeadline(Date.now() + 300, () => items.insertOne({ n: 2 }))).rejects.toMatchObject({ code: 'TIMEOUT' });
    // the insert never reached the server: it waited for the one connection
    expect(mock.sent('insert')).toEqual([]);
    mock.releaseHeld();
    await busy;
  });

  it('answers TIMEOUT, not after the 10 s of server selection, when no server can be reached', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    const store = open({ url: `mongodb://127.0.0.1:${address.port}/?replicaSet=rs0` });
    await expect(runWithDeadline(Date.now() + 300, () => store.collection('items').insertOne({ n: 1 }))).rejects.toMatchObject({
      code: 'TIMEOUT',
    });
    await expect(runWithDeadline(Date.now() + 300, () => store.ping())).rejects.toMatchObject({ code: 'TIMEOUT' });
  });
});

describe('how MongoStore answers what the server replies', () => {
  it('a document over 16 MiB: STORE_DOCUMENT_TOO_LARGE, from the server (17419, 10334) or before sending', async () => {
    const items = open().collection('items');
    mock.script(
      answerOnce('update', {
        ok: 1,
        n: 0,
        nModified: 0,
        writeErrors: [{ index: 0, code: 17419, errmsg: 'Resulting document after update is larger than 16777216' }],
      }),
    );
    await expect(items.updateOne({ _id: 'a' }, { $push: { log: 'x' } })).rejects.toMatchObject({
      code: 'STORE_DOCUMENT_TOO_LARGE',
      status: 413,
      details: { collection: 'items', limitBytes: 16 * 1024 * 1024 },
    });
    mock.script(answerOnce('findAndModify', { ok: 0, code: 10334, codeName: 'BSONObjectTooLarge', errmsg: 'BSONObj size is invalid' }));
    await expect(items.findOneAndUpdate({ _id: 'a' }, { $set: { big: 'x' } })).rejects.toMatchObject({ code: 'STORE_DOCUMENT_TOO_LARGE' });
    const inserts = mock.sent('insert').length;
    await expect(items.insertOne({ s: 'x'.repeat(16 * 1024 * 1024) })).rejects.toMatchObject({ code: 'STORE_DOCUMENT_TOO_LARGE' });
    expect(mock.sent('insert')).toHaveLength(inserts);
  });

  it('a duplicate key inside an ordered insertMany: STORE_DUPLICATE_KEY naming the index, the key and how many went in', async () => {
    const items = open().collection('items');
    mock.script(
      answerOnce('insert', {
        ok: 1,
        n: 1,
        writeErrors: [
          {
            index: 1,
            code: 11000,
            errmsg: 'E11000 duplicate key error collection: nap_test.items index: _id_ dup key: { _id: "b" }',
            keyValue: { _id: 'b' },
          },
        ],
      }),
    );
    await expect(items.insertMany([{ _id: 'a' }, { _id: 'b' }, { _id: 'c' }])).rejects.toMatchObject({
      code: 'STORE_DUPLICATE_KEY',
      status: 409,
      details: { index: '_id_', key: { _id: 'b' }, insertedCount: 1 },
    });
  });

  it('a unique index build over stored duplicates: the DuplicateKey (11000) of createIndexes as STORE_DUPLICATE_KEY naming the index and the value', async () => {
    const forms = open().collection('forms');
    // what the server answers (create_indexes_cmd.cpp adds its context to the build's DuplicateKey, keeping code and keyValue)
    const ns = 'nap_test.forms';
    mock.script(
      answerOnce('createIndexes', {
        ok: 0,
        code: 11000,
        codeName: 'DuplicateKey',
        errmsg: `Index build failed: 1e6c3a4b-5a0f-4a5e-9a4e-3c0b8e2d9f10: Collection ${ns} ( 0f1d2c3b-4a59-4687-9a1b-2c3d4e5f6a7b ) :: caused by :: E11000 duplicate key error collection: ${ns} index: id_1 dup key: { id: "ext-1" }`,
        keyPattern: { id: 1 },
        keyValue: { id: 'ext-1' },
      }),
    );
    await expect(forms.createIndexes([{ name: 'id_1', keys: { id: 1 }, unique: true, sparse: true }])).rejects.toMatchObject({
      code: 'STORE_DUPLICATE_KEY',
      status: 409,
      details: { index: 'id_1', key: { id: 'ext-1' } },
      message: 'Collection "forms" already holds a document with key {"id":"ext-1"} in unique index "id_1"',
    });
  });

  it('a write the primary applied but whose majority acknowledgement failed: STORE_WRITE_CONCERN_FAILED, never a plain timeout', async () => {
    const items = open().collection('items');
    const wtimeout = { code: 64, codeName: 'WriteConcernFailed', errmsg: 'waiting for replication timed out', errInfo: { wtimeout: true } };
    mock.script(answerOnce('update', { ok: 1, n: 1, nModified: 1, writeConcernError: wtimeout }));
    await expect(items.updateOne({ _id: 'a' }, { $set: { n: 1 } })).rejects.toMatchObject({
      code: 'STORE_WRITE_CONCERN_FAILED',
      status: 503,
    });
    // the deadline (maxTimeMS) cut the wait for the majority: the write is applied all the same
    const cut = { code: 50, codeName: 'MaxTimeMSExpired', errmsg: 'operation exceeded time limit' };
    mock.script(answerOnce('findAndModify', { ok: 1, value: { _id: 'a' }, lastErrorObject: { n: 1 }, writeConcernError: cut }));
    await expect(runWithDeadline(Date.now() + 5_000, () => items.findOneAndUpdate({ _id: 'a' }, { $set: { n: 2 } }))).rejects.toMatchObject(
      { code: 'STORE_WRITE_CONCERN_FAILED' },
    );
    mock.script(answerOnce('insert', { ok: 1, n: 2, writeConcernError: wtimeout }));
    await expect(items.insertMany([{ _id: 'x' }, { _id: 'y' }])).rejects.toMatchObject({ code: 'STORE_WRITE_CONCERN_FAILED' });
  });

  it('a server out of disk space, or an Atlas cluster over its quota: STORE_FULL (507), part of a write possibly kept', async () => {
    const items = open().collection('items');
    mock.script(
      answerOnce('insert', { ok: 0, code: 14031, codeName: 'OutOfDiskSpace', errmsg: 'Cannot take a write lock while out of disk space' }),
    );
    await expect(items.insertOne({ _id: 'a' })).rejects.toMatchObject({
      code: 'STORE_FULL',
      status: 507,
      details: { nothingWritten: false },
      message: 'MongoDB has no space left for collection "items" (OutOfDiskSpace): Cannot take a write lock while out of disk space',
    });
    mock.script(
      answerOnce('update', { ok: 0, code: 8000, codeName: 'AtlasError', errmsg: 'you are over your space quota, using 513 MB of 512 MB' }),
    );
    await expect(items.updateOne({ _id: 'a' }, { $set: { n: 1 } })).rejects.toMatchObject({ code: 'STORE_FULL', status: 507 });
  });

  it('NotWritablePrimary (a step-down): the write is sent again, once, as the same retryable write, and succeeds', async () => {
    const items = open().collection('items');
    await items.find({});
    mock.script(
      answerOnce('insert', {
        ok: 0,
        code: 10107,
        codeName: 'NotWritablePrimary',
        errmsg: 'not primary',
        errorLabels: ['RetryableWriteError'],
      }),
    );
    await expect(items.insertOne({ _id: 'a', n: 1 })).resolves.toEqual({ _id: 'a', n: 1 });
    const [first, retry] = mock.sent('insert');
    expect(mock.sent('insert')).toHaveLength(2);
    expect(retry?.documents).toEqual(first?.documents);
    expect(retry?.lsid).toEqual(first?.lsid);
    expect(retry?.txnNumber).toEqual(first?.txnNumber);
  });

  it('interrupted operations: STORE_INTERRUPTED (a killed read, a step-down during updateMany)', async () => {
    const items = open().collection('items');
    mock.script(answerOnce('find', { ok: 0, code: 11601, codeName: 'Interrupted', errmsg: 'operation was interrupted' }));
    await expect(items.find({ n: 1 })).rejects.toMatchObject({ code: 'STORE_INTERRUPTED', status: 503 });
    // updateMany is no retryable write: the error reaches the caller, who must assume some documents changed
    mock.script(
      answerOnce('update', { ok: 0, code: 11602, codeName: 'InterruptedDueToReplStateChange', errmsg: 'operation was interrupted' }),
    );
    await expect(items.updateMany({ lease: 'e1' }, { $set: { lease: 'e2' } })).rejects.toMatchObject({ code: 'STORE_INTERRUPTED' });
  });

  it('a refused login: STORE_AUTH_FAILED, without the password in the message', async () => {
    const port = mock.url.slice('mongodb://'.length).split('/')[0];
    mock.script(answerOnce('saslStart', { ok: 0, code: 18, codeName: 'AuthenticationFailed', errmsg: 'Authentication failed.' }, 100));
    const store = open({ url: `mongodb://nap:s3cret-pw@${port}/?replicaSet=rs0&authSource=admin` });
    const failure = store.collection('items').findOne({ _id: 'a' });
    await expect(failure).rejects.toMatchObject({ code: 'STORE_AUTH_FAILED', status: 503 });
    expect(await failure.catch((e: Error) => e.message)).not.toContain('s3cret-pw');
  });

  it('a missing right (13 Unauthorized): STORE_AUTH_FAILED naming the collection', async () => {
    const items = open().collection('items');
    mock.script(
      answerOnce('insert', { ok: 0, code: 13, codeName: 'Unauthorized', errmsg: 'not authorized on nap_test to execute command' }),
    );
    await expect(items.insertOne({ n: 1 })).rejects.toMatchObject({
      code: 'STORE_AUTH_FAILED',
      message: expect.stringContaining('"items"'),
    });
  });

  it('a cursor the server dropped between batches: STORE_CURSOR_NOT_FOUND', async () => {
    const items = open().collection('items');
    mock.script(answerOnce('find', cursorReply('nap_test.items', [{ _id: 'a' }], 42)));
    mock.script(answerOnce('getMore', { ok: 0, code: 43, codeName: 'CursorNotFound', errmsg: 'cursor id 42 not found' }));
    await expect(items.find({})).rejects.toMatchObject({ code: 'STORE_CURSOR_NOT_FOUND', status: 503 });
  });
});

describe('declared indexes on MongoDB', () => {
  const listed = [
    { v: 2, key: { _id: 1 }, name: '_id_' },
    { v: 2, key: { _fts: 'text', _ftsx: 1 }, name: 'notes_text', weights: { notes: 1 } },
    { v: 2, key: { at: 1 }, name: 'at_1', expireAfterSeconds: 3600 },
    { v: 2, key: { job: 1 }, name: 'job_1', unique: true },
    { v: 2, key: { device: 1 }, name: 'device_1', partialFilterExpression: { device: { $exists: true } } },
    {
      v: 2,
      key: { name: 1 },
      name: 'name_1',
      collation: { locale: 'en', caseLevel: false, strength: 2, numericOrdering: false, version: '57.1' },
    },
  ];

  it('compares partial filters, TTL and collations, lists other kinds of index as external, and never leaves a declared unique key unenforced', async () => {
    const store = open();
    mock.script((command) => (Object.keys(command)[0] === 'listIndexes' ? cursorReply('nap_test.runs', listed) : undefined));
    const declared = new DeclaredIndexes(store, {
      runs: [
        { keys: { at: 1 }, expireAfterSeconds: 7200 },
        { name: 'by_job', keys: { job: 1 }, unique: true },
        { keys: { device: 1 }, partialFilterExpression: { device: { $exists: true } } },
        { keys: { name: 1 }, collation: { locale: 'en', strength: 2 } },
      ],
    });
    const status = await declared.status('runs');
    expect(status.indexed.map((i) => i.name)).toEqual(['device_1', 'name_1']);
    expect(status.misnamed.map((m) => [m.expected.name, m.actual.name])).toEqual([
      ['at_1', 'at_1'],
      ['by_job', 'job_1'],
    ]);
    expect(status.misnamed[0]?.actual).toMatchObject({ expireAfterSeconds: 3600 });
    expect(status.external).toEqual([{ name: 'notes_text', keys: { _fts: 'text', _ftsx: 1 }, unique: false, sparse: false }]);
    expect(status.missing).toEqual([]);

    const before = mock.commands.length;
    await declared.create('runs');
    const steps = mock.commands
      .slice(before)
      .filter((c) => ['createIndexes', 'dropIndexes'].includes(Object.keys(c)[0] ?? ''))
      .map((c) =>
        c.createIndexes !== undefined
          ? `create ${(c.indexes as { name: string; unique?: boolean }[]).map((i) => `${i.name}${i.unique ? ' unique' : ''}`).join(',')}`
          : `drop ${String(c.index)}`,
      );
    expect(steps).toEqual([
      'drop at_1',
      'create at_1',
      // the declared unique key is enforced by the bridge while job_1 is dropped and by_job built
      'create by_job__bridge unique',
      'drop job_1',
      'create by_job unique',
      'drop by_job__bridge',
    ]);
    const bridge = mock.sent('createIndexes').find((c) => (c.indexes as { name: string }[])[0]?.name === 'by_job__bridge');
    expect((bridge?.indexes as { key: unknown }[])[0]?.key).toEqual({ job: 1, __nap_index_bridge: 1 });
    const ttl = mock.sent('createIndexes').find((c) => (c.indexes as { name: string }[])[0]?.name === 'at_1');
    expect((ttl?.indexes as unknown[])[0]).toMatchObject({ key: { at: 1 }, expireAfterSeconds: 7200 });
  });
});

describe('one MongoClient per process', () => {
  it('shares one client, and so one pool, among the stores of the process on one connection string', async () => {
    const admin = open({ dbName: 'nap_admin' });
    const workflow = open({ dbName: 'nap_workflow' });
    await admin.collection('accounts').find({});
    await workflow.collection('jobs').find({});
    // one monitoring connection and one pooled connection, both stores together
    const shared = mock.handshakes();
    expect(shared).toBe(2);
    // another setting makes another client: its monitor and its pool open connections of their own
    const other = open({ dbName: 'nap_mop', clientOptions: { appName: 'other' } });
    await other.collection('runs').find({});
    expect(mock.handshakes()).toBeGreaterThan(shared);
    // closing one store leaves the client to the others
    await admin.close();
    await expect(workflow.collection('jobs').find({})).resolves.toEqual([]);
    expect(new Set(mock.sent('find').map((f) => f.$db))).toEqual(new Set(['nap_admin', 'nap_workflow', 'nap_mop']));
  });
});
