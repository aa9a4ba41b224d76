#!/usr/bin/env node
// Job pages against the size of history (issue 24; built dist/ code, `npm run build` first). One
// standalone platform (admin + workflow, embedded store) per history size, each in a process of
// its own, filled with 25,000, 100,000 and 1,000,000 finished jobs of about 5 KB written straight
// through the embedded store's API (through HTTP, a million jobs would take hours; the documents
// are what the engine stores, their visibility tokens included). Then, round after round, each
// platform in turn answers through HTTP:
//  1. the filtered page of the issue, GET /operations-manager/jobs?equals[status]=complete&limit=25;
//  2. a deep page of the same query, 90% down its history: by keyset (after=, the nextPageAfter of
//     the page before it) where the build has it, else by skip;
//  3. the first page as a user who sees two jobs in three (visibility is part of the query);
//  4. the baseline, measured in the same rounds: a point read, GET /operations-manager/jobs/:id;
//  5. a metrics scrape, GET /exporter_metrics (nap_jobs counts the jobs of each state in the store).
// Requests are sequential and interleaved across sizes, so a busy machine slows every size alike.
// Prints p50/p95 of each at each size and the ratio of the largest size to the smallest (target:
// at most 1.2). `--smoke`: 100 and 300 jobs, two rounds, no warm-up (proves it runs; figures mean
// nothing).
// Sizes: NAP_BENCH_PAGE_SIZES=25000,100000,1000000; rounds: NAP_BENCH_PAGE_ROUNDS (200).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { PLATFORM_NODE_FLAGS } from './platform-flags.mjs';
import { quantile, report, size, SMOKE } from './report.mjs';
import { startBenchPlatform } from './standalone.mjs';

const SIZES = (process.env.NAP_BENCH_PAGE_SIZES ?? size('25000,100000,1000000', '100,300')).split(',').map(Number);
const ROUNDS = Number(process.env.NAP_BENCH_PAGE_ROUNDS ?? size(200, 2));
const TARGET_RATIO = 1.2;
const STATUSES = ['complete', 'complete', 'complete', 'error', 'canceled'];
const OWNERS = ['alice', 'bob', 'admin'];
const BATCH = 1_000;

/** A finished job of a seven-task workflow, about 5 KB stored, as the engine writes it. */
function jobDocument(i, base, groupsOf) {
  const status = STATUSES[i % STATUSES.length];
  const owner = OWNERS[i % OWNERS.length];
  const start = base + i * 1000;
  const groups = groupsOf(i);
  const tasks = {};
  for (const [n, name] of ['newVariable', 'query', 'stringConcat', 'evaluation', 'query', 'newVariable', 'transformation'].entries()) {
    const id = `t${n.toString(16).padStart(3, '0')}`;
    tasks[id] = {
      name,
      app: 'WorkFlowEngine',
      type: 'operation',
      groups: [],
      status: 'complete',
      summary: `step ${n} of the nightly configuration check`,
      variables: {
        incoming: { name: `v${n}`, value: `$var.job.seed`, query: 'interfaces.GigabitEthernet0/0.state', pass_on_null: true },
        outgoing: { value: `device-${i % 500}-interface-${n}-up`, return_data: { ok: true, n, at: start + n } },
        error: '',
      },
      metrics: { start_time: start + n * 20, end_time: start + n * 20 + 15, finish_state: 'success', server_id: 'bench' },
    };
  }
  const job = {
    _id: (
      Math.floor(start / 1000)
        .toString(16)
        .padStart(8, '0') + i.toString(16).padStart(16, '0')
    ).slice(0, 24),
    name: `workflow-${i % 40}`,
    description: `nightly configuration check ${i}`,
    type: 'automation',
    tasks,
    transitions: Object.fromEntries(
      Object.keys(tasks).map((t, n, all) => [t, all[n + 1] ? { [all[n + 1]]: { state: 'success', type: 'standard' } } : {}]),
    ),
    font_size: 12,
    created: new Date(start).toISOString(),
    created_by: owner,
    last_updated: new Date(start + 500).toISOString(),
    last_updated_by: owner,
    groups,
    watchers: [owner],
    metrics: {
      owner,
      start_time: start,
      end_time: start + 500,
      run_time: 500,
      server_id: 'bench',
      claim_time: start,
      finish_state: status,
      app: { id: 'WorkFlowEngine', version: 'bench' },
    },
    status,
    lastUpdatedVersion: 'bench',
    canvasVersion: 3,
    decorators: [],
    ancestors: [],
    error: status === 'error' ? [{ task: 't003', message: 'No transition available from the completed tasks', timestamp: start + 80 }] : [],
    variables: { seed: `s${i}`, device: `device-${i % 500}`, site: `site-${i % 17}`, _id: 'x', initiator: owner },
    workflow: { name: `workflow-${i % 40}` },
    runAs: { id: `user-${owner}`, username: owner, roles: ['operations'], groups },
    outbox: [],
    eventsPublished: 3,
  };
  job.variables._id = job._id;
  return job;
}

/** One platform holding `jobs` jobs: fills its store, then prints what the parent needs as one JSON line. */
async function serveHistory(jobs) {
  const { platform, api, call, token, stop } = await startBenchPlatform(`pages-${jobs}`, { services: ['admin', 'workflow'] });
  const group = async (name) => (await api('POST', '/user-management/groups', { group: { name } })).data._id;
  const ops = await group('bench-ops');
  const net = await group('bench-net');
  await api('PUT', `/user-management/groups/${ops}/roles`, { roles: ['operations'] });
  await api('POST', '/user-management/accounts', {
    account: { username: 'carol', password: 'bench-password-1', firstname: 'C', lastname: 'B', email: 'carol@example.net', groups: [ops] },
  });
  const operator = await call('POST', '/login', { user: { username: 'carol', password: 'bench-password-1' } });
  const groupsOf = (i) => (i % 3 === 0 ? [] : i % 3 === 1 ? [ops] : [net]);
  // the service's own rule for visibility tokens, where the build has it
  // the service's own rule for visibility tokens (a build from before them has none: its jobs need none)
  const { jobVisibleTo: visibleTo } = createRequire(import.meta.url)('../../services/workflow/dist/domain/job-model.js');
  const store = platform.stores.get('workflow').collection('jobs');
  const base = Date.now() - jobs * 1000;
  const started = performance.now();
  for (let from = 0; from < jobs; from += BATCH) {
    const batch = [];
    for (let i = from; i < Math.min(jobs, from + BATCH); i += 1) {
      const job = jobDocument(i, base, groupsOf);
      if (typeof visibleTo === 'function') job.visibleTo = visibleTo(job);
      batch.push(job);
    }
    await store.insertMany(batch);
  }
  const fillSeconds = (performance.now() - started) / 1000;
  const filtered = 'equals[status]=complete&limit=25';
  const first = await api('GET', `/operations-manager/jobs?${filtered}&include=_id`);
  // 90% down the history of the query: its position, and the page that starts there
  const complete = Math.floor((jobs * 3) / 5);
  const depth = Math.floor(complete * 0.9);
  const before = await api('GET', `/operations-manager/jobs?${filtered.replace('limit=25', 'limit=1')}&skip=${depth - 1}&include=_id`);
  const deep =
    typeof before.nextPageAfter === 'string'
      ? `${filtered}&after=${encodeURIComponent(before.nextPageAfter)}`
      : `${filtered}&skip=${depth}`;
  console.log(
    `READY ${JSON.stringify({ url: platform.url, admin: token, operator, deep, keyset: deep.includes('after='), id: first.items[0]._id, fillSeconds })}`,
  );
  process.on('SIGTERM', () => void stop().then(() => process.exit(0)));
}

function startHistory(jobs) {
  const child = spawn(process.execPath, [...PLATFORM_NODE_FLAGS, fileURLToPath(import.meta.url), '--history', String(jobs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /READY (.*)\n/.exec(out);
      if (m) resolve({ jobs, child, ...JSON.parse(m[1]) });
    });
    child.once('exit', (code) => reject(new Error(`the platform of ${jobs} jobs exited ${code}:\n${out}`)));
  });
}

async function timed(url, token) {
  const t = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.text();
  const ms = performance.now() - t;
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${body.slice(0, 300)}`);
  return ms;
}

async function main() {
  const histories = await Promise.all(SIZES.map(startHistory));
  try {
    const cases = {
      filtered: (h) => [`${h.url}/operations-manager/jobs?equals[status]=complete&limit=25`, h.admin],
      deep: (h) => [`${h.url}/operations-manager/jobs?${h.deep}`, h.admin],
      operator: (h) => [`${h.url}/operations-manager/jobs?limit=25`, h.operator],
      'point read': (h) => [`${h.url}/operations-manager/jobs/${h.id}`, h.admin],
      // what a Prometheus scrape costs: the job gauges count the store by state
      scrape: (h) => [`${h.url}/exporter_metrics`, h.admin],
    };
    const samples = new Map(histories.map((h) => [h, Object.fromEntries(Object.keys(cases).map((c) => [c, []]))]));
    // warm-up (not in a smoke run: its rounds run the same code), then interleaved rounds: every size
    // sees the same moments of the machine's load
    for (let round = SMOKE ? 0 : -Math.min(20, ROUNDS); round < ROUNDS; round += 1) {
      for (const h of histories) {
        for (const [name, request] of Object.entries(cases)) {
          const ms = await timed(...request(h));
          if (round >= 0) samples.get(h)[name].push(ms);
        }
      }
    }
    const load = os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    console.log(`\nGET /operations-manager/jobs by stored jobs: ${ROUNDS} interleaved rounds, ${os.cpus().length} cores, load ${load}`);
    for (const h of histories) console.log(`  ${h.jobs.toLocaleString('en')} jobs filled in ${h.fillSeconds.toFixed(1)} s`);
    const deepHow = histories.every((h) => h.keyset) ? 'keyset (after=)' : 'skip';
    console.log(`  deep page: 90% down the filtered history, by ${deepHow}\n`);
    console.log(`| query | ${histories.map((h) => `${h.jobs.toLocaleString('en')} jobs p50 / p95 ms`).join(' | ')} | p50 ratio |`);
    console.log(`|---|${histories.map(() => '---:').join('|')}|---:|`);
    const smallest = histories[0];
    const largest = histories[histories.length - 1];
    const p = (h, name, q = 0.5) =>
      quantile(
        [...samples.get(h)[name]].sort((a, b) => a - b),
        q,
      );
    const ratioOf = (name) => p(largest, name) / p(smallest, name);
    for (const name of Object.keys(cases)) {
      const cells = histories.map((h) => `${p(h, name).toFixed(2)} / ${p(h, name, 0.95).toFixed(2)}`);
      console.log(`| ${name} | ${cells.join(' | ')} | ${ratioOf(name).toFixed(2)} |`);
    }
    console.log('');
    for (const name of Object.keys(cases)) {
      for (const h of histories) {
        const baseline = name === 'point read' ? {} : { baseline: { name: `point read at ${h.jobs} jobs`, value: p(h, 'point read') } };
        report({ name: `${name} p50 at ${h.jobs} jobs`, value: p(h, name), unit: 'ms', better: 'lower', ...baseline });
        report({ name: `${name} p95 at ${h.jobs} jobs`, value: p(h, name, 0.95), unit: 'ms', better: 'lower' });
      }
      if (name === 'point read') continue;
      report({
        name: `${name} p50, ${largest.jobs} / ${smallest.jobs} jobs`,
        value: ratioOf(name),
        unit: 'ratio',
        // the scrape is no page of the issue's: its growth is shown, not held to the pages' target
        ...(name === 'scrape' ? {} : { target: `<= ${TARGET_RATIO}` }),
        baseline: { name: `point read p50, ${largest.jobs} / ${smallest.jobs} jobs`, value: ratioOf('point read') },
      });
    }
    if (!SMOKE) {
      const worst = Math.max(...['filtered', 'deep', 'operator'].map(ratioOf));
      const verdict = worst <= TARGET_RATIO ? 'met' : 'NOT met';
      console.log(
        `\ntarget: p50 at ${largest.jobs} jobs <= ${TARGET_RATIO}x p50 at ${smallest.jobs} jobs (worst ${worst.toFixed(2)}x: ${verdict})`,
      );
    }
  } finally {
    for (const h of histories) h.child.kill('SIGTERM');
  }
}

if (process.argv[2] === '--history') await serveHistory(Number(process.argv[3]));
else await main();
