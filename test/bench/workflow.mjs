#!/usr/bin/env node
// Workflow engine benchmark (built dist/ code; `npm run build` first):
//  1. Jobs of 20 built-in tasks in a chain, 50 jobs at once, on the standalone platform (in-process
//     bus, embedded store) and again over a real nats-server: task transitions per second and
//     p50/p99 transition latency (a task's end to the next task's start, from the job documents).
//     Baseline measured in the same run: the store floor, 50 chains of 20 sequential single-document
//     updates of the same job documents (one write per transition is what the engine needs at least).
//  2. A filtered page of GET /operations-manager/jobs over 100,000 stored jobs (NAP_BENCH_JOBS):
//     p50/p95 latency through HTTP, against a point read of one job (GET /operations-manager/jobs/:id)
//     as the baseline in the same run.
// Targets (issue 3): >= 2,000 transitions/s standalone, p50 < 5 ms; filtered page p95 < 50 ms.
// (Pages against the size of history: pages.mjs.) `--smoke`: 1 round of 3 jobs, 2,000 stored jobs,
// 20 page requests (proves it runs).
import { createRequire } from 'node:module';
import { report, size } from './report.mjs';
import { startBenchPlatform, watchJobs } from './standalone.mjs';

const require = createRequire(import.meta.url);
const { startNatsServer } = require('../../packages/testing/dist/index.js');

const CHAIN = 20;
const CONCURRENT = size(50, 3);
const ROUNDS = Number(process.env.NAP_BENCH_ROUNDS ?? size(3, 1));
const JOBS = Number(process.env.NAP_BENCH_JOBS ?? size(100_000, 2_000));
const PAGE_REQUESTS = Number(process.env.NAP_BENCH_PAGES ?? size(300, 20));

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : String(n));

async function withPlatform(extraConfig, fn) {
  const { platform, api, stop } = await startBenchPlatform('wf', { env: extraConfig });
  try {
    return await fn({ platform, api });
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

async function runChains(label, extraConfig) {
  return withPlatform(extraConfig, async ({ platform, api }) => {
    await api('POST', '/automation-studio/automations', { automation: chainWorkflow('bench-chain') });
    const watch = await watchJobs(platform, label);
    const results = [];
    // one warm-up round, then ROUNDS measured
    for (let round = 0; round <= ROUNDS; round += 1) {
      const { elapsedMs, done } = await watch.run(() =>
        Promise.all(
          Array.from({ length: CONCURRENT }, (_, i) =>
            api('POST', '/workflow_engine/startJobWithOptions/bench-chain', {
              options: { variables: { seed: `s${i}`, data: { a: { b: i } } } },
            }).then((j) => j._id),
          ),
        ),
      );
      if (round > 0) results.push({ elapsedMs, transitions: CONCURRENT * CHAIN, lat: latencies(done) });
    }
    await watch.stop();
    const transitions = results.reduce((s, r) => s + r.transitions, 0);
    const elapsed = results.reduce((s, r) => s + r.elapsedMs, 0);
    const lat = results.flatMap((r) => r.lat).sort((a, b) => a - b);
    return { label, perSecond: (transitions / elapsed) * 1000, p50: quantile(lat, 0.5), p99: quantile(lat, 0.99) };
  });
}

/** The store floor: 50 chains of 20 sequential updates of a job-sized document, concurrently. */
async function storeFloor() {
  return withPlatform({}, async ({ platform }) => {
    const jobs = platform.stores.get('workflow').collection('bench_floor');
    const doc = {
      status: 'running',
      tasks: Object.fromEntries(Object.entries(chainWorkflow('x').tasks).map(([k, t]) => [k, { ...t, status: 'incomplete' }])),
      variables: { seed: 's' },
    };
    const ids = (await jobs.insertMany(Array.from({ length: CONCURRENT }, () => structuredClone(doc)))).map((d) => d._id);
    let total = 0;
    let count = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      const started = performance.now();
      await Promise.all(
        ids.map(async (id) => {
          for (let i = 0; i < CHAIN; i += 1)
            await jobs.updateOne(
              { _id: id, status: 'running' },
              {
                $set: {
                  [`tasks.t${i.toString(16).padStart(3, '0')}`]: { status: 'complete', metrics: { end_time: Date.now() } },
                  last_updated: new Date().toISOString(),
                },
              },
            );
        }),
      );
      total += performance.now() - started;
      count += CONCURRENT * CHAIN;
    }
    return { label: 'store floor (updates)', perSecond: (count / total) * 1000 };
  });
}

async function filteredPages() {
  return withPlatform({}, async ({ platform, api }) => {
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
  });
}

const nats = await startNatsServer({ jetstream: true });
try {
  const floor = await storeFloor();
  const standalone = await runChains('standalone (memory bus)', {});
  const overNats = await runChains('over nats-server', { NAP_NATS_URL: nats.url });
  console.log(`\nJobs of ${CHAIN} built-in tasks in a chain, ${CONCURRENT} jobs at once, ${ROUNDS} rounds (+1 warm-up)`);
  console.log(`  baseline  ${floor.label.padEnd(26)} ${fmt(floor.perSecond, 0).padStart(8)} writes/s`);
  for (const r of [standalone, overNats]) {
    console.log(
      `  engine    ${r.label.padEnd(26)} ${fmt(r.perSecond, 0).padStart(8)} transitions/s  (${fmt(r.perSecond / floor.perSecond, 2)}x the store floor)  latency p50 ${fmt(r.p50)} ms  p99 ${fmt(r.p99)} ms`,
    );
  }
  console.log(
    `  target: >= 2000 transitions/s standalone (${standalone.perSecond >= 2000 ? 'met' : 'NOT met'}), p50 < 5 ms (${standalone.p50 < 5 ? 'met' : 'NOT met'})`,
  );
  const floorRate = { name: floor.label, value: floor.perSecond };
  report({ name: 'transitions standalone', value: standalone.perSecond, unit: 'transitions/s', target: '>= 2000', baseline: floorRate });
  report({ name: 'transition latency p50 standalone', value: standalone.p50, unit: 'ms', target: '< 5' });
  report({ name: 'transitions over nats-server', value: overNats.perSecond, unit: 'transitions/s', baseline: floorRate, better: 'higher' });

  const pages = await filteredPages();
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
