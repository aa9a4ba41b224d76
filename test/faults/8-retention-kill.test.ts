/**
 * Scenario 8: kill -9 of the standalone process while the job retention archives 2,500 old jobs
 * (root jobs, every fourth with a child job, every tenth with a value kept out of its document in
 * `job_values`). The default profile keeps jobs 90 days; the jobs ended 200 days ago, so the
 * retention archives them at its first due time, in batches of 100. The process is killed twice
 * inside a batch (a third and two thirds into one), each time restarted on the same data directory;
 * then the archive is finished: every job is in it exactly once (nothing lost, nothing archived
 * twice), none is left in the store, and the job metrics still count them all. The phase each kill
 * landed in and the time to finish are printed.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createEmbeddedStore } from '@nap/store';
import { eventually, finishedJob } from '@nap/testing';
import type { FinishedJob } from '@nap/testing';
import { sleep } from '@nap/util';
import { figure } from './support/figures';
import { Standalone, dataDirectory, progress } from './support/platform';

const SCENARIO = '7 standalone kill -9 during the job retention, 2,500 jobs';
const ROOTS = 2_000;
const DAY_MS = 86_400_000;
const BATCH = 100;

const data = dataDirectory('retention');
let platform: Standalone | undefined;

afterAll(async () => {
  await platform?.stop();
  data.remove();
});

interface Archive {
  _id: string;
  state: string;
  jobs: number;
  roots: number;
  bytes: number;
}

function storeOf(dataDir: string) {
  return createEmbeddedStore({ path: path.join(dataDir, 'nap_workflow') });
}

/** Stores the old jobs before the platform starts (the embedded store is one process's); answers their ids by workflow. */
async function seed(dataDir: string): Promise<Map<string, string[]>> {
  const store = storeOf(dataDir);
  const byWorkflow = new Map<string, string[]>();
  try {
    const end = Date.now() - 200 * DAY_MS;
    const jobs: Record<string, unknown>[] = [];
    const values: Record<string, unknown>[] = [];
    const add = (job: FinishedJob) => {
      jobs.push(job);
      byWorkflow.set(job.name, [...(byWorkflow.get(job.name) ?? []), job._id]);
    };
    for (let i = 0; i < ROOTS; i += 1) {
      const id = `old-${String(i).padStart(5, '0')}`;
      let big: { id: string; bytes: number } | undefined;
      if (i % 10 === 0) {
        const json = JSON.stringify({ report: 'r'.repeat(80_000), n: i });
        big = { id: `${id}:${createHash('sha256').update(json).digest('hex')}`, bytes: Buffer.byteLength(json) };
        values.push({ _id: big.id, job: id, json, bytes: big.bytes });
      }
      add(
        finishedJob({
          id,
          name: i % 2 === 0 ? 'kept-even' : 'kept-odd',
          endTime: end + i * 1_000,
          status: Number(id.slice(-1)) % 7 === 0 ? 'error' : 'complete',
          steps: {
            a1: { incoming: { name: 'n', value: 1 }, outgoing: { value: big ? { __nap_job_value: big.id, bytes: big.bytes } : 1 } },
          },
        }),
      );
      if (i % 4 === 0) add(finishedJob({ id: `${id}-child`, name: 'kept-child', endTime: end + i * 1_000 - 10, parent: id }));
    }
    for (let i = 0; i < jobs.length; i += 500) await store.collection('jobs').insertMany(jobs.slice(i, i + 500) as { _id: string }[]);
    await store.collection('job_values').insertMany(values as { _id: string }[]);
  } finally {
    await store.close();
  }
  return byWorkflow;
}

/** What the killed process left on disk: archived so far, the phase of the batch under way, jobs still in the store. */
async function snapshot(dataDir: string) {
  const store = storeOf(dataDir);
  try {
    const [archive] = await store.collection<{ _id: string; nextBatch: number; jobs: number }>('job_archives').find({});
    const underWay = archive
      ? await store
          .collection<{ _id: string; phase: string }>('job_archive_batches')
          .findOne({ _id: `${archive._id}:${String(archive.nextBatch).padStart(6, '0')}` })
      : null;
    return {
      archived: archive?.jobs ?? 0,
      batchesDone: archive?.nextBatch ?? 0,
      phase: underWay?.phase ?? 'not planned',
      left: await store.collection('jobs').countDocuments({}),
      marked: await store.collection('jobs').countDocuments({ archive: { $exists: true } }),
    };
  } finally {
    await store.close();
  }
}

async function archives(client: Standalone['client']): Promise<Archive[]> {
  const res = await client.request('GET', '/operations-manager/jobs/archives');
  if (res.status !== 200) throw new Error(`GET archives: ${res.status} ${res.error ?? JSON.stringify(res.body)}`);
  return (res.body as { results: Archive[] }).results;
}

/**
 * Watches the archive fill until two batches passed (their period), then kills the process a
 * `fraction` of a batch period after the last one ended: inside the batch under way, at a phase that
 * differs with the fraction. The sleep places the fault; nothing waits on it for a result.
 */
async function killInsideABatch(target: Standalone, fraction: number): Promise<{ seen: number; periodMs: number }> {
  const { client } = target;
  let last = -1;
  let lastAt = 0;
  const periods: number[] = [];
  await eventually(
    'two batches archived',
    async () => {
      const [archive] = await archives(client);
      const jobs = archive?.jobs ?? -1;
      if (jobs > 0 && jobs !== last) {
        if (last > 0) periods.push(Date.now() - lastAt);
        last = jobs;
        lastAt = Date.now();
      }
      return periods.length >= 2;
    },
    { timeoutMs: 300_000, intervalMs: 10 },
  );
  const period = [...periods].sort((a, b) => a - b)[0] as number;
  await sleep(Math.max(0, lastAt + period * fraction - Date.now()));
  await target.kill();
  return { seen: last, periodMs: period };
}

it('finishes the archive after two kill -9 inside batches: every job archived once, none left, metrics unchanged', async () => {
  const byWorkflow = await seed(data.dir);
  const seeded = [...byWorkflow.values()].flat();
  progress(`scenario 8: ${seeded.length} jobs stored, starting the platform`);
  platform = await Standalone.start(data.dir, { NAP_JOB_ARCHIVE_BATCH: String(BATCH), NAP_JOB_RETENTION_INTERVAL_MS: '600000' });
  const { client } = platform;

  // the retention's first due time is the platform's first start: its archive fills while we watch
  const kills: { seen: number; phase: string; onDisk: number; marked: number; restartMs: number }[] = [];
  let firstKill = { seen: 0, periodMs: 0 };
  for (const fraction of [0.3, 0.7]) {
    const kill = await killInsideABatch(platform, fraction);
    if (kills.length === 0) firstKill = kill;
    const disk = await snapshot(data.dir);
    progress(
      `scenario 8: killed with ${disk.archived} jobs archived (${disk.batchesDone} batches), the batch under way ${disk.phase}, ${disk.marked} jobs marked`,
    );
    const restartAt = Date.now();
    await platform.launch();
    await client.login();
    kills.push({ seen: kill.seen, phase: disk.phase, onDisk: disk.archived, marked: disk.marked, restartMs: Date.now() - restartAt });
  }
  const resumedAt = Date.now();
  const done = await eventually(
    'the archive complete after the restarts',
    async () => {
      const [archive] = await archives(client);
      return archive?.state === 'complete' && archive;
    },
    { timeoutMs: 300_000, intervalMs: 100 },
  );
  const completeAt = Date.now();

  const res = await fetch(`${client.url}/operations-manager/jobs/archives/${done._id}`, {
    headers: { authorization: `Bearer ${client.token}` },
  });
  expect(res.status).toBe(200);
  const lines = gunzipSync(Buffer.from(await res.arrayBuffer()))
    .toString('utf8')
    .trimEnd()
    .split('\n');
  type Line = { _id: string; tasks?: { a1?: { variables?: { outgoing?: { value?: { n?: number } } } } } };
  const jobs = lines.map((l) => JSON.parse(l) as Line);
  const ids = jobs.map((j) => j._id);
  const archived = new Set(ids);
  const duplicates = ids.length - archived.size;
  const lost = seeded.filter((id) => !archived.has(id));
  const big = jobs.find((j) => j._id === 'old-00010');
  const left = (await client.ok<{ total: number }>('GET', '/operations-manager/jobs?limit=1')).total;
  const metrics = (await client.ok<{ results: { workflow: string; jobsTotal: number }[] }>('GET', '/workflow_engine/jobs/metrics')).results;

  figure(SCENARIO, 'jobs stored (roots and children)', seeded.length);
  figure(
    SCENARIO,
    'archive throughput before the first kill (a batch / its time)',
    (BATCH / (firstKill.periodMs / 1_000)).toFixed(0),
    'jobs/s',
  );
  for (const [i, k] of kills.entries()) {
    figure(SCENARIO, `kill ${i + 1}: jobs archived (seen / on disk)`, `${k.seen} / ${k.onDisk} (batches of ${BATCH})`);
    figure(SCENARIO, `kill ${i + 1}: phase of the batch under way`, `${k.phase}, ${k.marked} jobs marked`);
    figure(SCENARIO, `kill ${i + 1}: restart to listening`, k.restartMs, 'ms');
  }
  figure(SCENARIO, 'last restart to archive complete', completeAt - resumedAt, 'ms');
  figure(SCENARIO, 'jobs archived twice', duplicates, '', '0');
  figure(SCENARIO, 'jobs lost', lost.length, '', '0');
  figure(SCENARIO, 'jobs left in the store', left, '', '0');

  expect(duplicates).toBe(0);
  expect(lost).toEqual([]);
  expect(ids).toHaveLength(seeded.length);
  expect(done).toMatchObject({ jobs: seeded.length, roots: ROOTS });
  expect(left).toBe(0);
  // a value kept out of its job document is in the archive in its place
  expect(big?.tasks?.a1?.variables?.outgoing?.value?.n).toBe(10);
  for (const [workflow, jobIds] of byWorkflow) expect(metrics.find((m) => m.workflow === workflow)?.jobsTotal).toBe(jobIds.length);
  expect(platform.process?.crashed()).toBe(false);
});
