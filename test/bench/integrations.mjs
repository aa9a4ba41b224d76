#!/usr/bin/env node
// Integration task benchmark (built dist/ code; `npm run build` first), against the lab's HTTP peer
// (the ServiceNow Table API of the fixture OpenAPI document) running in a process of its own:
//  1. Baseline measured in the same run: the peer's bare throughput, the same request
//     (GET /api/now/table/incident?sysparm_limit=1 with Basic auth) sent straight with undici at the
//     same concurrency.
//  2. admin.runTask over the bus (what the engine sends for one integration task): method lookup,
//     Ajv validation of the inputs, parameter serialization, credentials opened, the call.
//  3. Integration task calls inside jobs: jobs of CHAIN integration tasks in a chain, CONCURRENT at
//     once, through the whole engine (store writes before and after each task).
// Prints calls per second of each and their ratio to the bare peer. `--smoke`: 40 calls, 2 jobs of 2
// tasks (proves it runs).
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadLab } from './load-lab.mjs';
import { builtClients, forkPeer, saturate, servePeer } from './peers.mjs';
import { startBenchPlatform, watchJobs } from './standalone.mjs';
import { report, size, skip } from './report.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const MODEL = path.resolve(root, '../shared/fixtures/itential-assets/openapi/ServiceNow_OpenAPIs_table_latest.json');
const CONCURRENCY = Number(process.env.NAP_BENCH_CONCURRENCY ?? size(16, 4));
const CALLS = Number(process.env.NAP_BENCH_CALLS ?? size(4000, 40));
const WARM_UP = size(500, 10);
const CHAIN = size(10, 2);
const CONCURRENT = Number(process.env.NAP_BENCH_JOBS ?? size(20, 2));
const ROUNDS = Number(process.env.NAP_BENCH_ROUNDS ?? size(3, 1));

// ---- child: the peer ----
if (process.argv[2] === '--peer') {
  await servePeer(
    async () => {
      const peer = await loadLab().startOpenApiPeer();
      peer.tables.set('incident', new Map([['abc', { sys_id: 'abc', number: 'INC0001', short_description: 'bench' }]]));
      return peer;
    },
    (peer) => peer.received.splice(0),
  );
} else {
  await main();
}

async function main() {
  if (!existsSync(MODEL)) skip(`the fixture OpenAPI document ${MODEL} is absent (../shared/fixtures beside the repository)`);
  const { bus, contracts, undici } = builtClients();
  const peer = await forkPeer(import.meta.url);
  const peerUrl = `http://127.0.0.1:${peer.port}`;
  const authorization = `Basic ${Buffer.from(`${peer.user}:${peer.password}`).toString('base64')}`;

  // 1. the bare peer
  const agent = new undici.Agent({ connections: CONCURRENCY });
  const bare = async () => {
    const res = await undici.request(`${peerUrl}/api/now/table/incident?sysparm_limit=1`, {
      headers: { authorization },
      dispatcher: agent,
    });
    await res.body.json();
    if (res.statusCode !== 200) throw new Error(`peer answered ${res.statusCode}`);
  };
  await saturate(WARM_UP, CONCURRENCY, bare);
  const bareRate = await saturate(CALLS, CONCURRENCY, bare);
  await agent.close();

  const { platform, api, stop } = await startBenchPlatform('integrations');
  let busRate;
  let jobRate;
  try {
    await api('POST', '/integration-models', { model: JSON.parse(readFileSync(MODEL, 'utf8')) });
    await api('POST', '/integrations', {
      properties: {
        name: 'snow',
        model: 'ServiceNow Table:latest',
        properties: {
          server: { protocol: 'http', host: '127.0.0.1', port: peer.port },
          authentication: { type: 'basic', username: peer.user, password: peer.password },
        },
      },
    });

    // 2. admin.runTask over the bus
    const client = bus.createBusClient({ bus: platform.bus });
    const runTask = async () => {
      const res = await client.call(
        'admin.runTask',
        { body: { app: 'snow', method: 'getApiNowTableTableName', incoming: { tableName: 'incident', sysparmLimit: 1 } } },
        { caller: contracts.SYSTEM_CALLER },
      );
      if (res.body.result.status !== 200) throw new Error(`runTask answered ${res.body.result.status}`);
    };
    await saturate(WARM_UP, CONCURRENCY, runTask);
    busRate = await saturate(CALLS, CONCURRENCY, runTask);

    // 3. jobs of integration tasks
    const tasks = { workflow_start: { name: 'workflow_start', groups: [] }, workflow_end: { name: 'workflow_end', groups: [] } };
    const transitions = { workflow_end: {} };
    let previous = 'workflow_start';
    for (let i = 0; i < CHAIN; i += 1) {
      const id = `i${i}`;
      tasks[id] = {
        name: 'getApiNowTableTableName',
        app: 'snow',
        type: 'automatic',
        groups: [],
        variables: { incoming: { tableName: 'incident', sysparmLimit: 1 }, outgoing: { result: null }, error: '', decorators: [] },
      };
      transitions[previous] = { [id]: { state: 'success', type: 'standard' } };
      previous = id;
    }
    transitions[previous] = { workflow_end: { state: 'success', type: 'standard' } };
    await api('POST', '/automation-studio/automations', {
      automation: { name: 'bench-integration-chain', type: 'automation', groups: [], tasks, transitions },
    });
    const watch = await watchJobs(platform, 'integration jobs');
    let elapsed = 0;
    let calls = 0;
    for (let round = 0; round <= ROUNDS; round += 1) {
      const { elapsedMs } = await watch.run(() =>
        Promise.all(
          Array.from({ length: CONCURRENT }, () =>
            api('POST', '/workflow_engine/startJobWithOptions/bench-integration-chain', { options: {} }).then((j) => j._id),
          ),
        ),
      );
      if (round > 0) {
        elapsed += elapsedMs;
        calls += CONCURRENT * CHAIN;
      }
    }
    await watch.stop();
    jobRate = (calls / elapsed) * 1000;
  } finally {
    await stop();
    peer.stop();
  }

  const fmt = (n) => n.toFixed(0).padStart(7);
  console.log(
    `\nIntegration task calls against the lab peer (${os.cpus().length} cores, concurrency ${CONCURRENCY}, ${CALLS} calls; jobs: ${CONCURRENT} x ${CHAIN} tasks, ${ROUNDS} rounds)`,
  );
  console.log(`  bare peer (undici, same request)       ${fmt(bareRate)} calls/s   (baseline)`);
  console.log(`  admin.runTask over the bus             ${fmt(busRate)} calls/s   ${(busRate / bareRate).toFixed(2)} x baseline`);
  console.log(`  integration tasks in jobs (engine)     ${fmt(jobRate)} calls/s   ${(jobRate / bareRate).toFixed(2)} x baseline`);
  const baseline = { name: 'bare peer (undici, same request)', value: bareRate };
  report({ name: 'admin.runTask over the bus', value: busRate, unit: 'calls/s', baseline, better: 'higher' });
  report({ name: 'integration tasks in jobs', value: jobRate, unit: 'calls/s', baseline, better: 'higher' });
}
