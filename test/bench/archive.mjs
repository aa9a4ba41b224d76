#!/usr/bin/env node
// Job archive benchmark (built dist/ code; `npm run build` first): POST /operations-manager/jobs/archive
// over 100,000 finished root jobs (every fifth with a child job) in the standalone platform (embedded
// store, in-process bus), timed from the request to the archive complete in GET
// /operations-manager/jobs/archives: jobs/s, compressed size and ratio to the jobs' JSON.
// Baseline measured in the same run, on an identical copy of the jobs in another collection: the
// store floor of moving jobs out, reading them in id pages of the archive's batch size and deleting
// each page (what any archive must do at least, without compressing, writing parts or keeping metrics).
//   node test/bench/archive.mjs                 100,000 root jobs (NAP_BENCH_JOBS to change)
//   node test/bench/archive.mjs --smoke         300: proves the bench still runs (figures mean nothing)
//   NAP_JOB_ARCHIVE_BATCH=500 node test/bench/archive.mjs   another batch size (200 by default)
import os from 'node:os';
import { report, size, SMOKE } from './report.mjs';
import { createRequire } from 'node:module';
import { startBenchPlatform } from './standalone.mjs';

const require = createRequire(import.meta.url);
const { finishedJob } = require('../../packages/testing/dist/index.js');

const ROOTS = size(Number(process.env.NAP_BENCH_JOBS ?? 100_000), 300);
const BATCH = Number(process.env.NAP_JOB_ARCHIVE_BATCH ?? 200);
const DAY_MS = 86_400_000;
const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : String(n));

/** A finished job as the engine leaves it, about 2 KB of JSON: four steps, ids as the store makes them. */
function job(i, end, parent) {
  const id =
    `${Math.floor(end / 1000)
      .toString(16)
      .padStart(8, '0')}${i.toString(16).padStart(16, '0')}`.slice(0, 24) + (parent ? 'c' : '');
  const step = (n) => ({ incoming: { name: `v${n}`, value: `value ${i} ${n}` }, outgoing: { value: `value ${i} ${n}` } });
  return finishedJob({
    id,
    name: `bench-workflow-${i % 40}`,
    endTime: end,
    parent,
    status: i % 9 === 0 ? 'error' : 'complete',
    description: `bench job ${i}`,
    steps: { t1: step(1), t2: step(2), t3: step(3), t4: step(4) },
    groups: i % 3 === 0 ? ['bench-group'] : [],
    variables: { seed: `s${i}` },
  });
}

function jobsToStore() {
  const out = [];
  const base = Date.now() - 2 * DAY_MS;
  for (let i = 0; i < ROOTS; i += 1) {
    const root = job(i, base + i);
    out.push(root);
    if (i % 5 === 0) out.push(job(i, base + i - 1, root._id));
  }
  return out;
}

async function insertAll(collection, jobs) {
  for (let i = 0; i < jobs.length; i += 2_000) await collection.insertMany(jobs.slice(i, i + 2_000).map((j) => structuredClone(j)));
}

const { platform, api, stop } = await startBenchPlatform('archive', {
  // the retention keeps jobs 90 days by default: these ended two days ago and stay until asked
  env: { NAP_JOB_ARCHIVE_BATCH: String(BATCH) },
});
try {
  const store = platform.stores.get('workflow');
  const jobs = jobsToStore();
  const rawBytes = jobs.reduce((n, j) => n + Buffer.byteLength(JSON.stringify(j)) + 1, 0);
  const insertStarted = performance.now();
  await insertAll(store.collection('jobs'), jobs);
  await insertAll(store.collection('bench_floor_jobs'), jobs);
  const insertSeconds = (performance.now() - insertStarted) / 1000;

  // baseline: read in id pages of the batch size and delete each page
  const floorStarted = performance.now();
  const floorJobs = store.collection('bench_floor_jobs');
  for (;;) {
    const page = await floorJobs.find({}, { sort: { _id: 1 }, limit: BATCH });
    if (page.length === 0) break;
    await floorJobs.deleteMany({ _id: { $in: page.map((j) => j._id) } });
  }
  const floorSeconds = (performance.now() - floorStarted) / 1000;

  const started = performance.now();
  const requested = await api('POST', '/operations-manager/jobs/archive', { before: Date.now() });
  let archive;
  for (;;) {
    const page = await api('GET', `/operations-manager/jobs/archives?equals[_id]=${requested._id}`);
    archive = page.results[0];
    if (archive?.state === 'complete') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const archiveSeconds = (performance.now() - started) / 1000;
  const left = await store.collection('jobs').countDocuments({});
  if (archive.jobs !== jobs.length || left !== 0)
    throw new Error(`archived ${archive.jobs} of ${jobs.length} jobs, ${left} left in the store`);

  const floorRate = jobs.length / floorSeconds;
  const archiveRate = jobs.length / archiveSeconds;
  console.log(
    `\nJob archive${SMOKE ? ' (smoke size: checks that it runs, figures mean nothing)' : ''} over ${ROOTS} root jobs + ${jobs.length - ROOTS} child jobs (${fmt(rawBytes / 1e6, 1)} MB of JSON, inserted twice in ${fmt(insertSeconds, 1)} s), batches of ${BATCH}`,
  );
  console.log(
    `  load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} on ${os.cpus().length} cores`,
  );
  console.log(
    `  baseline  store floor: read pages of ${BATCH} by id, delete each   ${fmt(floorRate).padStart(8)} jobs/s  (${fmt(floorSeconds, 1)} s)`,
  );
  console.log(
    `  archive   POST /operations-manager/jobs/archive to complete          ${fmt(archiveRate).padStart(8)} jobs/s  (${fmt(archiveSeconds, 1)} s, ${fmt(archiveRate / floorRate, 2)}x the floor)`,
  );
  console.log(`  archive file ${fmt(archive.bytes / 1e6, 2)} MB gzip, ${fmt(rawBytes / archive.bytes, 1)}x smaller than the jobs' JSON`);
  const floor = { name: `store floor: read pages of ${BATCH} by id, delete each`, value: floorRate };
  report({
    name: `archive, POST to complete (batches of ${BATCH})`,
    value: archiveRate,
    unit: 'jobs/s',
    baseline: floor,
    better: 'higher',
  });
  report({ name: 'archive file, gzip', value: archive.bytes / 1e6, unit: 'MB', better: 'lower' });
  report({ name: "archive file, times smaller than the jobs' JSON", value: rawBytes / archive.bytes, unit: 'ratio', better: 'higher' });
} finally {
  await stop();
}
