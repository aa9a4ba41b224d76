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
//  4. The import of the largest fixture OpenAPI document (GitLab's, 2.4 MB as it is on disk, over
//     the 1 MiB of the other routes: NAP_DOCUMENT_BODY_LIMIT_BYTES): POST /integration-models and
//     PUT /integration-models/validation through the gateway, the time of each and the process's peak
//     memory above what it held before (resident set, sampled every 5 ms; the platform runs in this process).
// Prints calls per second of each and their ratio to the bare peer, then the import's figures.
// `--smoke`: 40 calls, 2 jobs of 2 tasks, one import of the smallest fixture document instead (the
// largest costs seconds of CPU to convert and validate; proves it runs, the figures mean little).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadLab } from './load-lab.mjs';
import { builtClients, forkPeer, saturate, servePeer } from './peers.mjs';
import { startBenchPlatform, watchJobs } from './standalone.mjs';
import { SMOKE, report, size, skip } from './report.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const OPENAPI_DIR = path.resolve(root, '../shared/fixtures/itential-assets/openapi');
const MODEL = path.join(OPENAPI_DIR, 'ServiceNow_OpenAPIs_table_latest.json');
const CONCURRENCY = Number(process.env.NAP_BENCH_CONCURRENCY ?? size(16, 4));
const CALLS = Number(process.env.NAP_BENCH_CALLS ?? size(4000, 40));
const WARM_UP = size(500, 10);
const CHAIN = size(10, 2);
const CONCURRENT = Number(process.env.NAP_BENCH_JOBS ?? size(20, 2));
const ROUNDS = Number(process.env.NAP_BENCH_ROUNDS ?? size(3, 1));
const IMPORTS = size(5, 1);

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

  const { platform, api, call, token, startJob, stop } = await startBenchPlatform('integrations');
  let busRate;
  let jobRate;
  let imported;
  try {
    imported = await measureImport(platform.url, call, token);
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
        Promise.all(Array.from({ length: CONCURRENT }, () => startJob('bench-integration-chain', {}))),
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
  const mb = (bytes) => `${(bytes / 1_048_576).toFixed(1)} MB`;
  console.log(
    `\nImport of the ${SMOKE ? 'smallest' : 'largest'} fixture OpenAPI document${SMOKE ? ' (smoke size: checks that it runs)' : ''}: ${imported.file}, ${mb(imported.bytes)} as on disk, ${imported.rounds} round(s), best and worst`,
  );
  console.log(
    `  POST /integration-models               ${imported.create.best} ms / ${imported.create.worst} ms   (${imported.methods} methods, ${imported.warnings} warnings)`,
  );
  console.log(`  PUT /integration-models/validation     ${imported.validate.best} ms / ${imported.validate.worst} ms`);
  console.log(`  peak resident memory during an import  +${mb(imported.peakRssGrowth)} over ${mb(imported.rssBefore)} before`);
  const baseline = { name: 'bare peer (undici, same request)', value: bareRate };
  report({ name: 'admin.runTask over the bus', value: busRate, unit: 'calls/s', baseline, better: 'higher' });
  report({ name: 'integration tasks in jobs', value: jobRate, unit: 'calls/s', baseline, better: 'higher' });
  report({ name: 'OpenAPI import, POST /integration-models (best)', value: Number(imported.create.best), unit: 'ms', better: 'lower' });
  report({ name: 'OpenAPI import, peak resident memory growth', value: imported.peakRssGrowth / 1_048_576, unit: 'MiB', better: 'lower' });
}

/**
 * The largest document of the fixtures (the smallest at smoke size), imported IMPORTS times (deleted
 * between) and validated as often: times and peak memory.
 */
async function measureImport(url, call, token) {
  const bySize = readdirSync(OPENAPI_DIR)
    .map((name) => ({ name, size: statSync(path.join(OPENAPI_DIR, name)).size }))
    .sort((a, b) => b.size - a.size);
  const file = SMOKE ? bySize[bySize.length - 1] : bySize[0];
  const text = readFileSync(path.join(OPENAPI_DIR, file.name), 'utf8');
  const body = `{"model": ${text}}`;
  const send = async (method, route) => {
    const res = await fetch(`${url}${route}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body,
    });
    const answer = await res.json();
    if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(answer).slice(0, 500)}`);
    return answer;
  };
  globalThis.gc?.();
  const rssBefore = process.memoryUsage.rss();
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  const create = [];
  const validate = [];
  let model;
  let warnings = 0;
  try {
    for (let round = 0; round < IMPORTS; round += 1) {
      let started = performance.now();
      // the model is answered inside { status, message, data } (as ipctl reads it) or, before that shape, bare
      const answer = await send('POST', '/integration-models');
      model = answer.data ?? answer;
      create.push(performance.now() - started);
      started = performance.now();
      warnings = (await send('PUT', '/integration-models/validation')).warnings.length;
      validate.push(performance.now() - started);
      await call('DELETE', `/integration-models/${encodeURIComponent(model.versionId)}`, undefined, token);
    }
  } finally {
    clearInterval(sampler);
  }
  const span = (times) => ({ best: Math.min(...times).toFixed(0), worst: Math.max(...times).toFixed(0) });
  return {
    file: file.name,
    bytes: file.size,
    rounds: IMPORTS,
    create: span(create),
    validate: span(validate),
    methods: model.methodCount,
    warnings,
    rssBefore,
    peakRssGrowth: peak - rssBefore,
  };
}
