import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { AppError } from '@nap/contracts';
import type { AuditEntry, AuditRecord } from '@nap/contracts';
import { encodeJson } from '@nap/bus';
import { createStore } from '@nap/store';
import type { Store, StoreConfig } from '@nap/store';
import { MongoClient } from 'mongodb';
import { createLogger } from '@nap/telemetry';
import { startAuditThread } from '../src/engine/audit-thread';
import type { AuditThread } from '../src/engine/audit-thread';
import { ensureCollections } from '../src/store/collections';
import { groupCreated } from './audit-entries';

/**
 * The audit thread as the standalone platform runs it: a worker thread on the admin store that this
 * thread has open too (embedded, or MongoDB when the platform runs on it: NAP_MONGO_URL). Its code is
 * the build of the sources (npm run build, as npm test does first).
 */
const mongoUrl = process.env.NAP_MONGO_URL || undefined;
/** Each kind of store the thread runs on, with the configuration of a fresh database of it and how to remove it. */
const kinds: [string, () => { config: StoreConfig; remove: () => Promise<void> }][] = [
  [
    'embedded',
    () => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-audit-thread-'));
      return { config: { dbName: 'nap_admin', dataDir }, remove: async () => rmSync(dataDir, { recursive: true, force: true }) };
    },
  ],
];

if (mongoUrl !== undefined) {
  const url = mongoUrl;
  kinds.push([
    'MongoDB',
    () => {
      const dbName = `nap_audit_thread_${process.pid}_${Date.now()}`;
      return {
        config: { mongoUrl: url, dbName, dataDir: os.tmpdir() },
        remove: async () => {
          const client = new MongoClient(url);
          try {
            await client.db(dbName).dropDatabase();
          } finally {
            await client.close();
          }
        },
      };
    },
  ]);
} else {
  describe('the audit thread on MongoDB — NOT RUN', () => {
    it('records why the audit thread did not run on MongoDB', () => {
      const line = '!'.repeat(100);
      console.warn(
        `${line}\n!! The audit thread ran on the embedded store only.\n!! Set NAP_MONGO_URL=mongodb://host:27017 to run it on MongoDB too.\n${line}`,
      );
      expect(mongoUrl).toBeUndefined();
    });
  });
}

describe.each(kinds)('the audit thread on the %s store', (_kind, fresh) => {
  let database: ReturnType<typeof fresh>;
  let store: Store;
  let thread: AuditThread | undefined;
  const workers: Worker[] = [];
  const logged: { details: Record<string, unknown>; message: string }[] = [];
  const log = createLogger({ name: 'audit-thread-test', level: 'silent' });
  log.error = ((details: Record<string, unknown>, message: string) => void logged.push({ details, message })) as typeof log.error;

  const queued = (e: unknown, id = (e as AuditEntry).entryId) => ({ id, data: encodeJson(e) });

  beforeEach(async () => {
    database = fresh();
    store = createStore(database.config);
    await ensureCollections(store);
    logged.length = 0;
    workers.length = 0;
    thread = await startAuditThread({ store: database.config }, log, (worker) => workers.push(worker));
  });

  afterEach(async () => {
    await thread?.close();
    await store.close();
    await database.remove();
  });

  it('chains each entry of a batch once, drops what is no audit entry, and answers the records as their events carry them', async () => {
    const appended = await thread!.writer.append([
      queued(groupCreated('a')),
      queued({ entryId: 'bad', timestamp: 'not an entry' }),
      queued(groupCreated('b', 403)),
      queued(groupCreated('a')),
    ]);
    expect(appended.map((r) => r.seq)).toEqual([1, 2]);
    const events = appended.map((r) => JSON.parse(Buffer.from(r.event).toString('utf8')) as AuditRecord);
    expect(events.map((r) => [r.seq, r.entryId])).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
    expect(events[1]?.prevHash).toBe(events[0]?.hash);
    expect(logged).toEqual([{ details: { entryId: 'bad' }, message: expect.stringContaining('not an audit entry') }]);
    // a redelivery of what is chained already takes nothing
    expect(await thread!.writer.append([queued(groupCreated('b', 403))])).toEqual([]);

    // the thread reads what it wrote, and this thread's store sees the same environment
    expect(await thread!.records.head()).toEqual({ seq: 2, hash: events[1]?.hash });
    const { results, total } = await thread!.records.list({}, { outcome: 'failure' });
    expect(total).toBe(1);
    expect(results[0]).toMatchObject({ seq: 2, entryId: 'b' });
    expect(await store.collection('audit_records').countDocuments({})).toBe(2);
    expect(await thread!.records.verify()).toMatchObject({ valid: true, checked: 2, firstBroken: null });

    // both threads write the environment's catalog (its document counts): neither loses the other's
    await store.collection('groups').insertOne({ _id: 'g1', name: 'ops' });
    await thread!.writer.append([queued(groupCreated('c'))]);
    await store.collection('groups').insertOne({ _id: 'g2', name: 'noc' });
    expect(await store.collection('audit_records').countDocuments({})).toBe(3);
    expect(await store.collection('groups').countDocuments({})).toBe(2);
    expect((await thread!.records.list({}, {})).total).toBe(3);

    // the thread verifies the chain: a record changed behind its back breaks it there
    await store.collection('audit_records').updateOne({ seq: 2 }, { $set: { operation: 'admin.deleteGroup' } });
    expect(await thread!.records.verify()).toMatchObject({ valid: false, checked: 2, firstBroken: 2 });
  });

  it('answers a refusal as the AppError it is, with its code, status and details', async () => {
    const refused = await thread!.records.list({}, { outcome: 'maybe' }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, details: [{ member: 'query.outcome' }] });
  });

  it('starts a thread again at the next call once one ended, and refuses every call once closed', async () => {
    await thread!.writer.append([queued(groupCreated('a'))]);
    await workers[0]?.terminate();
    expect(await thread!.records.head()).toMatchObject({ seq: 1 });
    expect(workers).toHaveLength(2);
    await thread!.close();
    await expect(thread!.writer.append([queued(groupCreated('b'))])).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    thread = undefined;
  });
});
