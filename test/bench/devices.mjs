#!/usr/bin/env node
// Device gateway benchmark (never part of `npm test`; needs `npm run build` first):
//  1. POST /gw/ssh/send_command of 3 commands to 100 simulated cisco_ios devices at once, through
//     the standalone platform (admin + gateway-devices): wall time, sessions/s, peak memory of the
//     platform process. Baseline measured in the same run: the same 100 sessions opened directly
//     with the gateway's session library (no HTTP, bus, store or limiter).
//  2. The cost of the per-device limit: 20 concurrent requests to one device with limit 2 (the
//     simulator drops a third session): wall time, most sessions open at once, order, failures.
// The simulators run in a child process so the memory figures are the platform's own.
// Usage: node test/bench/devices.mjs [devices=100] [--smoke]
//   --smoke: 3 devices and 6 requests to the limited one, in a few seconds: proves the benchmark
//   still runs against the built code (exit 0); its timings mean nothing.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { loadLab } from './load-lab.mjs';
import { report } from './report.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const require = createRequire(import.meta.url);
const SIMULATORS_CHILD = process.argv[2] === '--simulators';
const SMOKE = !SIMULATORS_CHILD && process.argv.includes('--smoke');
const sizeArg = SIMULATORS_CHILD ? undefined : process.argv.slice(2).find((a) => a !== '--smoke');
const DEVICES = SMOKE ? 3 : Number(sizeArg ?? process.env.NAP_BENCH_DEVICES ?? 100);
/** Concurrent requests to the one device that allows 2 sessions. */
const LIMITED_REQUESTS = SMOKE ? 6 : 20;
const COMMANDS = ['show clock', 'show version', 'show ip interface brief'];
const PASSWORD = 'bench-admin-password';

// ---- child: the simulators ----
if (SIMULATORS_CHILD) {
  const lab = loadLab();
  const count = Number(process.argv[3]);
  const sims = [];
  for (let i = 0; i < count; i++)
    sims.push(await lab.startCliSimulator({ deviceType: 'cisco_ios', hostname: `bench${i}`, startPrivileged: true }));
  process.send({ ready: sims.map((s) => ({ port: s.port, username: s.username, password: s.password })) });
  process.on('message', async (m) => {
    if (m === 'stop') {
      await Promise.all(sims.map((s) => s.stop()));
      process.exit(0);
    }
  });
} else {
  await main();
}

function mib(bytes) {
  return (bytes / 1048576).toFixed(1);
}

function startSampler() {
  let peakRss = process.memoryUsage().rss;
  let peakHeap = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 10);
  return () => {
    clearInterval(timer);
    return { peakRss, peakHeap };
  };
}

async function main() {
  let standalone;
  let runtime;
  let gateway;
  try {
    standalone = require(path.join(root, 'deploy/standalone/dist/index.js'));
    runtime = require(path.join(root, 'packages/runtime/dist/index.js'));
    // the package's public door: the service's session library is exported for this baseline
    gateway = require(path.join(root, 'services/gateway-devices/dist/index.js'));
  } catch (err) {
    console.error(`The benchmark uses built code: run \`npm run build\` first (${err.message})`);
    process.exit(2);
  }
  const lab = loadLab();

  const child = fork(fileURLToPath(import.meta.url), ['--simulators', String(DEVICES)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const sims = await new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m.ready));
    child.once('exit', (code) => reject(new Error(`simulators exited ${code}`)));
  });

  // Baseline: the session library alone, 100 sessions at once, trust on first use in memory.
  const knownHosts = gateway.createMemoryKnownHostsStore();
  const baseline = async () => {
    const t0 = performance.now();
    await Promise.all(
      sims.map((s) =>
        gateway.withSshSession(
          { host: '127.0.0.1', port: s.port, username: s.username, password: s.password, deviceType: 'cisco_ios', knownHosts },
          async (session) => {
            for (const c of COMMANDS) await session.sendCommand(c);
          },
        ),
      ),
    );
    return performance.now() - t0;
  };
  await baseline();
  const baselineMs = await baseline();

  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-bench-devices-'));
  const config = {
    ...runtime.loadConfig({
      NAP_DATA_DIR: dataDir,
      NAP_PORT: '0',
      NAP_ADMIN_PASSWORD: PASSWORD,
      NAP_SECRET_KEY: 'bench-secret-key-of-32-characters',
    }),
    logLevel: 'warn',
  };
  const platform = await standalone.startPlatform({ config, services: ['admin', 'gateway-devices'] });
  const post = async (route, body, token) => {
    const res = await fetch(`${platform.url}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
  };
  const token = (await post('/login', { user: { username: 'admin', password: PASSWORD } })).body;

  const fanOut = async () => {
    const t0 = performance.now();
    const results = await Promise.all(
      sims.map((s) =>
        post(
          '/gw/ssh/send_command',
          {
            sshSendCommandParameters: {
              host: '127.0.0.1',
              commands: COMMANDS,
              connection_options: { device_type: 'cisco_ios', username: s.username, password: s.password, port: s.port },
            },
          },
          token,
        ),
      ),
    );
    const wallMs = performance.now() - t0;
    const failed = results.filter((r) => r.status !== 200 || r.body.result?.length !== COMMANDS.length);
    if (failed.length > 0) throw new Error(`${failed.length} of ${DEVICES} requests failed, first: ${JSON.stringify(failed[0])}`);
    return wallMs;
  };

  global.gc?.();
  const before = process.memoryUsage();
  const stop = startSampler();
  const coldMs = await fanOut(); // first contact: host keys trusted and stored
  const warmMs = await fanOut();
  const { peakRss, peakHeap } = stop();

  // The per-device limit: concurrent requests to one device that allows 2 sessions.
  const one = await lab.startCliSimulator({ deviceType: 'cisco_ios', startPrivileged: true, maxSessions: 2, slowMs: 5 });
  await post(
    '/gw/createInventoryDevice',
    {
      name: 'bench-one',
      variables: { gw_host: '127.0.0.1', gw_port: one.port, gw_user: one.username, gw_password: one.password, gw_network_os: 'cisco_ios' },
    },
    token,
  );
  const finished = [];
  const t1 = performance.now();
  const limited = await Promise.all(
    Array.from({ length: LIMITED_REQUESTS }, (_u, i) =>
      post(
        '/gw/ssh/send_command',
        {
          sshSendCommandParameters: {
            host: 'bench-one',
            commands: [`show version | i marker-${i}`],
            connection_options: { device_type: 'cisco_ios' },
          },
        },
        token,
      ).then((r) => {
        finished.push(i);
        return r;
      }),
    ),
  );
  const limitedMs = performance.now() - t1;
  const ran = one
    .commandLog()
    .filter((c) => c.startsWith('show version | i marker-'))
    .map((c) => Number(c.slice('show version | i marker-'.length)));
  const limitedFailures = limited.filter((r) => r.status !== 200).length;
  // One request alone, for the ratio.
  const t2 = performance.now();
  await post(
    '/gw/ssh/send_command',
    { sshSendCommandParameters: { host: 'bench-one', commands: ['show clock'], connection_options: { device_type: 'cisco_ios' } } },
    token,
  );
  const singleMs = performance.now() - t2;

  await one.stop();
  await platform.stop();
  rmSync(dataDir, { recursive: true, force: true });
  child.send('stop');

  console.log(
    `\nDevice gateway benchmark${SMOKE ? ' (smoke size: checks that it runs, timings mean nothing)' : ''}, ${os.cpus().length} cores, node ${process.version}\n`,
  );
  console.log(`send_command of ${COMMANDS.length} commands to ${DEVICES} simulated cisco_ios devices at once`);
  console.log('| run | wall ms | sessions/s | vs baseline |');
  console.log('|---|---:|---:|---:|');
  console.log(`| baseline: session library alone | ${baselineMs.toFixed(0)} | ${(DEVICES / (baselineMs / 1000)).toFixed(0)} | 1.00 |`);
  console.log(
    `| platform over HTTP, first contact (host keys stored) | ${coldMs.toFixed(0)} | ${(DEVICES / (coldMs / 1000)).toFixed(0)} | ${(coldMs / baselineMs).toFixed(2)} |`,
  );
  console.log(
    `| platform over HTTP, known devices | ${warmMs.toFixed(0)} | ${(DEVICES / (warmMs / 1000)).toFixed(0)} | ${(warmMs / baselineMs).toFixed(2)} |`,
  );
  console.log(
    `peak memory of the platform process: rss ${mib(peakRss)} MiB (+${mib(peakRss - before.rss)} MiB), heap ${mib(peakHeap)} MiB (+${mib(peakHeap - before.heapUsed)} MiB)`,
  );
  if (!SMOKE) console.log(`target: under 5000 ms (${warmMs < 5000 && coldMs < 5000 ? 'met' : 'NOT met'})`);
  console.log(`\n${LIMITED_REQUESTS} concurrent requests to one device with limit 2`);
  console.log(
    `wall ${limitedMs.toFixed(0)} ms (one request alone ${singleMs.toFixed(0)} ms, ratio ${(limitedMs / singleMs).toFixed(1)}), most sessions at once ${one.maxConcurrentSessions}, failures ${limitedFailures}`,
  );
  console.log(
    `answered in the order the device ran them: ${JSON.stringify(finished) === JSON.stringify(ran) ? 'yes' : `NO (ran ${ran.join(',')}, answered ${finished.join(',')})`}; in send order: ${finished.every((v, i) => v === i) ? 'yes' : 'no (HTTP arrival order differs)'}`,
  );
  const library = { name: 'session library alone', value: baselineMs };
  report({ name: `send_command to ${DEVICES} devices, first contact`, value: coldMs, unit: 'ms', target: '< 5000', baseline: library });
  report({ name: `send_command to ${DEVICES} devices, known devices`, value: warmMs, unit: 'ms', target: '< 5000', baseline: library });
  report({ name: 'peak rss of the platform process', value: peakRss / 1048576, unit: 'MiB', better: 'lower' });
  report({
    name: `${LIMITED_REQUESTS} requests to one device with limit 2`,
    value: limitedMs,
    unit: 'ms',
    baseline: { name: 'one request alone', value: singleMs },
    better: 'lower',
  });
  process.exit(limitedFailures === 0 && one.maxConcurrentSessions <= 2 ? 0 : 1);
}
