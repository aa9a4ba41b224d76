import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbeddedStore } from '@nap/store';
import type { Collection, EmbeddedStore } from '@nap/store';
import { createLogger } from '@nap/telemetry';
import { eventually } from '@nap/testing';
import type { JobRecord, OutboxEntry } from '../src/domain/job-model';
import { JobEventRelay, eventBytes, eventsBytes, outboxEntry } from '../src/engine/job-events';
import type { JobEventMessage } from '../src/engine/job-events';
import { JobRepository } from '../src/store/job-repository';
import type { OutboxState } from '../src/store/job-repository';

/**
 * The relay and the outbox updates it makes, on a real embedded store: a write hands the relay the
 * outbox it left, and neither a stale hand-over nor another writer's append may cost an event or
 * give one a wrong seq.
 */

let dir: string;
let store: EmbeddedStore;
let jobs: Collection<JobRecord>;
let repository: JobRepository;
let published: { subject: string; seq: number; msgId: string; event: string }[];
let reads: number;

const SERVER = 'relay-test';

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'nap-relay-'));
  store = createEmbeddedStore({ path: path.join(dir, 'db') });
  jobs = store.collection<JobRecord>('jobs');
  repository = new JobRepository(jobs);
  const outboxOf = repository.outboxOf.bind(repository);
  reads = 0;
  repository.outboxOf = (jobId) => {
    reads += 1;
    return outboxOf(jobId);
  };
  published = [];
  gate = undefined;
  storeAtMost = undefined;
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** While set, publications wait for it (the relay is busy with a pass). */
let gate: Promise<void> | undefined;
/** When set, the next publication stores this many events and fails on the next one. */
let storeAtMost: number | undefined;

function relay(): JobEventRelay {
  const publish = async (messages: JobEventMessage[]): Promise<{ published: number; error?: unknown }> => {
    for (const [i, { subject, payload, seq, headers }] of messages.entries()) {
      if (i === storeAtMost) {
        storeAtMost = undefined;
        return { published: i, error: new Error('The bus stopped storing (test)') };
      }
      await gate;
      const p = payload as { n: string };
      published.push({ subject, seq, msgId: headers['Nats-Msg-Id'] as string, event: p.n });
    }
    return { published: messages.length };
  };
  return new JobEventRelay(repository, { publish, connected: () => true }, createLogger({ name: 'relay-test', level: 'silent' }));
}

function event(n: string): OutboxEntry {
  return outboxEntry('taskStart', { n });
}

async function insertJob(id: string, outbox: OutboxEntry[]): Promise<void> {
  // only what the outbox updates look at
  await jobs.insertOne({
    _id: id,
    name: 'j',
    status: 'running',
    outbox,
    eventsPublished: 0,
    lease: SERVER,
    metrics: { server_id: SERVER },
  } as unknown as JobRecord);
}

/** Steps written by job id, as the runner counts them. */
const stepsWritten = new Map<string, number>();

/** A runner's write of events `names`; the outbox as it left it. */
async function write(id: string, names: string[]): Promise<OutboxState> {
  const steps = stepsWritten.get(id) ?? 0;
  stepsWritten.set(id, steps + 1);
  const after = await repository.writeClaimed(id, SERVER, { last_updated: names.join() }, names.map(event), { steps });
  if (typeof after === 'boolean') throw new Error('A write of events returns the outbox it left');
  return after;
}

async function publishedCount(n: number): Promise<void> {
  await eventually(`${n} events published`, () => published.length >= n, { timeoutMs: 1_000, intervalMs: 5 });
  expect(published.length).toBe(n);
}

describe('eventBytes', () => {
  it('is the JSON of the payload with seq as its last member, whatever the payload holds', () => {
    const payloads = [
      { jobId: 'j1', name: 'naïve – 中文 😀', status: 'running', note: 'a "quote", a \\ and a \u0001' },
      {},
      { seq: 3, taskId: 't1' },
      { list: [1, { deep: null }], flag: false },
    ];
    for (const payload of payloads) expect(eventBytes({ payload, seq: 42 }).toString('utf8')).toBe(JSON.stringify({ ...payload, seq: 42 }));
  });
});

describe('eventsBytes', () => {
  const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');

  it('is eventBytes of each message, in order, for a batch of ASCII payloads', () => {
    const messages = [
      { payload: { jobId: 'j1', name: 'w', status: 'running', timestamp: 1 }, seq: 7 },
      { payload: {}, seq: 8 },
      { payload: { seq: 3, taskId: 't1' }, seq: 9 },
      { payload: { note: 'a "quote", a \\ and a \u0001', list: [1, { deep: null }] }, seq: 10 },
    ];
    const bytes = eventsBytes(messages);
    expect(bytes.map(text)).toEqual(messages.map((m) => JSON.stringify({ ...m.payload, seq: m.seq })));
    // each event's bytes are its own: nothing of its neighbours shows through
    expect(bytes.map((b) => b.byteLength)).toEqual(messages.map((m) => eventBytes(m).byteLength));
  });

  it('is eventBytes of each message when some payload is not ASCII', () => {
    const messages = [
      { payload: { name: 'plain' }, seq: 1 },
      { payload: { name: 'naïve – 中文 😀' }, seq: 2 },
      { payload: { name: 'plain again' }, seq: 3 },
    ];
    expect(eventsBytes(messages).map(text)).toEqual(messages.map((m) => JSON.stringify({ ...m.payload, seq: m.seq })));
  });

  it('is empty for no messages', () => {
    expect(eventsBytes([])).toEqual([]);
  });
});

describe('JobEventRelay', () => {
  it('publishes from the outbox a write handed over, without reading it back, in order with seq and Nats-Msg-Id', async () => {
    const r = relay();
    await insertJob('j1', [event('e1')]);
    r.drain('j1');
    await publishedCount(1);
    const names = Array.from({ length: 10 }, (_, i) => `e${i + 2}`);
    for (const n of names) r.drain('j1', await write('j1', [n]));
    await r.idle(2_000);
    expect(published.map((p) => [p.event, p.seq, p.msgId])).toEqual(['e1', ...names].map((n, i) => [n, i + 1, `j1.${i + 1}`]));
    // the first pass reads the store (the relay knew nothing of the job); the writes hand the rest
    // over (a removal that falls between two writes makes the next hand-over stale: one more read)
    expect(reads).toBeLessThanOrEqual(3);
    expect(await jobs.findOne({ _id: 'j1' })).toMatchObject({ outbox: [], eventsPublished: 11 });
    r.stop();
  });

  it('reads the store when a write handed nothing over, and never publishes from a stale hand-over', async () => {
    const r = relay();
    await insertJob('j2', []);
    const s1 = await write('j2', ['e1']);
    r.drain('j2', s1);
    await publishedCount(1);
    // the relay is busy publishing e2 from the hand-over of its write
    let open = (): void => undefined;
    gate = new Promise((resolve) => (open = resolve));
    r.drain('j2', await write('j2', ['e2']));
    // meanwhile: a runner's write, another writer's that hands nothing over (a cancel), and late hand-overs
    const s3 = await write('j2', ['e3']);
    await jobs.updateOne({ _id: 'j2' }, { $push: { outbox: event('e4') } });
    r.drain('j2');
    r.drain('j2', s3);
    r.drain('j2', s1);
    gate = undefined;
    open();
    await r.idle(2_000);
    expect(published.map((p) => [p.event, p.seq])).toEqual([
      ['e1', 1],
      ['e2', 2],
      ['e3', 3],
      ['e4', 4],
    ]);
    expect(await jobs.findOne({ _id: 'j2' })).toMatchObject({ outbox: [], eventsPublished: 4 });
    r.stop();
  });
});

describe('JobEventRelay after it removed what it published', () => {
  // a write is in the store (a read sees it) before its writer has the answer: the relay can publish
  // and remove its events from a read, and the writer hands the outbox over only afterwards

  /** A runner's write that ends the job with events `names`; the outbox as it left it. */
  async function lastWrite(id: string, names: string[]): Promise<OutboxState> {
    const steps = stepsWritten.get(id) ?? 0;
    stepsWritten.set(id, steps + 1);
    const after = await repository.writeClaimed(id, SERVER, { status: 'complete' }, names.map(event), { steps });
    if (typeof after === 'boolean') throw new Error('A write of events returns the outbox it left');
    return after;
  }

  it('publishes nothing again from the late hand-over of the write that ended the job', async () => {
    const r = relay();
    await insertJob('j5', [event('e1')]);
    const ended = await lastWrite('j5', ['e2', 'e3']);
    // something without a hand-over (a wake, the lease scan) makes the relay read the store first
    r.drain('j5');
    await r.idle(2_000);
    expect(await jobs.findOne({ _id: 'j5' })).toMatchObject({ outbox: [], eventsPublished: 3 });
    // the writer's answer comes now
    r.drain('j5', ended);
    await r.idle(2_000);
    expect(published.map((p) => [p.event, p.seq])).toEqual([
      ['e1', 1],
      ['e2', 2],
      ['e3', 3],
    ]);
    r.stop();
  });

  it('publishes nothing again from a late hand-over once the published events of a running job left its outbox', async () => {
    const r = relay();
    await insertJob('j6', []);
    const late = await write('j6', ['e1', 'e2']);
    r.drain('j6');
    // the relay removes them after ACK_DELAY_MS and forgets the job
    await r.idle(2_000);
    expect(await jobs.findOne({ _id: 'j6' })).toMatchObject({ outbox: [], eventsPublished: 2 });
    r.drain('j6', late);
    await r.idle(2_000);
    expect(published.map((p) => [p.event, p.seq])).toEqual([
      ['e1', 1],
      ['e2', 2],
    ]);
    // a later write's hand-over is published from as it is (no read of the store)
    const before = reads;
    r.drain('j6', await write('j6', ['e3']));
    await r.idle(2_000);
    expect(published.map((p) => [p.event, p.seq])).toEqual([
      ['e1', 1],
      ['e2', 2],
      ['e3', 3],
    ]);
    expect(reads).toBe(before);
    expect(await jobs.findOne({ _id: 'j6' })).toMatchObject({ outbox: [], eventsPublished: 3 });
    r.stop();
  });
});

describe('JobEventRelay publishing an outbox at once', () => {
  it('counts what the bus stored before a failure: those are not published again, the rest follow in order under their seq', async () => {
    const r = relay();
    const names = ['e1', 'e2', 'e3', 'e4', 'e5'];
    await insertJob('j3', names.map(event));
    storeAtMost = 2;
    r.drain('j3');
    // the failed pass is tried again after a wait, from where the bus stopped
    await publishedCount(5);
    await r.idle(2_000);
    expect(published.map((p) => [p.event, p.seq, p.msgId])).toEqual(names.map((n, i) => [n, i + 1, `j3.${i + 1}`]));
    expect(await jobs.findOne({ _id: 'j3' })).toMatchObject({ outbox: [], eventsPublished: 5 });
    r.stop();
  });
});

describe('JobRepository.ackOutbox', () => {
  it('removes the acknowledged prefix and keeps what another writer appended meanwhile', async () => {
    const [a, b, c] = [event('a'), event('b'), event('c')];
    await insertJob('j3', [a, b]);
    // the relay knows [a, b] and acknowledges a; meanwhile c was appended
    await jobs.updateOne({ _id: 'j3' }, { $push: { outbox: c } });
    expect(await repository.ackOutbox('j3', 0, [a.id], [a, b])).toBe(true);
    expect(await jobs.findOne({ _id: 'j3' })).toMatchObject({ outbox: [b, c], eventsPublished: 1 });
    // nothing appended since: the rest is set as it is known
    expect(await repository.ackOutbox('j3', 1, [b.id], [b, c])).toBe(true);
    expect(await jobs.findOne({ _id: 'j3' })).toMatchObject({ outbox: [c], eventsPublished: 2 });
  });

  it('is refused when another publisher acknowledged first', async () => {
    const [a, b] = [event('a'), event('b')];
    await insertJob('j4', [a, b]);
    expect(await repository.ackOutbox('j4', 0, [a.id], [a, b])).toBe(true);
    expect(await repository.ackOutbox('j4', 0, [a.id, b.id], [a, b])).toBe(false);
    expect(await jobs.findOne({ _id: 'j4' })).toMatchObject({ outbox: [b], eventsPublished: 1 });
  });
});
