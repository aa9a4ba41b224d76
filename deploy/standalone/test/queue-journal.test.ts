import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { auditEntrySchema, isValid } from '@nap/contracts';
import type { AuditEntry, AuditRecord } from '@nap/contracts';
import { decodeJson, encodeJson } from '@nap/bus';
import type { QueueJournal } from '@nap/bus';
import { createStore } from '@nap/store';
import type { Store } from '@nap/store';
import { createStoreQueueJournal } from '../src/queue-journal';
import { startTestPlatform } from '../src/test-platform';

/**
 * The standalone platform's work queue journal: what the in-process bus's appends are durable in.
 * Through the store alone, then through the platform across a stop that stands for a crash between
 * the journal and the audit chain.
 */
let dataDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-queue-journal-'));
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** The bus's store as the platform opens it, and its journal. */
async function openJournal(): Promise<{ store: Store; journal: QueueJournal }> {
  const store = await createStore({ dbName: 'nap_bus', dataDir });
  return { store, journal: await createStoreQueueJournal(store) };
}

const text = (data: Uint8Array) => Buffer.from(data).toString('utf8');

it('keeps entries in the order they came, lets go of the handled ones, and goes on after the highest key when reopened', async () => {
  const first = await openJournal();
  const keys = [];
  for (const id of ['a', 'b', 'c']) keys.push(await first.journal.keep('audit', { id, data: Buffer.from(`data of ${id}`) }));
  await first.journal.release([keys[0] as string]);
  expect((await first.journal.kept('audit')).map((e) => [e.id, text(e.data)])).toEqual([
    ['b', 'data of b'],
    ['c', 'data of c'],
  ]);
  await first.store.close();

  const second = await openJournal();
  const d = await second.journal.keep('audit', { id: 'd', data: Buffer.from('data of d') });
  const kept = await second.journal.kept('audit');
  expect(kept.map((e) => e.id)).toEqual(['b', 'c', 'd']);
  expect(kept.map((e) => e.key)).toEqual([keys[1], keys[2], d]);
  expect([...kept.map((e) => e.key)].sort()).toEqual(kept.map((e) => e.key));
  await second.journal.release(kept.map((e) => e.key));
  expect(await second.journal.kept('audit')).toEqual([]);
  await second.store.close();
});

it('keeps the appends of one turn in one document, which goes once all of them were let go of', async () => {
  const { store, journal } = await openJournal();
  const keys = await Promise.all(['a', 'b', 'c'].map((id) => journal.keep('audit', { id, data: Buffer.from(id) })));
  const documents = store.collection('queue_journal');
  expect(await documents.countDocuments()).toBe(1);
  await journal.release([keys[0] as string, keys[2] as string]);
  // one entry of it is not handled yet: the document stays, and a restart would deliver all three again
  expect(await documents.countDocuments()).toBe(1);
  expect((await journal.kept('audit')).map((e) => e.id)).toEqual(['a', 'b', 'c']);
  await journal.release([keys[1] as string]);
  expect(await documents.countDocuments()).toBe(0);
  await store.close();
});

it('chains, once, what a crash left in the journal: an entry never chained and an entry chained but not yet let go of', async () => {
  // a change answered and chained
  const before = await startTestPlatform({ dataDir });
  const token = await before.login();
  const created = await before.http('POST', '/user-management/groups', { token, body: { group: { name: 'chained-before' } } });
  expect(created.status).toBe(200);
  const chainedRequest = created.headers.get('x-request-id') ?? '';
  const listed = await before.http('GET', `/audit?equals[requestId]=${chainedRequest}`, { token });
  const [chained] = (listed.body as { results: AuditRecord[] }).results;
  if (chained === undefined) throw new Error('the record of the change is not in the chain');
  await before.stop();

  // what the journal held when the process died: the entry of an answered change the appender never
  // took, and the entry it had chained (above) but not yet let go of
  const { seq: _seq, prevHash: _prevHash, hash: _hash, ...chainedEntry } = chained;
  // the same entry as the gateway sent it (so that it is not dropped as no audit entry)
  expect(isValid(auditEntrySchema, chainedEntry)).toBe(true);
  const unchained: AuditEntry = {
    entryId: randomUUID(),
    timestamp: new Date().toISOString(),
    actor: { kind: 'account', username: 'admin', auth: 'bearer' },
    operation: 'admin.createGroup',
    method: 'POST',
    route: '/user-management/groups',
    target: { kind: 'group', name: 'answered-before-the-crash' },
    outcome: { status: 200 },
    requestId: randomUUID(),
  };
  const left = await openJournal();
  await left.journal.keep('audit', { id: chainedEntry.entryId, data: encodeJson(chainedEntry) });
  await left.journal.keep('audit', { id: unchained.entryId, data: encodeJson(unchained) });
  await left.store.close();

  const after = await startTestPlatform({ dataDir });
  try {
    const again = await after.login();
    const byRequest = async (requestId: string) =>
      ((await after.http('GET', `/audit?equals[requestId]=${requestId}`, { token: again })).body as { results: AuditRecord[] }).results;
    // no wait: a read of the trail waits for what the journal held to be chained
    expect(await byRequest(chainedRequest)).toHaveLength(1);
    const [recovered, ...more] = await byRequest(unchained.requestId ?? '');
    expect(more).toEqual([]);
    expect(recovered).toMatchObject({ entryId: unchained.entryId, target: { name: 'answered-before-the-crash' } });
    expect((await after.http('GET', '/audit/verify', { token: again })).body).toMatchObject({ valid: true, firstBroken: null });
  } finally {
    await after.stop();
  }
  const emptied = await openJournal();
  expect((await emptied.journal.kept('audit')).map((e) => decodeJson<AuditEntry>(e.data).entryId)).toEqual([]);
  await emptied.store.close();
}, 60_000);
