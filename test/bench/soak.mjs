#!/usr/bin/env node
// Memory soak of the standalone platform (built dist/ code; `npm run build` first). The platform runs
// as a child process with V8's old space capped (NAP_BENCH_SOAK_OLD_SPACE_MB, 352 MB), so that
// garbage cannot pose as growth, and the memory probe (test/support/memory-probe.cjs) answering its
// memory after a full GC. Short jobs of three built-in tasks each (newVariable, stringConcat, query)
// are started 50 at a time through HTTP: a warm-up of NAP_BENCH_SOAK_WARMUP jobs (5,000), then
// NAP_BENCH_SOAK_JOBS more (100,000), sampling every NAP_BENCH_SOAK_EVERY jobs (10,000) once the
// jobs so far have finished: heap used and external memory after a full GC, RssAnon and RssFile.
// Prints the memory retained per finished job (slope of heap used + external over the samples, and
// end minus start), target <= 0.5 KiB; when over it, the heap snapshots' top growth and retainers.
// Baseline in the same run: the same process's retained memory right after the warm-up. Settings of
// the platform come from the environment (NAP_MEMORY_EVENTS_MAX_BYTES: the in-process event stream).
// Every figure also goes out as a BENCH line (report.mjs) for run.mjs's table.
//   node test/bench/soak.mjs [--snapshots]   full size (minutes)
//   node test/bench/soak.mjs --smoke         10 + 20 jobs (two stretches: three samples, so both slopes) and
//                                            the heap snapshots' diff: proves it runs
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { shortJobWorkflow, startChildPlatform } from './child-platform.mjs';
import { diffHeapSnapshots } from './heap-diff.mjs';
import { report, size, SMOKE } from './report.mjs';

// heap snapshots are taken when the target is not met, or always with --snapshots (and --smoke, so that the code runs)
const FORCE_SNAPSHOTS = process.argv.includes('--snapshots') || SMOKE;
const env = (name, fallback) => Number(process.env[name] ?? fallback);
const WARMUP = size(env('NAP_BENCH_SOAK_WARMUP', 5_000), 10);
const JOBS = size(env('NAP_BENCH_SOAK_JOBS', 100_000), 20);
const EVERY = size(env('NAP_BENCH_SOAK_EVERY', 10_000), 10);
const OLD_SPACE_MB = env('NAP_BENCH_SOAK_OLD_SPACE_MB', 352);
const CONCURRENT = 50;
const TARGET_KIB = 0.5;
const KiB = 1024;

/** Starts `count` jobs, `CONCURRENT` requests in flight at a time. */
async function startJobs(platform, workflow, count, offset) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = offset + next++;
      await platform.api('POST', `/workflow_engine/startJobWithOptions/${workflow}`, {
        options: { variables: { seed: `s${i}`, data: { a: { b: i } } } },
      });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT }, worker));
}

/** Waits until no job is active any more (and the events of the last ones had time to leave their outbox). */
async function settle(platform) {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const page = await platform.api('GET', '/operations-manager/jobs?in[status]=running,paused&limit=1&include=_id');
    if (page.total === 0) break;
    if (Date.now() > deadline) throw new Error(`${page.total} jobs are still active after 5 minutes`);
    // a smoke run's few jobs end within a tenth of a second
    await new Promise((r) => setTimeout(r, size(200, 25)));
  }
  // the event relay removes published events in batches (250 ms): let the last batch go (and a
  // margin, which a smoke run, whose figures mean nothing, need not give it)
  await new Promise((r) => setTimeout(r, size(600, 300)));
}

async function sample(platform, jobs) {
  const { memory } = await platform.memory();
  const proc = platform.procMemory();
  return { jobs, heapUsed: memory.heapUsed, external: memory.external, arrayBuffers: memory.arrayBuffers, ...proc };
}

/** Least-squares slope of y over x. */
function slope(points, y) {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, p) => s + p.jobs, 0) / n;
  const my = points.reduce((s, p) => s + y(p), 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.jobs - mx) * (y(p) - my);
    den += (p.jobs - mx) ** 2;
  }
  return num / den;
}

const mib = (bytes) => (bytes / KiB / KiB).toFixed(1);
const retained = (p) => p.heapUsed + p.external;

async function main() {
  console.log(
    `Memory soak: ${WARMUP} warm-up jobs, then ${JOBS} jobs of 3 built-in tasks, ${CONCURRENT} at a time; old space capped at ${OLD_SPACE_MB} MB${SMOKE ? ' (smoke)' : ''}`,
  );
  const platform = await startChildPlatform('soak', { maxOldSpaceMb: OLD_SPACE_MB, probe: true });
  const snapshots = mkdtempSync(path.join(os.tmpdir(), 'nap-soak-heap-'));
  try {
    await platform.api('POST', '/automation-studio/automations', { automation: shortJobWorkflow('soak') });
    let started = performance.now();
    await startJobs(platform, 'soak', WARMUP, 0);
    await settle(platform);
    const warmupSeconds = (performance.now() - started) / 1000;
    console.log(`  warm-up: ${WARMUP} jobs in ${warmupSeconds.toFixed(1)} s`);
    report({ name: `warm-up, start to finish, ${WARMUP} jobs`, value: WARMUP / warmupSeconds, unit: 'jobs/s', better: 'higher' });
    const samples = [await sample(platform, 0)];
    console.log('  jobs after warm-up   heap used   external   heap+ext/job   RssAnon   RssFile');
    const print = (p) =>
      console.log(
        `  ${String(p.jobs).padStart(18)}   ${mib(p.heapUsed).padStart(6)} MiB ${mib(p.external).padStart(6)} MiB ${
          p.jobs === 0 ? '             ' : `${((retained(p) - retained(samples[0])) / p.jobs / KiB).toFixed(3).padStart(9)} KiB`
        }   ${(p.rssAnon / KiB).toFixed(1).padStart(6)} MiB ${(p.rssFile / KiB).toFixed(1).padStart(6)} MiB`,
      );
    print(samples[0]);
    // snapshots are taken over the last stretch only: writing one inflates the process's RSS for good
    const first = path.join(snapshots, 'before-last-stretch.heapsnapshot');
    let firstTaken = false;
    started = performance.now();
    for (let done = 0; done < JOBS;) {
      const batch = Math.min(EVERY, JOBS - done);
      const lastStretch = done + batch >= JOBS;
      if (lastStretch && (FORCE_SNAPSHOTS || slope(samples, retained) / KiB > TARGET_KIB || samples.length === 1)) {
        await platform.snapshot(first);
        firstTaken = true;
      }
      await startJobs(platform, 'soak', batch, WARMUP + done);
      done += batch;
      await settle(platform);
      const p = await sample(platform, done);
      samples.push(p);
      print(p);
    }
    const seconds = (performance.now() - started) / 1000;
    const perJobSlope = slope(samples, retained) / KiB;
    // the second half alone: bounded caches (the in-process event stream's window) have filled by then
    const steadySlope = slope(samples.slice(Math.floor(samples.length / 2)), retained) / KiB;
    const last = samples[samples.length - 1];
    const perJobEnds = (retained(last) - retained(samples[0])) / JOBS / KiB;
    const anonPerJob = ((last.rssAnon - samples[0].rssAnon) * KiB) / JOBS / KiB;
    console.log(`  ${JOBS} jobs in ${seconds.toFixed(1)} s (${Math.round(JOBS / seconds)} jobs/s)`);
    console.log(`  baseline: heap used + external after the warm-up ${mib(retained(samples[0]))} MiB`);
    console.log(
      `  retained per finished job: ${perJobSlope.toFixed(3)} KiB (slope), ${perJobEnds.toFixed(3)} KiB (end - start), ${steadySlope.toFixed(3)} KiB (slope of the second half); RssAnon ${anonPerJob.toFixed(3)} KiB/job${firstTaken ? ' (inflated by the first heap snapshot)' : ''}`,
    );
    const met = perJobSlope <= TARGET_KIB && perJobEnds <= TARGET_KIB;
    console.log(`  target <= ${TARGET_KIB} KiB per job: ${met ? 'met' : 'NOT met'}`);
    const target = `<= ${TARGET_KIB}`;
    report({ name: `retained per finished job, slope over ${JOBS} jobs`, value: perJobSlope, unit: 'KiB/job', target });
    report({ name: `retained per finished job, end - start of ${JOBS} jobs`, value: perJobEnds, unit: 'KiB/job', target });
    report({ name: 'retained per finished job, slope of the second half', value: steadySlope, unit: 'KiB/job', target });
    report({
      name: `RssAnon per finished job${firstTaken ? ' (inflated by the first heap snapshot)' : ''}`,
      value: anonPerJob,
      unit: 'KiB/job',
      better: 'lower',
    });
    report({
      name: `heap used + external after ${JOBS} more jobs`,
      value: retained(last) / KiB / KiB,
      unit: 'MiB',
      baseline: { name: `heap used + external after the ${WARMUP} warm-up jobs`, value: retained(samples[0]) / KiB / KiB },
      better: 'lower',
    });
    report({ name: `start to finish, ${JOBS} jobs, ${CONCURRENT} at a time`, value: JOBS / seconds, unit: 'jobs/s', better: 'higher' });
    if (firstTaken && (!met || FORCE_SNAPSHOTS)) {
      const second = path.join(snapshots, 'end.heapsnapshot');
      await platform.snapshot(second);
      const diff = diffHeapSnapshots(first, second);
      const stretch = samples.length > 1 ? last.jobs - samples[samples.length - 2].jobs : JOBS;
      console.log(`  heap growth over the last ${stretch} jobs (heap snapshots), by type and constructor:`);
      for (const g of diff.groups)
        console.log(`    ${(g.bytes / KiB).toFixed(0).padStart(9)} KiB  ${String(g.count).padStart(8)} objects  ${g.key}`);
      console.log('  what keeps a new object of the top groups alive (each line held by the next, through the named member):');
      for (const r of diff.retainers) {
        console.log(`    ${r.chain[0]}`);
        for (const link of r.chain.slice(1)) console.log(`      <- ${link}`);
      }
    }
  } finally {
    await platform.stop();
    rmSync(snapshots, { recursive: true, force: true });
  }
}

await main();
