import type { AuditRecorder, PlatformAction } from '@nap/bus';
import { AppError } from '@nap/contracts';
import type { EmbeddedStore } from '@nap/store';
import { createLogger } from '@nap/telemetry';
import { eventually } from '@nap/testing';
import { JobMetricsAccumulator } from '../src/domain/job-metrics';
import { cutoffOf, familiesOf, mayArchive, retentionArchiveId, retentionDueAt, statusesOf } from '../src/domain/job-archive';
import type { JobArchiveRecord } from '../src/domain/job-archive';
import type { JobRecord } from '../src/domain/job-model';
import { toPublicJob } from '../src/domain/job-model';
import { JobRetention } from '../src/engine/job-retention';
import { RetentionRepository } from '../src/store/retention-repository';
import { archiveParts, archivedJobs, endedJob, freshStore } from './support/archive-store';
import type { ArchiveParts } from './support/archive-store';
import { CrashSwitch } from './support/crash';
import { startEngineHarness } from './support/harness';

/**
 * Job archives on a real embedded store: what goes into an archive (finished root jobs ended before
 * the cut-off, whole families, never a running or paused job), the file (gzip of one job a line, as
 * the job routes show it, large values in place), metrics that keep counting archived jobs, a
 * replica killed at every step of a batch (another finishes: no job lost or archived twice), and the
 * retention firing once per due time with two replicas.
 */

const DAY_MS = 86_400_000;
const stores: { close(): Promise<void> }[] = [];
const running: ArchiveParts[] = [];

afterEach(async () => {
  for (const parts of running.splice(0)) await parts.archiver.stop();
  for (const s of stores.splice(0)) await s.close();
});

async function newStore(): Promise<EmbeddedStore> {
  const s = await freshStore();
  stores.push(s);
  return s.store;
}

function started(parts: ArchiveParts): ArchiveParts {
  running.push(parts);
  parts.archiver.start();
  return parts;
}

async function completed(parts: ArchiveParts, id: string): Promise<JobArchiveRecord> {
  return eventually(
    `archive ${id} complete`,
    async () => {
      const found = await parts.archives.find(id);
      return found?.state === 'complete' && found;
    },
    { timeoutMs: 20_000, intervalMs: 10 },
  );
}

/** The job and task metrics summed over the live store and the batches archived: what the metrics routes answer. */
async function metricsOf(parts: ArchiveParts) {
  const sums = new JobMetricsAccumulator();
  for await (const batch of parts.jobs.scan({}, { name: 1, status: 1, metrics: 1, tasks: 1 })) for (const job of batch) sums.add(job);
  for await (const entries of parts.batches.doneSums()) for (const entry of entries) sums.addSums(entry);
  const byId = <T extends { _id: string }>(items: T[]) => [...items].sort((a, b) => a._id.localeCompare(b._id));
  return { jobs: byId(sums.jobMetrics()), tasks: byId(sums.taskMetrics()) };
}

/** Jobs ended long ago: `roots` root jobs of two workflows, every third with a child that has a child, every other with a value kept out of line. */
function oldFamilies(roots: number, endedAt: number): JobRecord[] {
  const jobs: JobRecord[] = [];
  for (let i = 0; i < roots; i += 1) {
    const root = endedJob({
      id: `r${String(i).padStart(3, '0')}`,
      workflow: i % 2 === 0 ? 'flow-even' : 'flow-odd',
      status: i % 5 === 4 ? 'error' : 'complete',
      endTime: endedAt + i,
      big: i % 2 === 0,
      groups: i % 3 === 0 ? ['g-net'] : [],
    });
    jobs.push(root);
    if (i % 3 === 0) {
      const child = endedJob({ id: `${root._id}-c`, workflow: 'flow-child', endTime: endedAt + i - 10, parent: root, big: true });
      jobs.push(child, endedJob({ id: `${root._id}-cc`, workflow: 'flow-child', endTime: endedAt + i - 20, parent: child }));
    }
  }
  return jobs;
}

describe('what an archive takes', () => {
  it('moves finished root jobs ended before the cut-off, each with every job below it, and nothing else', async () => {
    const store = await newStore();
    const parts = archiveParts(store, 'replica-a', { batchJobs: 2 });
    const T = Date.now() - DAY_MS;
    const r1 = endedJob({ id: 'r1', status: 'complete', endTime: T - 3_000, big: true });
    const c1 = endedJob({ id: 'r1-child', status: 'complete', endTime: T - 3_500, parent: r1, big: true });
    const c2 = endedJob({ id: 'r1-grandchild', status: 'error', endTime: T - 3_600, parent: c1 });
    const r2 = endedJob({ id: 'r2', status: 'error', endTime: T - 2_000 });
    const canceled = endedJob({ id: 'r3-canceled', status: 'canceled', endTime: T - 1_000 });
    const later = endedJob({ id: 'r4-later', status: 'complete', endTime: T + 1_000 });
    const runningJob = endedJob({ id: 'run-1', status: 'running', endTime: T - 5_000 });
    const paused = endedJob({ id: 'paused-1', status: 'paused', endTime: T - 5_000 });
    const withRunningChild = endedJob({ id: 'r5', status: 'complete', endTime: T - 2_500 });
    const runningChild = endedJob({ id: 'r5-child', status: 'running', endTime: T - 2_600, parent: withRunningChild });
    const eventsLeft = {
      ...endedJob({ id: 'r6-events', status: 'complete', endTime: T - 2_200 }),
      outbox: [{ id: 'e1', event: 'jobComplete' as const, payload: {} }],
    };
    const leased = { ...endedJob({ id: 'r7-leased', status: 'complete', endTime: T - 2_100 }), lease: 'engine-alive' };
    const all = [r1, c1, c2, r2, canceled, later, runningJob, paused, withRunningChild, runningChild, eventsLeft, leased];
    for (const job of all) await parts.jobs.insert(job);
    const before = new Map<string, unknown>();
    for (const job of [r1, c1, c2, r2])
      before.set(job._id, JSON.parse(JSON.stringify(toPublicJob((await parts.jobs.findById(job._id)) as JobRecord))));
    expect(await store.collection('job_values').countDocuments({})).toBe(2);

    started(parts);
    const request = await parts.archiver.request({ before: T, statuses: ['complete', 'error'], requestedBy: 'alice' });
    const archive = await completed(parts, request._id);

    expect(archive).toMatchObject({ state: 'complete', origin: 'request', requestedBy: 'alice', jobs: 4, roots: 2, nextRunAt: null });
    expect(archive.bytes).toBeGreaterThan(0);
    const lines = await archivedJobs(parts.chunks, archive._id);
    expect(lines.map((l) => l._id).sort()).toEqual(['r1', 'r1-child', 'r1-grandchild', 'r2']);
    // each line is the job as GET /operations-manager/jobs/:id showed it, its large values in place
    for (const line of lines) expect(line).toEqual(before.get(line._id as string));
    expect((lines.find((l) => l._id === 'r1')?.variables as Record<string, unknown>).big).toBe('x'.repeat(2_048));
    expect(lines.every((l) => !('lease' in l) && !('outbox' in l) && !('runAs' in l) && !('archive' in l))).toBe(true);

    const left = (await store.collection('jobs').find({}, { projection: { _id: 1 } })).map((j) => j._id).sort();
    expect(left).toEqual(['paused-1', 'r3-canceled', 'r4-later', 'r5', 'r5-child', 'r6-events', 'r7-leased', 'run-1']);
    expect(await store.collection('job_values').countDocuments({})).toBe(0);
    // nothing left marked: a job passed over can be archived later
    expect(await store.collection('jobs').countDocuments({ archive: { $exists: true } })).toBe(0);
  });

  it('never takes a running or paused job, whatever the cut-off and statuses', async () => {
    const store = await newStore();
    const parts = started(archiveParts(store, 'replica-a'));
    const T = Date.now();
    for (const status of ['running', 'paused', 'running', 'paused'])
      await parts.jobs.insert(endedJob({ id: `${status}-${Math.random()}`, status, endTime: T - DAY_MS }));
    const request = await parts.archiver.request({ before: T + DAY_MS, statuses: ['complete', 'error', 'canceled'], requestedBy: 'admin' });
    expect(await completed(parts, request._id)).toMatchObject({ jobs: 0, roots: 0, bytes: 0 });
    expect(await store.collection('jobs').countDocuments({})).toBe(4);
    expect(await archivedJobs(parts.chunks, request._id)).toEqual([]);
  });

  it('refuses to retry a task of a job an archive batch holds', async () => {
    const h = await startEngineHarness({ serverId: 'engine-a' });
    try {
      const job = { ...endedJob({ id: 'held', status: 'error', endTime: Date.now() - 1_000 }), archive: 'some-archive:000000' };
      await h.store.collection<JobRecord>('jobs').insertOne(job);
      const retry = h.engine.retryTask('held', 'a1', {}, 'alice');
      await expect(retry).rejects.toThrow(AppError);
      await expect(retry).rejects.toMatchObject({ code: 'JOB_STATE_CONFLICT' });
      expect((await h.store.collection<JobRecord>('jobs').findOne({ _id: 'held' }))?.status).toBe('error');
    } finally {
      await h.stop();
    }
  });
});

describe('metrics of archived jobs', () => {
  it('counts archived jobs in job and task metrics exactly as it counted them live', async () => {
    const store = await newStore();
    const parts = archiveParts(store, 'replica-a', { batchJobs: 7 });
    const T = Date.now() - 10 * DAY_MS;
    for (const job of oldFamilies(30, T)) await parts.jobs.insert(job);
    await parts.jobs.insert(endedJob({ id: 'still-running', workflow: 'flow-even', status: 'running', endTime: T }));
    await parts.jobs.insert(endedJob({ id: 'recent', workflow: 'flow-odd', status: 'complete', endTime: Date.now() }));
    const live = await metricsOf(parts);
    expect(live.jobs.find((m) => m._id === 'flow-even')?.jobsTotal).toBe(16);

    started(parts);
    const request = await parts.archiver.request({ before: T + DAY_MS, statuses: ['complete', 'error', 'canceled'], requestedBy: 'admin' });
    const archive = await completed(parts, request._id);
    expect(archive.jobs).toBe(50);
    expect(await store.collection('jobs').countDocuments({})).toBe(2);
    expect(await metricsOf(parts)).toEqual(live);
  });
});

describe('a replica killed while it fills an archive', () => {
  /** Where the first replica dies: right after (or before) the store call that `when` picks. */
  const CRASHES: [string, (crash: CrashSwitch) => void][] = [
    ['after planning a batch', (c) => c.crashAfter((coll, m) => coll === 'job_archive_batches' && m === 'insertOne')],
    ['after marking its jobs', (c) => c.crashAfter((coll, m) => coll === 'jobs' && m === 'updateMany')],
    ['after the batch was marked', (c) => c.crashAfter((coll, m) => coll === 'job_archive_batches' && m === 'findOneAndUpdate')],
    ['after writing the first part', (c) => c.crashAfter((coll, m) => coll === 'job_archive_chunks' && m === 'replaceOne')],
    [
      'after removing the jobs of the second batch',
      (c) => {
        let removals = 0;
        c.crashAfter((coll, m) => coll === 'jobs' && m === 'deleteMany' && ++removals === 2);
      },
    ],
    ['after removing the jobs, before their values', (c) => c.crashBefore((coll, m) => coll === 'job_values' && m === 'deleteMany')],
    [
      'before the archive counted a done batch',
      (c) => c.crashBefore((coll, m, args) => coll === 'job_archives' && m === 'updateOne' && JSON.stringify(args[1]).includes('$inc')),
    ],
  ];

  it.each(CRASHES)('%s: another replica finishes it, every job archived once, none left, metrics unchanged', async (_where, arm) => {
    const store = await newStore();
    const T = Date.now() - 10 * DAY_MS;
    const seeded = oldFamilies(16, T);
    const crash = new CrashSwitch();
    const one = archiveParts(store, 'replica-one', { leaseMs: 300, batchJobs: 5, crash });
    for (const job of seeded) await one.jobs.insert(job);
    const metricsBefore = await metricsOf(archiveParts(store, 'reader'));
    arm(crash);
    one.archiver.start();
    const request = await one.archiver.request({ before: T + DAY_MS, statuses: ['complete', 'error'], requestedBy: 'admin' });
    await eventually('the first replica dies', async () => crash.crashed, { timeoutMs: 10_000, intervalMs: 5 });
    // its store calls hang from now on, as after kill -9; its timers stop
    void one.archiver.stop();

    const two = started(archiveParts(store, 'replica-two', { leaseMs: 300, batchJobs: 5 }));
    const archive = await completed(two, request._id);
    const ids = (await archivedJobs(two.chunks, archive._id)).map((l) => String(l._id));
    expect(ids.length).toBe(new Set(ids).size);
    expect([...ids].sort()).toEqual(seeded.map((j) => j._id).sort());
    expect(archive).toMatchObject({ jobs: seeded.length, roots: 16 });
    expect(await store.collection('jobs').countDocuments({})).toBe(0);
    expect(await store.collection('job_values').countDocuments({})).toBe(0);
    expect(await metricsOf(two)).toEqual(metricsBefore);
  });

  it('two replicas that both look for work fill one archive between them, each job once', async () => {
    const store = await newStore();
    const T = Date.now() - 10 * DAY_MS;
    const seeded = oldFamilies(40, T);
    const a = archiveParts(store, 'replica-a', { batchJobs: 4 });
    const b = archiveParts(store, 'replica-b', { batchJobs: 4 });
    for (const job of seeded) await a.jobs.insert(job);
    const request = await a.archiver.request({ before: T + DAY_MS, statuses: ['complete', 'error'], requestedBy: 'admin' });
    started(a);
    started(b);
    const archive = await completed(a, request._id);
    const ids = (await archivedJobs(a.chunks, archive._id)).map((l) => String(l._id));
    expect(ids.length).toBe(seeded.length);
    expect(new Set(ids).size).toBe(seeded.length);
  });
});

describe('the job retention', () => {
  it('archives old jobs once per due time with two replicas, and keeps jobs while the retention is 0 days', async () => {
    const store = await newStore();
    const intervalMs = 400;
    const settings = { days: 0 };
    // what the retention tells the audit trail (the admin service keeps each occasion once)
    const recorded: PlatformAction[] = [];
    const audit: AuditRecorder = {
      record: async () => undefined,
      recordPlatformAction: async (action) => void recorded.push(action),
    };
    const replicas = ['replica-a', 'replica-b'].map((serverId) => {
      const parts = started(archiveParts(store, serverId, { leaseMs: 300, batchJobs: 6 }));
      const retention = new JobRetention({
        retention: new RetentionRepository(store),
        jobs: parts.jobs,
        archives: parts.archives,
        archiver: parts.archiver,
        serverId,
        timing: { leaseMs: 300, tickMs: 20, intervalMs },
        retentionDays: () => settings.days,
        audit,
        log: createLogger({ name: serverId, level: process.env.NAP_LOG_LEVEL ?? 'silent' }),
      });
      return { parts, retention };
    });
    const [{ parts }] = replicas as [(typeof replicas)[number]];
    const firstWave = oldFamilies(12, Date.now() - 10 * DAY_MS);
    for (const job of firstWave) await parts.jobs.insert(job);
    const retentionDoc = new RetentionRepository(store);
    try {
      for (const r of replicas) await r.retention.start();
      // two due times pass with the retention at 0 days: nothing is archived
      const start = Date.now();
      await eventually(
        'two due times passed',
        async () => ((await retentionDoc.find())?.lastRunAt ?? 0) >= retentionDueAt(start, intervalMs) + intervalMs,
        {
          timeoutMs: 10_000,
        },
      );
      expect(await store.collection('job_archives').countDocuments({})).toBe(0);
      expect(await store.collection('jobs').countDocuments({})).toBe(firstWave.length);

      settings.days = 5;
      await eventually('the first wave archived', async () => (await store.collection('jobs').countDocuments({})) === 0, {
        timeoutMs: 15_000,
      });
      // the archive completes once it finds nothing more: the second wave comes after
      await eventually(
        'the first archive complete',
        async () => (await store.collection('job_archives').countDocuments({ state: 'running' })) === 0,
        {
          timeoutMs: 15_000,
        },
      );
      const secondWave = oldFamilies(7, Date.now() - 8 * DAY_MS).map((j) => ({
        ...j,
        _id: `w2-${j._id}`,
        ...(j.parent ? { parent: { ...j.parent, job: `w2-${j.parent.job}` } } : {}),
      }));
      // stored with the retention at 0 days, so that no due time sees half of the wave
      settings.days = 0;
      for (const job of secondWave) await parts.jobs.insert(job);
      settings.days = 5;
      await eventually('the second wave archived', async () => (await store.collection('jobs').countDocuments({})) === 0, {
        timeoutMs: 15_000,
      });
      const archives = await eventually(
        'both archives complete',
        async () => {
          const found = await store.collection<JobArchiveRecord>('job_archives').find({});
          return found.length >= 2 && found.every((a) => a.state === 'complete') && found;
        },
        { timeoutMs: 15_000 },
      );
      // one archive per due time that found old jobs, named after it, by the platform actor
      expect(archives).toHaveLength(2);
      for (const a of archives) {
        expect(a).toMatchObject({ origin: 'retention', requestedBy: 'retention' });
        expect(a._id).toBe(retentionArchiveId(a.due as number));
        expect(a.before).toBe((a.due as number) - 5 * DAY_MS);
      }
      const ids = (await Promise.all(archives.map((a) => archivedJobs(parts.chunks, a._id)))).flat().map((l) => String(l._id));
      expect(ids.length).toBe(firstWave.length + secondWave.length);
      // each archive is in the audit trail as an action of the platform actor `retention`
      expect(new Set(recorded.map((r) => r.occasion))).toEqual(new Set(archives.map((a) => a._id)));
      for (const r of recorded)
        expect(r).toMatchObject({ actor: 'retention', operation: 'workflow.archiveJobs', target: { kind: 'job-archive' } });
      expect(new Set(ids)).toEqual(new Set([...firstWave, ...secondWave].map((j) => j._id)));
    } finally {
      for (const r of replicas) await r.retention.stop();
    }
  });
});

describe('archive arithmetic', () => {
  it('keeps a family whole and passes over one with a job that may not leave', () => {
    const ok = { _id: 'a', status: 'complete' };
    const families = familiesOf(
      [ok, { _id: 'b', status: 'error' }],
      [
        { _id: 'a1', status: 'complete', parent: 'a' },
        { _id: 'a2', status: 'canceled', parent: 'a1' },
        { _id: 'b1', status: 'paused', parent: 'b' },
      ],
    );
    expect(families.get('a')).toEqual({ root: 'a', ids: ['a', 'a1', 'a2'], archivable: true });
    expect(families.get('b')).toEqual({ root: 'b', ids: ['b', 'b1'], archivable: false });
    expect(mayArchive({ _id: 'x', status: 'running' })).toBe(false);
    expect(mayArchive({ _id: 'x', status: 'complete', lease: 'e' })).toBe(false);
    expect(mayArchive({ _id: 'x', status: 'complete', outbox: [{}] })).toBe(false);
    expect(mayArchive({ _id: 'x', status: 'complete', archive: 'other:000001' })).toBe(false);
    expect(mayArchive({ _id: 'x', status: 'complete', outbox: [] })).toBe(true);
  });

  it('reads the cut-off and statuses, and derives due times and their archive ids', () => {
    expect(cutoffOf('2026-01-02T03:04:05.000Z')).toBe(Date.parse('2026-01-02T03:04:05.000Z'));
    expect(cutoffOf(1_700_000_000_000)).toBe(1_700_000_000_000);
    expect(statusesOf(undefined)).toEqual(['complete', 'error', 'canceled']);
    expect(statusesOf('error')).toEqual(['error']);
    expect(retentionDueAt(Date.parse('2026-03-04T15:00:00Z'), DAY_MS)).toBe(Date.parse('2026-03-04T00:00:00Z'));
    expect(retentionArchiveId(Date.parse('2026-03-04T00:00:00Z'))).toBe('retention-2026-03-04T00-00-00-000Z');
  });
});
