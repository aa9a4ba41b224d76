/**
 * The `nap_jobs` and `nap_active_jobs` gauges cost a scrape the same however long the job history:
 * a scrape counts the jobs in flight and takes the store's total; the jobs in `error` and `canceled`
 * (a history as long as that of `complete`) come from a store count at most `settledRecountMs` old
 * plus those this replica ended since, and `complete` is what is left of the total.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JOB_STATUSES } from '@nap/contracts';
import { createEmbeddedStore } from '@nap/store';
import type { Collection, Doc, EmbeddedStore } from '@nap/store';
import { createMetrics } from '@nap/telemetry';
import type { Registry } from '@nap/telemetry';
import type { JobRecord } from '../src/domain/job-model';
import { JobMetricsRecorder } from '../src/engine/job-metrics-recorder';
import { ensureCollections } from '../src/store/collections';
import { JobRepository } from '../src/store/job-repository';

const RECOUNT_MS = 60_000;

/** The repository, with the statuses of every count it is asked for noted in `counted`. */
class CountingRepository extends JobRepository {
  readonly counted: string[] = [];

  override countByStatus(status: string | readonly string[]): Promise<number> {
    this.counted.push(typeof status === 'string' ? status : status.join('+'));
    return super.countByStatus(status);
  }
}

let root: string;
let store: EmbeddedStore;
let jobs: Collection<Doc>;
let repository: CountingRepository;
let registry: Registry;
let recorder: JobMetricsRecorder;
let clock: number;
let archived: Record<string, number>;
let serial = 0;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'nap-job-metrics-'));
  store = createEmbeddedStore({ path: join(root, 'workflow') });
  await ensureCollections(store);
  jobs = store.collection('jobs');
  repository = new CountingRepository(store.collection<JobRecord>('jobs'));
  registry = createMetrics({ processMetrics: false }).registry;
  clock = 1_700_000_000_000;
  archived = {};
  recorder = new JobMetricsRecorder(registry, repository, () => Promise.resolve({ ...archived }), {
    settledRecountMs: RECOUNT_MS,
    now: () => clock,
  });
});

afterEach(async () => {
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

function jobDoc(status: string): JobRecord {
  serial++;
  return {
    _id: `job-${String(serial).padStart(6, '0')}`,
    name: 'flow',
    status,
    metrics: { start_time: clock + serial, owner: 'admin' },
    tasks: {},
    variables: {},
  } as unknown as JobRecord;
}

/** Stores `n` jobs in `status`, as the engine of any replica would; answers the last. */
async function stored(status: string, n = 1): Promise<JobRecord> {
  const docs = Array.from({ length: n }, () => jobDoc(status));
  await jobs.insertMany(docs as unknown as Doc[]);
  return docs[docs.length - 1] as JobRecord;
}

/** One scrape of the two gauges: `nap_jobs` by state, and `nap_active_jobs`; and the statuses it counted in the store. */
async function scrape(): Promise<{ jobs: Record<string, number>; active: number; counted: string[] }> {
  repository.counted.length = 0;
  const byState: Record<string, number> = {};
  for (const { labels, value } of (await registry.getSingleMetric('nap_jobs')?.get())?.values ?? []) byState[String(labels.state)] = value;
  const active = (await registry.getSingleMetric('nap_active_jobs')?.get())?.values[0]?.value ?? NaN;
  return { jobs: byState, active, counted: [...repository.counted].sort() };
}

/** What the store holds, counted one state at a time. */
async function truth(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const state of JOB_STATUSES) out[state] = (await jobs.countDocuments({ status: state })) + (archived[state] ?? 0);
  return out;
}

describe('the nap_jobs gauge', () => {
  it('answers what the store holds; a scrape within the recount interval counts only the jobs in flight, however many ended', async () => {
    await stored('complete', 300);
    await stored('error', 200);
    await stored('canceled', 50);
    await stored('running', 3);
    await stored('paused', 2);
    const first = await scrape();
    expect(first.jobs).toEqual(await truth());
    expect(first.jobs).toEqual({ running: 3, paused: 2, complete: 300, error: 200, canceled: 50 });
    expect(first.active).toBe(5);
    // the first scrape counts every state but complete (what is left of the total)
    expect(first.counted).toEqual(['canceled', 'error', 'paused', 'running', 'running+paused']);

    // ten times the history: the next scrape asks the store the same, and no count of error or canceled
    await stored('error', 2_000);
    clock += RECOUNT_MS - 1;
    const next = await scrape();
    expect(next.counted).toEqual(['paused', 'running', 'running+paused']);
    expect(next.jobs.running).toBe(3);
    expect(next.jobs.paused).toBe(2);
    // the errors that other replicas' engines ended show at the next recount; the states stay within the total
    expect(Object.values(next.jobs).reduce((a, b) => a + b, 0)).toBe(2_555);

    clock += 1;
    const recounted = await scrape();
    expect(recounted.counted).toEqual(['canceled', 'error', 'paused', 'running', 'running+paused']);
    expect(recounted.jobs).toEqual(await truth());
    expect(recounted.jobs.error).toBe(2_200);
  });

  it('adds the jobs this replica ends in error or canceled as its engine ends them, without a count', async () => {
    await stored('complete', 10);
    await stored('error', 4);
    await stored('running', 2);
    await scrape();

    // the engine ends a running job in error, another canceled, a third complete: stored, then observed
    const ids = (await jobs.find({ status: 'running' })).map((j) => j._id);
    await jobs.updateOne({ _id: ids[0] }, { $set: { status: 'error' } });
    recorder.observe('jobError', { ...jobDoc('error'), _id: String(ids[0]) }, {});
    await jobs.updateOne({ _id: ids[1] }, { $set: { status: 'canceled' } });
    recorder.observe('jobCancel', { ...jobDoc('canceled'), _id: String(ids[1]) }, {});
    const done = await stored('complete');
    recorder.observe('jobComplete', done, {});
    const job = await stored('running');
    recorder.observe('jobStart', job, {});

    const after = await scrape();
    expect(after.counted).toEqual(['paused', 'running', 'running+paused']);
    expect(after.jobs).toEqual(await truth());
    expect(after.jobs).toEqual({ running: 1, paused: 0, complete: 11, error: 5, canceled: 1 });
    expect(after.active).toBe(1);
  });

  it('counts again when archives took jobs out of the store, so that they are not counted twice', async () => {
    await stored('complete', 20);
    const newest = await stored('error', 6);
    await scrape();

    // an archive batch done: its jobs left the store, and its counts are kept with it
    const gone = (await jobs.find({ status: 'error' }, { sort: { _id: 1 }, limit: 4 })).map((j) => j._id);
    expect(gone).not.toContain(newest._id);
    await jobs.deleteMany({ _id: { $in: gone } });
    await jobs.deleteMany({ status: 'complete' });
    archived = { error: 4, complete: 20 };
    const after = await scrape();
    expect(after.counted).toContain('error');
    expect(after.jobs).toEqual(await truth());
    expect(after.jobs).toEqual({ running: 0, paused: 0, complete: 20, error: 6, canceled: 0 });
  });

  it('shares one count between concurrent scrapes', async () => {
    await stored('error', 3);
    const [a, b] = await Promise.all([scrape(), scrape()]);
    expect(a.jobs.error).toBe(3);
    expect(b.jobs.error).toBe(3);
    expect(repository.counted.filter((s) => s === 'error')).toHaveLength(1);
  });
});
