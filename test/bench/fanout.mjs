#!/usr/bin/env node
// Event fan-out of GET /operations-manager/events (built dist/ code; `npm run build` first). The
// standalone platform runs as a child process; the SSE clients run in another process (this file,
// forked with --clients), so that the platform's CPU (from /proc/<pid>/stat) is its own. For 0, 200
// and 500 connected clients (NAP_BENCH_FANOUT_CLIENTS), 200 jobs of three built-in tasks (8 events
// each, NAP_BENCH_FANOUT_JOBS) are started 50 at a time through HTTP, 5 rounds each (NAP_BENCH_FANOUT_ROUNDS; the median is reported) (half the clients an administrator,
// half an operator in a group, whose visibility is decided per job); measured: the time to start
// them (baseline: the same with no client connected, same run), the platform's CPU per event per
// client beyond the run without clients (target <= 3 us), the p50/p99 latency of an event (its
// payload's timestamp to its arrival at a client), and that every client got every event once.
// Targets (issue 24): <= 3 us CPU per event per client; start throughput at 500 clients >= 0.8x of none.
// Every figure also goes out as a BENCH line (report.mjs) for run.mjs's table.
//   node test/bench/fanout.mjs            full size (NAP_BENCH_FANOUT_JOBS, NAP_BENCH_FANOUT_CLIENTS)
//   node test/bench/fanout.mjs --smoke    10 jobs, 0 and 20 clients, no warm-up: proves it runs (figures mean nothing)
import { fork } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { shortJobWorkflow, startChildPlatform } from './child-platform.mjs';
import { quantile, report, size, SMOKE } from './report.mjs';

const JOBS = size(Number(process.env.NAP_BENCH_FANOUT_JOBS ?? 200), 10);
/** Rounds per number of clients; the median is reported. */
const ROUNDS = size(Number(process.env.NAP_BENCH_FANOUT_ROUNDS ?? 5), 1);
const SIZES = size(process.env.NAP_BENCH_FANOUT_CLIENTS ?? '0,200,500', '0,20')
  .split(',')
  .map(Number);
/** How long the clients may take to get every event of a round. */
const WAIT_MS = size(300_000, 60_000);
const EVENTS_PER_JOB = 8;
const CONCURRENT = 50;
const TARGET_US = 3;
const TARGET_START_RATIO = 0.8;

// ---- the clients' process ------------------------------------------------------------------------

/** What starts an event frame after the one before it (the stream's first frame counts as if one ended before it). */
const FRAME_START = Buffer.from('\n\nid: ');
const FRAME_GAP = Buffer.from('\n\n');

/**
 * The event frames (`id: …`) that begin in `chunk`, a frame start cut by the chunk boundary
 * included: found on the bytes, without decoding or copying the stream (the sampled clients parse
 * frames for their latency; the others only count).
 */
function countFrames(client, chunk) {
  const keep = FRAME_START.length - 1;
  let count = 0;
  // a start cut in two: the last bytes of the chunk before and the first of this one
  const seam = Buffer.concat([client.tail, chunk.subarray(0, keep)]);
  for (let at = seam.indexOf(FRAME_START); at >= 0; at = seam.indexOf(FRAME_START, at + 1)) {
    if (at < client.tail.length && at + FRAME_START.length > client.tail.length) count += 1;
  }
  for (let at = chunk.indexOf(FRAME_START); at >= 0; at = chunk.indexOf(FRAME_START, at + FRAME_START.length)) count += 1;
  client.tail = chunk.length >= keep ? chunk.subarray(chunk.length - keep) : Buffer.concat([client.tail, chunk]).subarray(-keep);
  return count;
}

function clientsProcess() {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  let clients = [];
  /** This process's CPU since the last reset: what reading the streams cost the machine the platform runs on. */
  let cpuAtReset = process.cpuUsage();
  // latencies are read on a few clients only: parsing every frame of every client would load this process
  const SAMPLED = 10;
  const handlers = {
    async connect({ url, tokens, count }) {
      const opened = [];
      for (let i = 0; i < count; i++) {
        const token = tokens[(clients.length + i) % tokens.length];
        const client = { events: 0, buffer: '', tail: FRAME_GAP, latencies: [], req: undefined };
        opened.push(
          new Promise((resolve, reject) => {
            client.req = http.get(`${url}/operations-manager/events`, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
              if (res.statusCode !== 200) {
                reject(new Error(`stream answered ${res.statusCode}`));
                return;
              }
              const sampled = i < SAMPLED;
              let resolved = false;
              res.on('data', (chunk) => {
                if (!resolved) {
                  resolved = true;
                  resolve();
                }
                if (!sampled) {
                  // counted on the bytes: this process shares the machine with the platform measured
                  client.events += countFrames(client, chunk);
                  return;
                }
                const now = Date.now();
                client.buffer += chunk.toString('utf8');
                let end;
                while ((end = client.buffer.indexOf('\n\n')) >= 0) {
                  const frame = client.buffer.slice(0, end);
                  client.buffer = client.buffer.slice(end + 2);
                  if (!frame.startsWith('id: ')) continue;
                  client.events += 1;
                  if (sampled) {
                    const ts = /"timestamp":(\d+)/.exec(frame);
                    if (ts) client.latencies.push(now - Number(ts[1]));
                  }
                }
              });
              res.on('end', () => (client.ended = true));
            });
            client.req.on('error', reject);
          }),
        );
        clients.push(client);
      }
      await Promise.all(opened);
      return { connected: clients.length };
    },
    reset() {
      for (const c of clients) {
        c.events = 0;
        c.latencies = [];
      }
      cpuAtReset = process.cpuUsage();
      return {};
    },
    async wait({ events, timeoutMs }) {
      const deadline = Date.now() + timeoutMs;
      while (clients.some((c) => c.events < events) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const counts = clients.map((c) => c.events);
      const latencies = clients.flatMap((c) => c.latencies).sort((a, b) => a - b);
      return {
        at: Date.now(),
        min: Math.min(...counts),
        max: Math.max(...counts),
        ended: clients.filter((c) => c.ended).length,
        clientsCpu: (({ user, system }) => (user + system) / 1e6)(process.cpuUsage(cpuAtReset)),
        p50: quantile(latencies, 0.5),
        p99: quantile(latencies, 0.99),
      };
    },
    close() {
      for (const c of clients) c.req?.destroy();
      clients = [];
      return {};
    },
  };
  process.on('message', async (msg) => {
    try {
      process.send({ id: msg.id, ...(await handlers[msg.op](msg)) });
    } catch (err) {
      process.send({ id: msg.id, error: String(err?.stack ?? err) });
    }
  });
}

// ---- the benchmark --------------------------------------------------------------------------------

function startClients() {
  const child = fork(fileURLToPath(import.meta.url), ['--clients'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let next = 1;
  const waiting = new Map();
  child.on('message', (msg) => {
    const w = waiting.get(msg.id);
    waiting.delete(msg.id);
    if (msg.error) w?.reject(new Error(msg.error));
    else w?.resolve(msg);
  });
  const ask = (op, args = {}) =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      child.send({ id, op, ...args });
    });
  return { ask, stop: () => child.kill() };
}

async function startJobs(platform, count) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await platform.api('POST', '/workflow_engine/startJobWithOptions/fanout', {
        options: { variables: { seed: `s${i}`, data: { a: { b: i } } } },
      });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT }, worker));
}

async function jobsDone(platform) {
  for (;;) {
    const page = await platform.api('GET', '/operations-manager/jobs?in[status]=running,paused&limit=1&include=_id');
    if (page.total === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function round(platform, clients, size) {
  await clients.ask('reset');
  const cpuBefore = platform.cpuSeconds();
  const started = performance.now();
  await startJobs(platform, JOBS);
  const startSeconds = (performance.now() - started) / 1000;
  let seen = { min: 0, max: 0, p50: NaN, p99: NaN, ended: 0 };
  if (size === 0) await jobsDone(platform);
  else seen = await clients.ask('wait', { events: JOBS * EVENTS_PER_JOB, timeoutMs: WAIT_MS });
  const cpu = platform.cpuSeconds() - cpuBefore;
  const wallSeconds = (performance.now() - started) / 1000;
  return { size, startSeconds, wallSeconds, cpu, ...seen };
}

async function main() {
  console.log(
    `Event fan-out: ${JOBS} jobs of 3 built-in tasks (${EVENTS_PER_JOB} events each), ${CONCURRENT} starts at a time, median of ${ROUNDS} rounds${SMOKE ? ' (smoke)' : ''}`,
  );
  // 500 clients of two accounts: more streams than a caller may hold by default
  const platform = await startChildPlatform('fanout', { env: { NAP_STREAMS_PER_CALLER: '1000' } });
  const clients = startClients();
  try {
    await platform.api('POST', '/automation-studio/automations', { automation: shortJobWorkflow('fanout') });
    // half the clients are an administrator (sees every job), half an operator in a group (its
    // visibility is decided per job and group set); the jobs have no groups: both see every event
    const group = await platform.api('POST', '/user-management/groups', { group: { name: 'fanout-readers' } });
    await platform.api('PUT', `/user-management/groups/${group.data._id}/roles`, { roles: ['operations'] });
    await platform.api('POST', '/user-management/accounts', {
      account: { username: 'fanout-reader', password: 'fanout-reader-pw', groups: [group.data._id] },
    });
    const readerToken = await platform.call('POST', '/login', { user: { username: 'fanout-reader', password: 'fanout-reader-pw' } });
    const tokens = [platform.token, readerToken];
    // warm-up (not in a smoke run: its rounds run the same code)
    if (!SMOKE) {
      await startJobs(platform, JOBS);
      await jobsDone(platform);
    }
    const results = [];
    let connected = 0;
    for (const size of [...SIZES].sort((a, b) => a - b)) {
      if (size > connected) await clients.ask('connect', { url: platform.url, tokens, count: size - connected });
      connected = size;
      // the median round of each size: one round of a second is at the mercy of whatever else runs
      const rounds = [];
      for (let i = 0; i < ROUNDS; i++) rounds.push(await round(platform, clients, size));
      rounds.sort((a, b) => a.startSeconds - b.startSeconds);
      const cpus = rounds.map((r) => r.cpu).sort((a, b) => a - b);
      results.push({ ...rounds[Math.floor(rounds.length / 2)], cpu: cpus[Math.floor(cpus.length / 2)], rounds: rounds.length });
    }
    const none = results.find((r) => r.size === 0) ?? results[0];
    const events = JOBS * EVENTS_PER_JOB;
    console.log(
      '  clients   start jobs   start/s (x none)   platform CPU   CPU/event/client   latency p50   p99     events per client (min-max)',
    );
    for (const r of results) {
      const perClientUs = r.size === 0 ? NaN : ((r.cpu - none.cpu) / (events * r.size)) * 1e6;
      console.log(
        `  ${String(r.size).padStart(7)}   ${r.startSeconds.toFixed(2).padStart(8)} s   ${Math.round(JOBS / r.startSeconds)
          .toString()
          .padStart(6)} (${(none.startSeconds / r.startSeconds).toFixed(2)}x)   ${r.cpu.toFixed(2).padStart(9)} s   ${
          r.size === 0 ? '        (baseline)' : `${perClientUs.toFixed(2).padStart(12)} us`
        }   ${Number.isNaN(r.p50) ? '     -' : `${r.p50.toFixed(0).padStart(6)} ms`} ${Number.isNaN(r.p99) ? '    -' : `${r.p99.toFixed(0).padStart(5)} ms`}   ${
          r.size === 0
            ? '-'
            : `${r.min}-${r.max} of ${events}${r.ended ? `, ${r.ended} closed` : ''} (clients used ${r.clientsCpu.toFixed(2)} s CPU)`
        }`,
      );
    }
    const largest = results[results.length - 1];
    if (largest.size > 0) {
      const perClientUs = ((largest.cpu - none.cpu) / (events * largest.size)) * 1e6;
      const ratio = none.startSeconds / largest.startSeconds;
      console.log(
        `  target: <= ${TARGET_US} us CPU per event per client at ${largest.size} clients (${perClientUs <= TARGET_US ? 'met' : 'NOT met'}), start rate >= ${TARGET_START_RATIO}x of none (${
          ratio >= TARGET_START_RATIO ? 'met' : 'NOT met'
        }), every event once (${results.every((r) => r.size === 0 || (r.min === events && r.max === events)) ? 'yes' : 'NO'})`,
      );
    }
    const noneName = none.size === 0 ? 'no client' : `${none.size} clients`;
    for (const r of results) {
      const at = r.size === 0 ? 'no client' : `${r.size} clients`;
      report({
        name: `job starts/s, ${at}`,
        value: JOBS / r.startSeconds,
        unit: 'jobs/s',
        better: 'higher',
        ...(r === none ? {} : { baseline: { name: `job starts/s, ${noneName}`, value: JOBS / none.startSeconds } }),
      });
      report({
        name: `platform CPU, ${JOBS} jobs, ${at}`,
        value: r.cpu,
        unit: 's',
        better: 'lower',
        ...(r === none ? {} : { baseline: { name: `platform CPU, ${JOBS} jobs, ${noneName}`, value: none.cpu } }),
      });
      if (r === none || r.size === 0) continue;
      report({
        name: `platform CPU per event per client beyond ${noneName}, ${at}`,
        value: ((r.cpu - none.cpu) / (events * r.size)) * 1e6,
        unit: 'us',
        target: `<= ${TARGET_US}`,
      });
      report({
        name: `job start throughput, ${at} / ${noneName}`,
        value: none.startSeconds / r.startSeconds,
        unit: 'ratio',
        target: `>= ${TARGET_START_RATIO}`,
      });
      report({ name: `event latency p50, ${at}`, value: r.p50, unit: 'ms', better: 'lower' });
      report({ name: `event latency p99, ${at}`, value: r.p99, unit: 'ms', better: 'lower' });
      report({ name: `events of the fewest served client, ${at}`, value: r.min, unit: 'events', target: `>= ${events}` });
      report({ name: `events of the most served client, ${at}`, value: r.max, unit: 'events', target: `<= ${events}` });
      report({ name: `streams the platform closed, ${at}`, value: r.ended, unit: 'clients', target: '<= 0' });
    }
  } finally {
    await clients.ask('close').catch(() => undefined);
    clients.stop();
    await platform.stop();
  }
}

if (process.argv.includes('--clients')) clientsProcess();
else await main();
