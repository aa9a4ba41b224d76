#!/usr/bin/env node
// Orchestrator benchmark (built dist/ code; `npm run build` first), against the lab's NSO peer
// running in a process of its own:
//  1. Baseline measured in the same run: the peer's bare throughput, the same RESTCONF GET
//     (C-IOS1's hostname, Basic auth) sent straight with undici at the same concurrency.
//  2. orch-proxy.restQuery over the bus: the cached adapter record, admin.callAdapter (credentials
//     added, the HTTP call), the answer shaped as [{ instance_data }].
//  3. POST /orch_manager/restQuery/:adapterId through the gateway: authentication, validation, the
//     two bus hops, as a user calls it.
// Prints calls per second of each and their ratio to the bare peer. `--smoke`: 40 calls each (proves it runs).
import os from 'node:os';
import { loadLab } from './load-lab.mjs';
import { builtClients, forkPeer, saturate, servePeer } from './peers.mjs';
import { startBenchPlatform } from './standalone.mjs';
import { report, size } from './report.mjs';

const CONCURRENCY = Number(process.env.NAP_BENCH_CONCURRENCY ?? size(16, 4));
const CALLS = Number(process.env.NAP_BENCH_CALLS ?? size(4000, 40));
const WARM_UP = size(500, 10);
const HOSTNAME = '/restconf/data/tailf-ncs:devices/device=C-IOS1/config/tailf-ned-cisco-ios:hostname';

// ---- child: the peer ----
if (process.argv[2] === '--peer') {
  await servePeer(
    () => loadLab().startNsoPeer(),
    (peer) => peer.requests.splice(0),
  );
} else {
  await main();
}

async function main() {
  const { bus, contracts, undici } = builtClients();
  const peer = await forkPeer(import.meta.url);
  const peerUrl = `http://127.0.0.1:${peer.port}`;
  const authorization = `Basic ${Buffer.from(`${peer.user}:${peer.password}`).toString('base64')}`;
  const expectHostname = (body) => {
    if (body['tailf-ned-cisco-ios:hostname'] !== 'C-IOS1') throw new Error(`unexpected answer ${JSON.stringify(body)}`);
  };

  // 1. the bare peer
  const agent = new undici.Agent({ connections: CONCURRENCY });
  const bare = async () => {
    const res = await undici.request(`${peerUrl}${HOSTNAME}`, {
      headers: { authorization, accept: 'application/yang-data+json' },
      dispatcher: agent,
    });
    const body = await res.body.json();
    if (res.statusCode !== 200) throw new Error(`peer answered ${res.statusCode}`);
    expectHostname(body);
  };
  await saturate(WARM_UP, CONCURRENCY, bare);
  const bareRate = await saturate(CALLS, CONCURRENCY, bare);

  const { platform, api, token, stop } = await startBenchPlatform('orch');
  let busRate;
  let gatewayRate;
  try {
    const settings = {
      http: { host: '127.0.0.1', port: peer.port },
      ssl: { enabled: false, acceptInvalidCerts: false },
      credentials: { user: peer.user, passwd: peer.password },
      healthcheck: { intervalSeconds: 300 },
    };
    await api('POST', '/adapters', {
      properties: {
        name: 'nso-bench',
        type: 'Adapter',
        model: '@itentialopensource/adapter-nso',
        properties: { id: 'nso-bench', type: 'NSO', properties: settings },
      },
    });
    await api('PUT', '/adapters/nso-bench/start');
    for (const deadline = Date.now() + 10_000; (await api('GET', '/health/adapters/nso-bench')).state !== 'RUNNING';) {
      if (Date.now() > deadline) throw new Error('the adapter did not become RUNNING');
      await new Promise((r) => setTimeout(r, 20));
    }
    const body = { params: { path: HOSTNAME, accept: 'yang-data+json' } };

    // 2. orch-proxy.restQuery over the bus
    const client = bus.createBusClient({ bus: platform.bus });
    const overBus = async () => {
      const res = await client.call(
        'orch-proxy.restQuery',
        { params: { adapterId: 'nso-bench' }, body },
        { caller: contracts.SYSTEM_CALLER },
      );
      expectHostname(res.body[0].instance_data);
    };
    await saturate(WARM_UP, CONCURRENCY, overBus);
    busRate = await saturate(CALLS, CONCURRENCY, overBus);

    // 3. through the gateway
    const gateway = new undici.Agent({ connections: CONCURRENCY });
    const text = JSON.stringify(body);
    const overHttp = async () => {
      const res = await undici.request(`${platform.url}/orch_manager/restQuery/nso-bench`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: text,
        dispatcher: gateway,
      });
      const answer = await res.body.json();
      if (res.statusCode !== 200) throw new Error(`gateway answered ${res.statusCode}: ${JSON.stringify(answer)}`);
      expectHostname(answer[0].instance_data);
    };
    await saturate(WARM_UP, CONCURRENCY, overHttp);
    gatewayRate = await saturate(CALLS, CONCURRENCY, overHttp);
    await gateway.close();
  } finally {
    await agent.close();
    await stop();
    peer.stop();
  }

  const fmt = (n) => n.toFixed(0).padStart(7);
  console.log(`\nrestQuery against the lab NSO peer (${os.cpus().length} cores, concurrency ${CONCURRENCY}, ${CALLS} calls each)`);
  console.log(`  bare peer (undici, same RESTCONF GET)     ${fmt(bareRate)} calls/s   (baseline)`);
  console.log(`  orch-proxy.restQuery over the bus         ${fmt(busRate)} calls/s   ${(busRate / bareRate).toFixed(2)} x baseline`);
  console.log(
    `  POST /orch_manager/restQuery via gateway  ${fmt(gatewayRate)} calls/s   ${(gatewayRate / bareRate).toFixed(2)} x baseline`,
  );
  const baseline = { name: 'bare peer (undici, same RESTCONF GET)', value: bareRate };
  report({ name: 'orch-proxy.restQuery over the bus', value: busRate, unit: 'calls/s', baseline, better: 'higher' });
  report({ name: 'POST /orch_manager/restQuery via gateway', value: gatewayRate, unit: 'calls/s', baseline, better: 'higher' });
}
