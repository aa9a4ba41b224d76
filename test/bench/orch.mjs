#!/usr/bin/env node
// Orchestrator benchmark (built dist/ code; `npm run build` first), against the lab's NSO peer
// running in a process of its own:
//  1. Baseline measured in the same run: the peer's bare throughput, the same RESTCONF GET
//     (C-IOS1's hostname, Basic auth) sent straight with undici at the same concurrency.
//  2. orch-proxy.restQuery over the bus: the cached adapter record, admin.callAdapter (credentials
//     added, the HTTP call), the answer shaped as [{ instance_data }].
//  3. POST /orch_manager/restQuery/:adapterId through the gateway: authentication, validation, the
//     two bus hops, as a user calls it.
// Prints calls per second of each and their ratio to the bare peer.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { loadLab } from './load-lab.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const require = createRequire(import.meta.url);
const CONCURRENCY = Number(process.env.NAP_BENCH_CONCURRENCY ?? 16);
const CALLS = Number(process.env.NAP_BENCH_CALLS ?? 4000);
const PASSWORD = 'bench-admin-password';
const HOSTNAME = '/restconf/data/tailf-ncs:devices/device=C-IOS1/config/tailf-ned-cisco-ios:hostname';

// ---- child: the peer ----
if (process.argv[2] === '--peer') {
  const peer = await loadLab().startNsoPeer();
  // the peer keeps every request for tests; a benchmark would only grow it
  setInterval(() => peer.requests.splice(0), 1000).unref();
  process.send({ ready: { port: peer.port, user: peer.user, password: peer.password } });
  process.on('message', async (m) => {
    if (m === 'stop') {
      await peer.close();
      process.exit(0);
    }
  });
} else {
  await main();
}

/** Runs `total` calls of `one` with `concurrency` in flight; answers calls per second. */
async function saturate(total, concurrency, one) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next += 1;
        await one();
      }
    }),
  );
  return (total / (performance.now() - started)) * 1000;
}

async function main() {
  let standalone;
  let runtime;
  let bus;
  let contracts;
  let undici;
  try {
    standalone = require(path.join(root, 'deploy/standalone/dist/index.js'));
    runtime = require(path.join(root, 'packages/runtime/dist/index.js'));
    bus = require(path.join(root, 'packages/bus/dist/index.js'));
    contracts = require(path.join(root, 'contracts/dist/index.js'));
    undici = require(require.resolve('undici', { paths: [path.join(root, 'services/admin')] }));
  } catch (err) {
    console.error(`The benchmark uses built code: run \`npm run build\` first (${err.message})`);
    process.exit(2);
  }
  const child = fork(fileURLToPath(import.meta.url), ['--peer'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const peer = await new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m.ready));
    child.once('exit', (code) => reject(new Error(`peer exited ${code}`)));
  });
  const peerUrl = `http://127.0.0.1:${peer.port}`;
  const authorization = `Basic ${Buffer.from(`${peer.user}:${peer.password}`).toString('base64')}`;
  const expectHostname = (body) => {
    if (body['tailf-ned-cisco-ios:hostname'] !== 'C-IOS1') throw new Error(`unexpected answer ${JSON.stringify(body)}`);
  };

  // 1. the bare peer
  const agent = new undici.Agent({ connections: CONCURRENCY });
  const bare = async () => {
    const res = await undici.request(`${peerUrl}${HOSTNAME}`, { headers: { authorization, accept: 'application/yang-data+json' }, dispatcher: agent });
    const body = await res.body.json();
    if (res.statusCode !== 200) throw new Error(`peer answered ${res.statusCode}`);
    expectHostname(body);
  };
  await saturate(500, CONCURRENCY, bare);
  const bareRate = await saturate(CALLS, CONCURRENCY, bare);

  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-bench-orch-'));
  const config = { ...runtime.loadConfig({ NAP_DATA_DIR: dataDir, NAP_PORT: '0', NAP_ADMIN_PASSWORD: PASSWORD }), logLevel: 'warn' };
  const platform = await standalone.startPlatform({ config });
  let busRate;
  let gatewayRate;
  try {
    const login = await fetch(`${platform.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { username: 'admin', password: PASSWORD } }) });
    const token = await login.json();
    const api = async (method, route, body) => {
      const res = await fetch(`${platform.url}${route}`, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
      const text = await res.text();
      if (res.status >= 400) throw new Error(`${method} ${route}: ${res.status} ${text}`);
      return text ? JSON.parse(text) : undefined;
    };
    const settings = { http: { host: '127.0.0.1', port: peer.port }, ssl: { enabled: false, acceptInvalidCerts: false }, credentials: { user: peer.user, passwd: peer.password }, healthcheck: { intervalSeconds: 300 } };
    await api('POST', '/adapters', { properties: { name: 'nso-bench', type: 'Adapter', model: '@itentialopensource/adapter-nso', properties: { id: 'nso-bench', type: 'NSO', properties: settings } } });
    await api('PUT', '/adapters/nso-bench/start');
    for (const deadline = Date.now() + 10_000; (await api('GET', '/health/adapters/nso-bench')).state !== 'RUNNING'; ) {
      if (Date.now() > deadline) throw new Error('the adapter did not become RUNNING');
      await new Promise((r) => setTimeout(r, 20));
    }
    const body = { params: { path: HOSTNAME, accept: 'yang-data+json' } };

    // 2. orch-proxy.restQuery over the bus
    const client = bus.createBusClient({ bus: platform.bus });
    const overBus = async () => {
      const res = await client.call('orch-proxy.restQuery', { params: { adapterId: 'nso-bench' }, body }, { caller: contracts.SYSTEM_CALLER });
      expectHostname(res.body[0].instance_data);
    };
    await saturate(500, CONCURRENCY, overBus);
    busRate = await saturate(CALLS, CONCURRENCY, overBus);

    // 3. through the gateway
    const gateway = new undici.Agent({ connections: CONCURRENCY });
    const text = JSON.stringify(body);
    const overHttp = async () => {
      const res = await undici.request(`${platform.url}/orch_manager/restQuery/nso-bench`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: text, dispatcher: gateway });
      const answer = await res.body.json();
      if (res.statusCode !== 200) throw new Error(`gateway answered ${res.statusCode}: ${JSON.stringify(answer)}`);
      expectHostname(answer[0].instance_data);
    };
    await saturate(500, CONCURRENCY, overHttp);
    gatewayRate = await saturate(CALLS, CONCURRENCY, overHttp);
    await gateway.close();
  } finally {
    await agent.close();
    await platform.stop();
    rmSync(dataDir, { recursive: true, force: true });
    child.send('stop');
  }

  const fmt = (n) => n.toFixed(0).padStart(7);
  console.log(`\nrestQuery against the lab NSO peer (${os.cpus().length} cores, concurrency ${CONCURRENCY}, ${CALLS} calls each)`);
  console.log(`  bare peer (undici, same RESTCONF GET)     ${fmt(bareRate)} calls/s   (baseline)`);
  console.log(`  orch-proxy.restQuery over the bus         ${fmt(busRate)} calls/s   ${(busRate / bareRate).toFixed(2)} x baseline`);
  console.log(`  POST /orch_manager/restQuery via gateway  ${fmt(gatewayRate)} calls/s   ${(gatewayRate / bareRate).toFixed(2)} x baseline`);
}
