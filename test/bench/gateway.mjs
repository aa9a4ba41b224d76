#!/usr/bin/env node
// Gateway throughput: authenticated GET /user-management/groups/:id through the standalone platform
// and through the distributed one (gateway and admin as separate processes over nats-server),
// against two baselines measured in the same run: a bare node:http server and a bare express 5 app
// answering a fixed JSON body. 32 connections, each server loaded in turn for 5 rounds
// (NAP_BENCH_ROUNDS) of 6 s (NAP_BENCH_SECONDS), the median round of each reported; prints req/s,
// p50, p99 and the ratios. A ratio is the median of the ratios of each round, the platform against
// the express of the same round, with their range: a machine whose speed drifts during the run (by
// 20% on a shared one) moves both sides of a round alike, where a ratio of medians takes its two
// sides from different moments. Targets: standalone >= 0.7 of express (issue 9), distributed >= 0.8
// (issue 24). `--smoke`: 4 connections for a quarter of a second, no warm-up, one round (proves it
// runs).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild, stopChildren } from './children.mjs';
import { httpLoad, statuses } from './http-load.mjs';
import { PLATFORM_NODE_FLAGS } from './platform-flags.mjs';
import { report, size, spread, spreadText } from './report.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const CONNECTIONS = size(32, 4);
const DURATION_S = Number(process.env.NAP_BENCH_SECONDS ?? size(6, 0.25));
/** Seconds of load before each measured one, not counted (none in a smoke run: the same code as the measured load). */
const WARM_UP_S = size(2, 0);
const PASSWORD = 'bench-admin-password';

/** A node process of `args` in the repository root (30 s to be ready, as the bench always allowed). */
const start = (args, env, ready) => startChild(process.execPath, args, env, ready, args.join(' '), 30_000);

/** A nats-server with JetStream on a free port; answers its url. */
/** Temporary directories of the run (nats-server's, the distributed platform's), removed at its end. */
const dirs = [];

async function startNats() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-bench-nats-'));
  dirs.push(dir);
  const args = ['-a', '127.0.0.1', '-p', '-1', '-js', '-sd', dir];
  const nats = await startChild('nats-server', args, {}, /Listening for client connections on 127\.0\.0\.1:(\d+)/, 'nats-server', 15_000);
  return `nats://127.0.0.1:${nats.match[1]}`;
}

async function prepare(url) {
  const login = await fetch(`${url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: { username: 'admin', password: PASSWORD } }),
  });
  const token = await login.text();
  const created = await fetch(`${url}/user-management/groups`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ group: { name: `bench-${Date.now()}` } }),
  });
  const { data } = await created.json();
  return { path: `/user-management/groups/${data._id}`, headers: { authorization: `Bearer ${token}` } };
}

const results = [];
/** The platform's servers (by index) against express: each round's ratio to that round's express, as a {@link spread}. */
const vsExpress = new Map();

async function load(name, url, req) {
  // warm-up, then the measured run
  if (WARM_UP_S > 0) await httpLoad({ url: `${url}${req.path}`, headers: req.headers, connections: CONNECTIONS, duration: WARM_UP_S });
  const r = await httpLoad({ url: `${url}${req.path}`, headers: req.headers, connections: CONNECTIONS, duration: DURATION_S });
  const bad = r.non2xx + r.errors + r.timeouts;
  if (bad > 0)
    throw new Error(`${name}: ${bad} failed requests (non-2xx ${r.non2xx}: ${statuses(r)}, errors ${r.errors}, timeouts ${r.timeouts})`);
  return { name, rps: r.rps, p50: r.latency.p50, p99: r.latency.p99 };
}

/** Every server up at once, then ROUNDS rounds of each in turn: the median round of each is reported. */
const ROUNDS = Number(process.env.NAP_BENCH_ROUNDS ?? size(5, 1));
const servers = [];
try {
  /** nats-server, the admin service and a gateway over them; answers the gateway's url. */
  const distributed = async () => {
    const nats = await startNats();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-bench-dist-'));
    dirs.push(dataDir);
    const env = {
      NAP_NATS_URL: nats,
      NAP_DATA_DIR: dataDir,
      NAP_ADMIN_PASSWORD: PASSWORD,
      NAP_PORT: '0',
      NAP_LOG_LEVEL: 'warn',
      NAP_SECRET_KEY: 'bench-secret-key-of-32-characters',
    };
    // side by side: the gateway needs only nats-server, and nothing is asked of admin before both are up
    const [, gw] = await Promise.all([
      start(['services/admin/dist/main.js'], { ...env, NAP_LOG_LEVEL: 'info' }, /Service admin is serving/),
      start(['gateway/dist/main.js'], { ...env, NAP_LOG_LEVEL: 'info' }, /"url":"(http:\/\/[^"]+)"/),
    ]);
    return gw.match[1];
  };
  // every server starts at once (nothing is measured before all are up): a run waits for the slowest, not for their sum
  const [http, ex, sa, gwUrl] = await Promise.all([
    start([path.join(here, 'baselines.mjs'), 'http'], {}, /listening (\d+)/),
    start([path.join(here, 'baselines.mjs'), 'express'], {}, /listening (\d+)/),
    start([...PLATFORM_NODE_FLAGS, path.join(here, 'platform.mjs')], { NAP_ADMIN_PASSWORD: PASSWORD }, /listening (http:\/\/\S+)/),
    distributed(),
  ]);
  servers.push({
    name: 'bare node:http',
    url: `http://127.0.0.1:${http.match[1]}`,
    req: { path: '/user-management/groups/x', headers: {} },
  });
  servers.push({ name: 'bare express 5', url: `http://127.0.0.1:${ex.match[1]}`, req: { path: '/user-management/groups/x', headers: {} } });
  servers.push({ name: 'NAP standalone', url: sa.match[1], req: await prepare(sa.match[1]) });
  servers.push({ name: 'NAP distributed (NATS)', url: gwUrl, req: await prepare(gwUrl) });

  // the baselines and the platform take turns, so that what else loads the machine weighs on each alike
  const rounds = servers.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, server] of servers.entries()) rounds[i].push(await load(server.name, server.url, server.req));
  }
  // each round of the platform against that round's express (servers[1]), before the rounds are sorted
  for (const i of [2, 3]) vsExpress.set(i, spread(rounds[i].map((r, round) => r.rps / rounds[1][round].rps)));
  for (const measured of rounds) {
    measured.sort((x, y) => x.rps - y.rps);
    results.push(measured[Math.floor(measured.length / 2)]);
  }
} finally {
  await stopChildren();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

const [node, express] = results;
const saRatio = vsExpress.get(2);
const distRatio = vsExpress.get(3);
console.log(
  `\nGET /user-management/groups/:id, ${CONNECTIONS} connections, ${DURATION_S} s a round, ${ROUNDS} rounds taken in turns (the median round of each server), ${os.cpus().length} cores\n`,
);
console.log('| server | req/s | p50 ms | p99 ms | vs node:http | vs express, median of the rounds (range) |');
console.log('|---|---:|---:|---:|---:|---:|');
results.forEach((r, i) => {
  const ofExpress = vsExpress.has(i) ? spreadText(vsExpress.get(i)) : (r.rps / express.rps).toFixed(2);
  console.log(`| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${(r.rps / node.rps).toFixed(2)} | ${ofExpress} |`);
});
const sa = results[2];
const dist = results[3];
console.log(
  `\ntargets: standalone >= 0.7 of express (issue 9: ${spreadText(saRatio)}), distributed >= 0.8 of express (issue 24: ${spreadText(distRatio)})`,
);
const base = { name: 'bare express 5', value: express.rps };
report({ name: 'bare node:http', value: node.rps, unit: 'req/s', baseline: base, better: 'higher' });
report({ name: 'NAP standalone, of express', value: saRatio.median, unit: 'ratio', target: '>= 0.7' });
report({ name: 'NAP distributed (NATS), of express', value: distRatio.median, unit: 'ratio', target: '>= 0.8' });
report({ name: 'NAP standalone', value: sa.rps, unit: 'req/s', baseline: base, better: 'higher' });
report({ name: 'NAP distributed (NATS)', value: dist.rps, unit: 'req/s', baseline: base, better: 'higher' });
report({
  name: 'NAP standalone p99',
  value: sa.p99,
  unit: 'ms',
  baseline: { name: 'bare express 5 p99', value: express.p99 },
  better: 'lower',
});
process.exit(0);
