#!/usr/bin/env node
// What the audit trail costs (built dist/ code; `npm run build` first): gateway req/s of a write
// route, PATCH /authorization/accounts/:accountId, with the audit trail off (NAP_AUDIT=off, the
// baseline measured in the same run) and on, standalone (the record stored by the admin service
// before the answer) and distributed over nats-server (the record acknowledged by JetStream before
// the answer; the admin service appends it to the chain after). Each mode is measured off, on, off,
// on, and the ratio is of the means. Target: on >= 0.9 x off. The standalone is measured again at
// 128 connections, where both runs are bound by the CPU rather than by each request's wait.
// `--smoke`: one round each of a quarter of a second, no warm-up, every server started at once.
// Beside req/s, the CPU time the platform's processes spent per request (Linux: /proc), which a busy
// machine disturbs less than req/s: on a machine the platform saturates, req/s follows it.
// Needs nats-server on the PATH (a skip without it; a failure under CI=true).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild, stopChild, stopChildren } from './children.mjs';
import { httpLoad, statuses } from './http-load.mjs';
import { PLATFORM_NODE_FLAGS } from './platform-flags.mjs';
import { report, size, skip, SMOKE } from './report.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const CONNECTIONS = size(32, 4);
/**
 * Connections of the standalone's second measure: enough that both runs are bound by the CPU, not by
 * the wait of each request (an audited change waits for a second durable write, which at 32
 * connections halves what a closed loop of clients can send whatever the CPU has left).
 */
const SATURATING = size(128, 8);
const DURATION_S = size(Number(process.env.NAP_BENCH_SECONDS ?? 10), 0.25);
const ROUNDS = size(2, 1);
const PASSWORD = 'bench-admin-password';
const SECRET = 'bench-secret-key-of-32-characters';
const dirs = [];

function tempDir(label) {
  const dir = mkdtempSync(path.join(os.tmpdir(), `nap-bench-audit-${label}-`));
  dirs.push(dir);
  return dir;
}

async function call(url, method, route, body, token) {
  const res = await fetch(`${url}${route}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text}`);
  return text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
}

/** A logged-in admin and an account to change (not the admin's: its change would drop the admin's cached session). */
async function prepare(url) {
  const token = await call(url, 'POST', '/login', { user: { username: 'admin', password: PASSWORD } });
  let target;
  try {
    target = await call(
      url,
      'POST',
      '/user-management/accounts',
      { account: { username: 'bench-target', password: 'bench-target-password' } },
      token,
    );
  } catch {
    const list = await call(url, 'GET', '/user-management/accounts?equals[username]=bench-target', undefined, token);
    target = { data: list.results[0] };
  }
  return {
    path: `/authorization/accounts/${target.data._id}`,
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.net' }),
  };
}

/**
 * CPU ms (user + system) each of the processes `pids` has used, every thread (`total`) and its main
 * thread alone (`loop`, the event loop that serves requests), or undefined without /proc.
 */
function cpuMs(pids) {
  if (!existsSync('/proc/self/stat')) return undefined;
  const total = [];
  const loop = [];
  for (const pid of pids) {
    let ms = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const taskMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
      ms += taskMs;
      if (task === String(pid)) loop.push(taskMs);
    }
    total.push(ms);
  }
  return { total, loop };
}
/** Linux's USER_HZ, the unit of /proc's CPU times. */
const CLOCK_TICKS = 100;

/** Loads `req` on `url`; `pids` are the platform's processes, whose CPU per request is measured. */
async function load(url, req, pids, connections = CONNECTIONS) {
  const opts = { url: `${url}${req.path}`, method: req.method, headers: req.headers, body: req.body, connections };
  if (!SMOKE) await httpLoad({ ...opts, duration: 2 });
  const before = cpuMs(pids);
  const r = await httpLoad({ ...opts, duration: DURATION_S });
  const after = cpuMs(pids);
  const bad = r.non2xx + r.errors + r.timeouts;
  if (bad > 0) throw new Error(`${bad} failed requests (non-2xx ${r.non2xx}: ${statuses(r)}, errors ${r.errors}, timeouts ${r.timeouts})`);
  const perRequest = (key) =>
    before === undefined || after === undefined ? [] : after[key].map((ms, i) => ((ms - (before[key][i] ?? 0)) * 1000) / r.requests.total);
  const byProcess = perRequest('total');
  const cpuUs = byProcess.length === 0 ? Number.NaN : byProcess.reduce((n, us) => n + us, 0);
  // the first process's event loop: the standalone platform's, or the distributed gateway's
  const loopUs = perRequest('loop')[0] ?? Number.NaN;
  return { rps: r.rps, p50: r.latency.p50, p99: r.latency.p99, cpuUs, loopUs, byProcess };
}

/** Starts the standalone platform in a process of its own (test/bench/platform.mjs), the audit trail on or off. */
function startStandalone(audit) {
  return startChild(
    process.execPath,
    [...PLATFORM_NODE_FLAGS, path.join(here, 'platform.mjs')],
    { NAP_ADMIN_PASSWORD: PASSWORD, NAP_AUDIT: audit },
    /listening (http:\/\/\S+)/,
    'the standalone platform',
  );
}

/** Loads a standalone platform (`started` by {@link startStandalone}, or started now), then stops it. */
async function standalone(audit, connections = CONNECTIONS, started = startStandalone(audit)) {
  const proc = await started;
  const url = proc.match[1];
  try {
    return await load(url, await prepare(url), [proc.child.pid], connections);
  } finally {
    await stopChild(proc);
  }
}

/**
 * nats-server and the admin service, shared by the distributed rounds; a gateway is started per
 * round, or beside the admin service for the rounds of `early` (audit settings, one round each).
 */
async function distributedWorld(early = []) {
  const natsDir = tempDir('nats');
  const nats = await startChild(
    'nats-server',
    ['-a', '127.0.0.1', '-p', '-1', '-js', '-sd', natsDir],
    {},
    /Listening for client connections on 127\.0\.0\.1:(\d+)/,
    'nats-server',
  );
  const env = {
    NAP_NATS_URL: `nats://127.0.0.1:${nats.match[1]}`,
    NAP_DATA_DIR: tempDir('data'),
    NAP_ADMIN_PASSWORD: PASSWORD,
    NAP_SECRET_KEY: SECRET,
    NAP_PORT: '0',
    NAP_LOG_LEVEL: 'info',
  };
  const startGateway = (audit) =>
    startChild(process.execPath, ['gateway/dist/main.js'], { ...env, NAP_AUDIT: audit }, /"url":"(http:\/\/[^"]+)"/, 'the gateway');
  // a gateway needs only nats-server to start; nothing is asked of the admin service before it is up
  const gateways = new Map(early.map((audit) => [audit, startGateway(audit)]));
  for (const starting of gateways.values()) starting.catch(() => {}); // a failure is thrown where it is awaited
  const admin = await startChild(process.execPath, ['services/admin/dist/main.js'], env, /Service admin is serving/, 'the admin service');
  return {
    async round(audit) {
      const started = gateways.get(audit) ?? startGateway(audit);
      gateways.delete(audit);
      const gw = await started;
      try {
        return await load(gw.match[1], await prepare(gw.match[1]), [gw.child.pid, admin.child.pid, nats.child.pid]);
      } finally {
        await stopChild(gw);
      }
    },
    async close() {
      await stopChild(admin);
      await stopChild(nats);
    },
  };
}

function mean(rows, key) {
  return rows.reduce((n, r) => n + r[key], 0) / rows.length;
}

if (spawnSync('nats-server', ['--version']).error)
  skip('nats-server is not on the PATH: the distributed rounds need it (Debian package nats-server, or github.com/nats-io/nats-server)');

const results = [];
try {
  // a smoke run (one round, figures that mean nothing) starts its servers side by side; the full run
  // starts each when its round comes, so that no start weighs on another's measure
  const early = SMOKE ? { off: startStandalone('off'), on: startStandalone('on'), world: distributedWorld(['off', 'on']) } : {};
  for (const starting of Object.values(early)) starting.catch(() => {}); // a failure is thrown where it is awaited
  const sa = { off: [], on: [] };
  for (let i = 0; i < ROUNDS; i++) {
    sa.off.push(await standalone('off', CONNECTIONS, i === 0 ? early.off : undefined));
    sa.on.push(await standalone('on', CONNECTIONS, i === 0 ? early.on : undefined));
  }
  results.push({ mode: 'standalone', ...sa });
  // the saturated rounds run the standalone rounds' code with more connections: a smoke run leaves them out
  if (!SMOKE) {
    const saturated = { off: [], on: [] };
    for (let i = 0; i < ROUNDS; i++) {
      saturated.off.push(await standalone('off', SATURATING));
      saturated.on.push(await standalone('on', SATURATING));
    }
    results.push({ mode: `standalone, ${SATURATING} connections`, ...saturated });
  }
  const world = await (early.world ?? distributedWorld());
  try {
    const dist = { off: [], on: [] };
    for (let i = 0; i < ROUNDS; i++) {
      dist.off.push(await world.round('off'));
      dist.on.push(await world.round('on'));
    }
    results.push({ mode: 'distributed (NATS)', ...dist });
  } finally {
    await world.close();
  }
} finally {
  await stopChildren();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

console.log(
  `\nPATCH /authorization/accounts/:id${SMOKE ? ' (smoke size: checks that it runs, figures mean nothing)' : ''}, ${CONNECTIONS} connections, ${DURATION_S} s x ${ROUNDS} rounds each, ${os.cpus().length} cores, load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}\n`,
);
console.log(
  '| mode | audit off req/s | audit on req/s | on / off | p50 off / on ms | p99 off / on ms | CPU µs per request off / on | of it, the event loop off / on |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const r of results) {
  const off = mean(r.off, 'rps');
  const on = mean(r.on, 'rps');
  console.log(
    `| ${r.mode} | ${off.toFixed(0)} | ${on.toFixed(0)} | ${(on / off).toFixed(2)} | ${mean(r.off, 'p50').toFixed(1)} / ${mean(r.on, 'p50').toFixed(1)} | ${mean(r.off, 'p99').toFixed(1)} / ${mean(r.on, 'p99').toFixed(1)} | ${mean(r.off, 'cpuUs').toFixed(0)} / ${mean(r.on, 'cpuUs').toFixed(0)} | ${mean(r.off, 'loopUs').toFixed(0)} / ${mean(r.on, 'loopUs').toFixed(0)} |`,
  );
}
const distributed = results.find((r) => r.mode.startsWith('distributed'));
if (distributed && distributed.on[0]?.byProcess.length === 3) {
  const split = (rows) => [0, 1, 2].map((i) => (rows.reduce((n, r) => n + (r.byProcess[i] ?? 0), 0) / rows.length).toFixed(0)).join(' / ');
  console.log(
    `\ndistributed CPU µs per request, gateway / admin / nats-server: off ${split(distributed.off)}, on ${split(distributed.on)}`,
  );
}
console.log(
  '\nThe event loop is the main thread of the standalone process (of the gateway, distributed): the one that serves requests and bounds a process. Standalone, the audit thread chains the records beside it.',
);
console.log('\ntarget (issue 20): audit on >= 0.9 x audit off');
for (const r of results) {
  const figures = { rps: ['req/s', 'higher'], p50: ['ms', 'lower'], p99: ['ms', 'lower'], cpuUs: ['µs', 'lower'], loopUs: ['µs', 'lower'] };
  const labels = { rps: 'req/s', p50: 'latency p50', p99: 'latency p99', cpuUs: 'CPU per request', loopUs: 'event loop CPU per request' };
  for (const [key, [unit, better]] of Object.entries(figures)) {
    const label = labels[key];
    report({
      name: `${r.mode}, ${label}, audit on`,
      value: mean(r.on, key),
      unit,
      baseline: { name: `${r.mode}, ${label}, audit off`, value: mean(r.off, key) },
      better,
    });
  }
  report({ name: `${r.mode}, req/s audit on / off`, value: mean(r.on, 'rps') / mean(r.off, 'rps'), unit: 'ratio', target: '>= 0.9' });
}
process.exit(0);
