#!/usr/bin/env node
// Application administration benchmark (built dist/ code; `npm run build` first), over a real
// nats-server: the platform in this process and REPLICAS more replicas of the MOP service on NATS
// connections of their own.
//  1. Baseline measured in the same run: GET /whoami (one bus request to the admin service).
//  2. GET /applications/MOP: discovery of the service's replicas plus a status request to each.
//  3. PUT /applications/MOP/loglevel: the level carried to every replica and confirmed.
//  4. PUT /applications/MOP/stop then /start: every replica paused (leaving its queue group) and resumed.
// Prints the median and p95 of each, in ms, and their ratio to the baseline. `--smoke`: 1 round
// without warm-up, 1 more replica (proves it runs; figures mean nothing).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createRequire } from 'node:module';
import { report, size, SMOKE } from './report.mjs';

const require = createRequire(import.meta.url);
const { startPlatform } = require('../../deploy/standalone/dist/index.js');
const { loadConfig, createClient } = require('../../packages/runtime/dist/index.js');
const { eventually, startNatsServer } = require('../../packages/testing/dist/index.js');
const { createNatsBus } = require('../../packages/bus/dist/index.js');
const { createMopService } = require('../../services/mop/dist/index.js');
const { createLogger, createMetrics } = require('../../packages/telemetry/dist/index.js');

const ROUNDS = Number(process.env.NAP_BENCH_ROUNDS ?? size(30, 1));
const REPLICAS = Number(process.env.NAP_BENCH_REPLICAS ?? size(2, 1));
const PASSWORD = 'bench-admin-password';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-bench-apps-'));
const nats = await startNatsServer({ jetstream: true });
const config = {
  ...loadConfig({ NAP_DATA_DIR: dataDir, NAP_PORT: '0', NAP_ADMIN_PASSWORD: PASSWORD, NAP_NATS_URL: nats.url }),
  logLevel: 'warn',
};
const platform = await startPlatform({ config });
const replicas = [];
for (let i = 0; i < REPLICAS; i += 1) {
  const bus = await createNatsBus({ servers: nats.url, name: `mop-bench-${i}` });
  const metrics = createMetrics({ defaultLabels: { component: `mop-bench-${i}` } });
  const logger = createLogger({ name: `mop-bench-${i}`, level: 'warn', destination: new Writable({ write: (_c, _e, done) => done() }) });
  const service = await createMopService({
    bus,
    store: platform.stores.get('mop'),
    logger,
    metrics,
    client: createClient(bus, metrics),
    config,
  }).start();
  replicas.push({ bus, service });
}

const login = await fetch(`${platform.url}/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ user: { username: 'admin', password: PASSWORD } }),
});
// the bare token, as JSON text or as plain text
const answer = await login.text();
const token = answer.startsWith('"') ? JSON.parse(answer) : answer;
const call = async (method, route, body) => {
  const res = await fetch(`${platform.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${route}: ${res.status} ${text}`);
  return JSON.parse(text);
};

// discovery gathers the replies that come within its window: on a loaded machine a replica just
// started may answer after it, so the count is asked again for a while before it is a failure
await eventually(
  `${REPLICAS + 1} MOP replicas found by discovery`,
  async () => (await call('GET', '/applications/MOP')).instances.length === REPLICAS + 1,
  { intervalMs: 250 },
);

async function measure(one) {
  if (!SMOKE) await one(); // warm-up, not counted (a smoke run's one round runs the same code)
  const times = [];
  for (let i = 0; i < ROUNDS; i += 1) {
    const started = performance.now();
    await one(i);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], p95: times[Math.min(times.length - 1, Math.floor(times.length * 0.95))] };
}

const baseline = await measure(() => call('GET', '/whoami'));
const rows = [
  ['GET /whoami (baseline)', baseline],
  ['GET /applications/MOP', await measure(() => call('GET', '/applications/MOP'))],
  [
    'PUT /applications/MOP/loglevel',
    await measure((i) => call('PUT', '/applications/MOP/loglevel', { properties: { level: i % 2 ? 'warn' : 'error' } })),
  ],
  [
    'PUT stop + PUT start',
    await measure(async () => {
      const stopped = await call('PUT', '/applications/MOP/stop');
      const started = await call('PUT', '/applications/MOP/start');
      if (stopped.replicas !== REPLICAS + 1 || started.state !== 'RUNNING')
        throw new Error(`stop/start reached ${stopped.replicas} replicas, ended ${started.state}`);
    }),
  ],
];
console.log(`applications over nats-server, MOP with ${REPLICAS + 1} replicas, ${ROUNDS} rounds`);
for (const [name, r] of rows)
  console.log(
    `${name.padEnd(34)} median ${r.median.toFixed(1).padStart(7)} ms   p95 ${r.p95.toFixed(1).padStart(7)} ms   ${(r.median / baseline.median).toFixed(1).padStart(6)}x baseline`,
  );
for (const [name, r] of rows.slice(1)) {
  report({
    name: `${name} median`,
    value: r.median,
    unit: 'ms',
    baseline: { name: 'GET /whoami median', value: baseline.median },
    better: 'lower',
  });
  report({ name: `${name} p95`, value: r.p95, unit: 'ms', baseline: { name: 'GET /whoami p95', value: baseline.p95 }, better: 'lower' });
}

for (const r of replicas) {
  await r.service.stop();
  await r.bus.close();
}
await platform.stop();
await nats.stop();
rmSync(dataDir, { recursive: true, force: true });
