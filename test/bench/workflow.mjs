#!/usr/bin/env node
// Workflow engine benchmark (built dist/ code; `npm run build` first):
//  1. Jobs of 20 built-in tasks in a chain, 50 jobs at once, on the standalone platform (in-process
//     bus, embedded store) and again over a real nats-server: task transitions per second, the CPU
//     the process spent per transition (user + system, every thread, from /proc) and p50/p99
//     transition latency (a task's end to the next task's start, from the job documents).
//     The platform runs under the Node flags of `npm start` (platform-flags.mjs), and the rounds
//     counted follow NAP_BENCH_WARMUP_SECONDS (5) of rounds that are not: the figures are of the
//     platform as it runs for hours, once V8 has optimised it; the first round is printed too.
//     Baseline measured in the same run, its rounds alternating with the standalone engine's on the
//     same disk (in a process of its own, store-floor.mjs, so that neither pays for the other's
//     garbage): the store floor, 50 chains of 20 sequential durable single-document updates of a
//     job-sized document (one write per transition is what the engine needs at least), with its CPU
//     per write.
//  2. A filtered page of GET /operations-manager/jobs over 100,000 stored jobs (NAP_BENCH_JOBS):
//     p50/p95 latency through HTTP, against a point read of one job (GET /operations-manager/jobs/:id)
//     as the baseline in the same run.
// The engine's ratio to the floor is the median of each round's ratio, the engine's round against
// the floor's round beside it, printed with its range: a machine whose speed drifts during the run
// moves both sides of a round alike.
// Targets (issues 3, 24): >= 2,000 transitions/s standalone and >= 0.8x the store floor, p50 < 5 ms;
// filtered page p95 < 50 ms.
// (Pages against the size of history: pages.mjs.) `--smoke`: 1 round of 3 jobs, 300 stored jobs,
// 5 page requests, the pages on the standalone engine's platform (proves it runs).
import { fork } from 'node:child_process';
import os from 'node:os';
import { createRequire } from 'node:module';
import { quantile, report, size, SMOKE, spread, spreadText } from './report.mjs';
import { cpuMs, startBenchPlatform, watchJobs } from './standalone.mjs';

const require = createRequire(import.meta.url);
const { startNatsServer } = require('../../packages/testing/dist/index.js');

const CHAIN = 20;
const CONCURRENT = size(50, 3);
const ROUNDS = Number(process.env.NAP_BENCH_ROUNDS ?? size(20, 1));
/**
 * Seconds of unmeasured rounds before the measured ones (the engine's and the floor's, alternating):
 * long enough for V8 to have optimised both, so that the figures are of the platform as it runs for
 * hours rather than of its first second. The first round is printed too (the cold start).
 */
const WARMUP_S = Number(process.env.NAP_BENCH_WARMUP_SECONDS ?? size(5, 0));
const JOBS = Number(process.env.NAP_BENCH_JOBS ?? size(100_000, 300));
const PAGE_REQUESTS = Number(process.env.NAP_BENCH_PAGES ?? size(300, 5));

const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : String(n));

async function withPlatform(extraConfig, fn) {
  const { platform, api, startJob, stop } = await startBenchPlatform('wf', { env: extraConfig });
  try {
    return await fn({ platform, api, startJob });
  } finally {
    await stop();
  }
}

function chainWorkflow(name) {
  const tasks = { workflow_start: { name: 'workflow_start', groups: [] }, workflow_end: { name: 'workflow_end', groups: [] } };
  const transitions = { workflow_end: {} };
  let previous = 'workflow_start';
  for (let i = 0; i < CHAIN; i += 1) {
    const id = `t${i.toString(16).padStart(3, '0')}`;
    // a mix of the most used built-ins, each reading the previous one's output
    const kind = i % 4;
    tasks[id] =
      kind === 0
        ? {
            name: 'newVariable',
            app: 'WorkFlowEngine',
            type: 'operation',
            groups: [],
            variables: { incoming: { name: `v${i}`, value: '$var.job.seed' }, outgoing: { value: null } },
          }
        : kind === 1
          ? {
              name: 'stringConcat',
              app: 'WorkFlowEngine',
              type: 'automatic',
              groups: [],
              variables: { incoming: { str: `$var.job.v${i - 1}`, stringN: '-x' }, outgoing: { combinedStrings: '$var.job.s' } },
            }
          : kind === 2
            ? {
                name: 'query',
                app: 'WorkFlowEngine',
                type: 'operation',
                groups: [],
                variables: { incoming: { pass_on_null: true, query: 'a.b', obj: '$var.job.data' }, outgoing: { return_data: null } },
              }
            : {
                name: 'evaluation',
                app: 'WorkFlowEngine',
                type: 'operation',
                groups: [],
                variables: {
                  incoming: {
                    all_true_flag: true,
                    evaluation_groups: [
                      {
                        all_true_flag: true,
                        evaluations: [
                          {
                            query: '',
                            operand_1: { task: 'job', variable: 'seed' },
                            operator: '!=',
                            operand_2: { task: 'static', variable: '' },
                          },
                        ],
                      },
                    ],
                  },
                  outgoing: { return_value: null },
                },
              };
    transitions[previous] = { [id]: { state: 'success', type: 'standard' } };
    previous = id;
  }
  transitions[previous] = { workflow_end: { state: 'success', type: 'standard' } };
  return { name, type: 'automation', groups: [], tasks, transitions };
}

/** Transition latencies (ms) of finished jobs: each task's start minus its predecessor's end. */
function latencies(jobs) {
  const out = [];
  for (const job of jobs) {
    for (const [from, targets] of Object.entries(job.transitions)) {
      for (const to of Object.keys(targets)) {
        const end = job.tasks[from]?.metrics?.end_time;
        const start = job.tasks[to]?.metrics?.start_time;
        if (typeof end === 'number' && typeof start === 'number' && from !== 'workflow_start' && to !== 'workflow_end')
          out.push(start - end);
      }
    }
  }
  return out.sort((a, b) => a - b);
}

/**
 * Starts CONCURRENT jobs of the chain at once and waits until the engine is done with them: each
 * ended (its last event was delivered) and its events left its outbox with its lease (the engine's
 * last write of a job), so a round counts all the engine's work and leaves none to the next. The
 * benchmark's reading of the finished jobs afterwards is not counted.
 */
async function chainRound(platform, startJob, watch) {
  const jobs = platform.stores.get('workflow').collection('jobs');
  const cpu = cpuMs();
  let cpuEnd = Number.NaN;
  const { elapsedMs, done } = await watch.run(
    () =>
      Promise.all(
        Array.from({ length: CONCURRENT }, (_, i) => startJob('bench-chain', { variables: { seed: `s${i}`, data: { a: { b: i } } } })),
      ),
    async () => {
      const deadline = Date.now() + 60_000;
      // counted on the lease index, no document read: every job of earlier rounds released its lease already
      while ((await jobs.countDocuments({ lease: { $gt: '' } }, { limit: 1 })) > 0) {
        if (Date.now() > deadline) throw new Error('the engine kept the leases of ended jobs for a minute');
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      cpuEnd = cpuMs();
    },
  );
  return { elapsedMs, cpuMs: cpuEnd - cpu, count: CONCURRENT * CHAIN, lat: latencies(done) };
}

/**
 * The store floor in a process of its own (store-floor.mjs): the standalone platform's workflow
 * store, CONCURRENT chains of CHAIN sequential durable updates of a job-sized document. Answers a
 * function that runs one round there, and one that stops it.
 */
async function startFloor() {
  const child = fork(new URL('./store-floor.mjs', import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = [];
  child.on('message', (reply) => waiting.shift()?.(reply));
  child.on('exit', (code) => {
    for (const settle of waiting.splice(0)) settle({ type: 'error', message: `the store floor process exited with ${code}` });
  });
  const ask = (message) =>
    new Promise((resolve, reject) => {
      waiting.push((reply) => (reply.type === 'error' ? reject(new Error(reply.message)) : resolve(reply)));
      child.send(message);
    });
  const doc = {
    status: 'running',
    tasks: Object.fromEntries(Object.entries(chainWorkflow('x').tasks).map(([k, t]) => [k, { ...t, status: 'incomplete' }])),
    variables: { seed: 's' },
  };
  await ask({ type: 'start', doc, concurrent: CONCURRENT, chain: CHAIN });
  return {
    round: async () => {
      const { elapsedMs, cpuMs: cpu, count } = await ask({ type: 'round' });
      return { elapsedMs, cpuMs: cpu, count };
    },
    stop: () => ask({ type: 'stop' }),
  };
}

/** Rate, CPU µs per unit and latencies of measured rounds. */
function summary(label, rounds) {
  const count = rounds.reduce((s, r) => s + r.count, 0);
  const elapsed = rounds.reduce((s, r) => s + r.elapsedMs, 0);
  const cpu = rounds.reduce((s, r) => s + r.cpuMs, 0);
  const lat = rounds.flatMap((r) => r.lat ?? []).sort((a, b) => a - b);
  return { label, perSecond: (count / elapsed) * 1000, cpuUs: (cpu * 1000) / count, p50: quantile(lat, 0.5), p99: quantile(lat, 0.99) };
}

/**
 * The standalone engine and the store floor (each in a process of its own, with a data directory
 * of its own on the same disk), their rounds alternating (after one warm-up round of each), so
 * both see the same machine and disk and neither pays for the other's garbage.
 */
async function standaloneAndFloor() {
  // the floor's process starts beside the platform: nothing is measured before both are up
  const floorStarting = startFloor();
  floorStarting.catch(() => {}); // a failure is thrown where it is awaited
  try {
    return await withPlatform({}, async ({ platform, api, startJob }) => {
      const floorProcess = await floorStarting;
      await api('POST', '/automation-studio/automations', { automation: chainWorkflow('bench-chain') });
      const watch = await watchJobs(platform, 'standalone');
      const floorRound = floorProcess.round;
      const engine = [];
      const floor = [];
      const ratios = [];
      const cold = {};
      const warmUntil = performance.now() + WARMUP_S * 1000;
      let measured = 0;
      for (let round = 0; measured < ROUNDS; round += 1) {
        // every round after the warm-up counts (at least one round warms up)
        const counts = round > 0 && performance.now() >= warmUntil;
        // the order alternates too: neither always runs right after the other's leftovers
        const first = round % 2 === 0 ? 'floor' : 'engine';
        const pair = {};
        for (const which of first === 'floor' ? ['floor', 'engine'] : ['engine', 'floor']) {
          const r = which === 'floor' ? await floorRound() : await chainRound(platform, startJob, watch);
          cold[which] ??= r;
          pair[which] = r;
          if (counts) (which === 'floor' ? floor : engine).push(r);
        }
        if (counts) {
          measured += 1;
          ratios.push(pair.engine.count / pair.engine.elapsedMs / (pair.floor.count / pair.floor.elapsedMs));
        }
      }
      await watch.stop();
      return {
        pages: SMOKE ? await filteredPages({ platform, api }) : undefined,
        // each round's engine against the floor of the same round: a machine whose speed drifts moves both alike
        ratio: spread(ratios),
        floor: summary('store floor (updates)', floor),
        standalone: summary('standalone (memory bus)', engine),
        coldFloor: summary('store floor, first round', [cold.floor]),
        coldStandalone: summary('standalone, first round', [cold.engine]),
      };
    });
  } finally {
    await floorStarting.then(
      (floorProcess) => floorProcess.stop(),
      () => {},
    );
  }
}

/** The engine over a real nats-server (its own platform). */
async function overNats(natsUrl) {
  return withPlatform({ NAP_NATS_URL: natsUrl }, async ({ platform, api, startJob }) => {
    await api('POST', '/automation-studio/automations', { automation: chainWorkflow('bench-chain') });
    const watch = await watchJobs(platform, 'over nats-server');
    const rounds = [];
    const warmUntil = performance.now() + WARMUP_S * 1000;
    for (let round = 0; rounds.length < ROUNDS; round += 1) {
      const r = await chainRound(platform, startJob, watch);
      if (round > 0 && performance.now() >= warmUntil) rounds.push(r);
    }
    await watch.stop();
    return summary('over nats-server', rounds);
  });
}

/**
 * The filtered page against a point read, on a platform of its own: the engine's jobs and garbage are
 * not in what it measures. A smoke run, whose figures mean nothing, runs it on the standalone
 * engine's platform (`shared`) rather than start a third one.
 */
async function filteredPages(shared) {
  const measure = async ({ platform, api }) => {
    const jobs = platform.stores.get('workflow').collection('jobs');
    const statuses = ['complete', 'complete', 'complete', 'error', 'canceled', 'running', 'paused'];
    const names = Array.from({ length: 40 }, (_, i) => `workflow-${i}`);
    const base = Date.now() - JOBS * 1000;
    const template = chainWorkflow('x');
    const smallTasks = Object.fromEntries(
      Object.entries(template.tasks)
        .slice(0, 6)
        .map(([k, t]) => [k, { ...t, status: 'complete', metrics: { start_time: 0, end_time: 0, finish_state: 'success' } }]),
    );
    const insertStarted = performance.now();
    for (let offset = 0; offset < JOBS; offset += 2_000) {
      const batch = [];
      for (let i = offset; i < Math.min(JOBS, offset + 2_000); i += 1) {
        const status = statuses[i % statuses.length];
        batch.push({
          _id: (
            Math.floor((base + i * 1000) / 1000)
              .toString(16)
              .padStart(8, '0') + i.toString(16).padStart(16, '0')
          ).slice(0, 24),
          name: names[i % names.length],
          description: `bench job ${i}`,
          type: 'automation',
          status,
          groups: [],
          ancestors: [],
          error:
            status === 'error'
              ? [{ task: 't001', message: 'No transition available from the completed tasks', timestamp: base + i * 1000 }]
              : [],
          metrics: {
            owner: i % 5 === 0 ? 'alice' : 'admin',
            start_time: base + i * 1000,
            end_time: base + i * 1000 + 500,
            finish_state: status,
            server_id: 'bench',
            claim_time: 0,
          },
          variables: { seed: `s${i}`, n: i },
          tasks: smallTasks,
          transitions: {},
        });
      }
      await jobs.insertMany(batch);
    }
    const insertSeconds = (performance.now() - insertStarted) / 1000;
    const queries = [
      (i) => `equals[status]=error&limit=25&skip=${(i % 20) * 25}`,
      (i) => `equals[name]=workflow-${i % 40}&limit=25`,
      (i) => `in[status]=error,canceled&limit=25&skip=${(i % 10) * 25}`,
      (i) => `equals[metrics.owner]=alice&limit=25&skip=${(i % 10) * 25}`,
      (i) => `equals[status]=complete&gte[metrics.start_time]=${base + (i % 50) * 1000 * 1000}&limit=25`,
    ];
    const timed = async (route) => {
      const t = performance.now();
      await api('GET', route);
      return performance.now() - t;
    };
    for (let i = 0; i < 20; i += 1) await timed(`/operations-manager/jobs?${queries[i % queries.length](i)}`);
    const pageTimes = [];
    const pointTimes = [];
    for (let i = 0; i < PAGE_REQUESTS; i += 1) {
      pageTimes.push(await timed(`/operations-manager/jobs?${queries[i % queries.length](i)}`));
      const page = i === 0 ? await api('GET', '/operations-manager/jobs?limit=1&include=_id') : undefined;
      if (page) pointTimes.id = page.items[0]._id;
      pointTimes.push(await timed(`/operations-manager/jobs/${pointTimes.id}`));
    }
    pageTimes.sort((a, b) => a - b);
    pointTimes.sort((a, b) => a - b);
    return {
      insertSeconds,
      page: { p50: quantile(pageTimes, 0.5), p95: quantile(pageTimes, 0.95) },
      point: { p50: quantile(pointTimes, 0.5), p95: quantile(pointTimes, 0.95) },
    };
  };
  return shared ? measure(shared) : withPlatform({}, measure);
}

const nats = await startNatsServer({ jetstream: true });
try {
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const { ratio, floor, standalone, coldFloor, coldStandalone, pages: smokePages } = await standaloneAndFloor();
  const natsRun = await overNats(nats.url);
  console.log(
    `\nJobs of ${CHAIN} built-in tasks in a chain, ${CONCURRENT} jobs at once, ${ROUNDS} rounds after ${WARMUP_S} s of warm-up rounds, floor and standalone alternating; load ${load} before, ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} after`,
  );
  console.log(
    `  baseline  ${floor.label.padEnd(26)} ${fmt(floor.perSecond, 0).padStart(8)} writes/s       CPU ${fmt(floor.cpuUs, 0).padStart(4)} us/write`,
  );
  for (const r of [standalone, natsRun]) {
    const ofFloor =
      r === standalone
        ? `x the store floor: ${spreadText(ratio)}, the median of the rounds and their range`
        : `x the store floor: ${fmt(r.perSecond / floor.perSecond, 2)}`;
    console.log(
      `  engine    ${r.label.padEnd(26)} ${fmt(r.perSecond, 0).padStart(8)} transitions/s  CPU ${fmt(r.cpuUs, 0).padStart(4)} us/transition  (${ofFloor})  latency p50 ${fmt(r.p50)} ms  p99 ${fmt(r.p99)} ms`,
    );
  }
  console.log(
    `  first round (cold start): store floor ${fmt(coldFloor.perSecond, 0)} writes/s, standalone engine ${fmt(coldStandalone.perSecond, 0)} transitions/s (${fmt(coldStandalone.perSecond / coldFloor.perSecond, 2)}x)`,
  );
  console.log(
    `  target: >= 0.8x the store floor standalone (${ratio.median >= 0.8 ? 'met' : 'NOT met'}), p50 < 5 ms (${standalone.p50 < 5 ? 'met' : 'NOT met'})`,
  );
  const floorRate = { name: floor.label, value: floor.perSecond };
  report({ name: 'transitions standalone', value: standalone.perSecond, unit: 'transitions/s', target: '>= 2000', baseline: floorRate });
  report({
    name: 'transitions standalone / store floor',
    value: ratio.median,
    unit: 'ratio',
    target: '>= 0.8',
  });
  report({
    name: 'CPU per transition standalone',
    value: standalone.cpuUs,
    unit: 'us',
    baseline: { name: 'CPU per store floor write', value: floor.cpuUs },
    better: 'lower',
  });
  report({
    name: 'transitions standalone, first round',
    value: coldStandalone.perSecond,
    unit: 'transitions/s',
    baseline: { name: coldFloor.label, value: coldFloor.perSecond },
    better: 'higher',
  });
  report({ name: 'transition latency p50 standalone', value: standalone.p50, unit: 'ms', target: '< 5' });
  report({ name: 'transitions over nats-server', value: natsRun.perSecond, unit: 'transitions/s', baseline: floorRate, better: 'higher' });

  const pages = smokePages ?? (await filteredPages());
  console.log(
    `\nGET /operations-manager/jobs over ${JOBS} stored jobs (inserted in ${fmt(pages.insertSeconds)} s), ${PAGE_REQUESTS} requests`,
  );
  console.log(`  baseline  point read GET /operations-manager/jobs/:id   p50 ${fmt(pages.point.p50)} ms  p95 ${fmt(pages.point.p95)} ms`);
  console.log(
    `  filtered page (status/name/owner/in/range, limit 25)   p50 ${fmt(pages.page.p50)} ms  p95 ${fmt(pages.page.p95)} ms  (${fmt(pages.page.p95 / pages.point.p95, 2)}x the point read)`,
  );
  console.log(`  target: p95 < 50 ms (${pages.page.p95 < 50 ? 'met' : 'NOT met'})`);
  report({
    name: `filtered page p95 over ${JOBS} jobs`,
    value: pages.page.p95,
    unit: 'ms',
    target: '< 50',
    baseline: { name: 'point read GET /operations-manager/jobs/:id p95', value: pages.point.p95 },
  });
} finally {
  await nats.stop();
}
