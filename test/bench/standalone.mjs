// The standalone platform in the benchmark's own process (built dist/ code), with a logged-in JSON
// caller: `const { call, api, token, stop } = await startBenchPlatform('mop')`.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { runUnderPlatformFlags } from './platform-flags.mjs';

// the platform runs here: under the flags `npm start` gives it
await runUnderPlatformFlags();

const require = createRequire(import.meta.url);
const PASSWORD = 'bench-admin-password';

/**
 * Starts the services (every one unless `services` names some) and the gateway on a free port with a
 * fresh data directory; `env` adds `NAP_*` settings. `call(method, route, body?, token?)` answers
 * the parsed JSON body and throws on a status of 300 or more; `api(method, route, body?)` is `call`
 * as the logged-in admin.
 */
export async function startBenchPlatform(name, { env = {}, services } = {}) {
  const { startPlatform } = require('../../deploy/standalone/dist/index.js');
  const { loadConfig } = require('../../packages/runtime/dist/index.js');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `nap-bench-${name}-`));
  const config = {
    ...loadConfig({
      NAP_DATA_DIR: dataDir,
      NAP_PORT: '0',
      NAP_ADMIN_PASSWORD: PASSWORD,
      NAP_SECRET_KEY: 'bench-secret-key-of-32-characters',
      ...env,
    }),
    logLevel: 'warn',
  };
  const platform = await startPlatform({ config, ...(services ? { services } : {}) });
  // node:http on kept-alive connections: the load runs in the platform's own process, and fetch
  // (undici's web streams, Request and Response objects) cost it three times as much CPU per call
  const agent = new http.Agent({ keepAlive: true });
  // `raw`: the answer's text, not parsed (see startJob)
  const call = (method, route, body, token, raw = false) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers = {
        ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      };
      const req = http.request(`${platform.url}${route}`, { method, headers, agent }, (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode >= 300) return reject(new Error(`${method} ${route}: ${res.statusCode} ${text.slice(0, 500)}`));
          if (raw) return resolve(text);
          // JSON answers parsed; text ones (the bare token of /login) as they are
          try {
            resolve(text && (res.headers['content-type'] ?? '').includes('json') ? JSON.parse(text) : text || undefined);
          } catch (err) {
            reject(err);
          }
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  let token;
  try {
    token = await call('POST', '/login', { user: { username: 'admin', password: PASSWORD } });
  } catch (err) {
    await platform.stop();
    throw err;
  }
  return {
    platform,
    call,
    token,
    api: (method, route, body) => call(method, route, body, token),
    /**
     * Starts a job of the workflow `name` with `options` and answers its id. The answer is the whole
     * job document; the load runs in the platform's process, and parsing it cost the engine's
     * benchmark about 5% of the CPU it counted as the engine's. The id is read from the head of the
     * text (the document's first member), the whole parsed only when it is not there.
     */
    async startJob(name, options) {
      const text = await call('POST', `/workflow_engine/startJobWithOptions/${encodeURIComponent(name)}`, { options }, token, true);
      return JOB_ID_AT_HEAD.exec(text)?.[1] ?? JSON.parse(text)._id;
    },
    async stop() {
      agent.destroy();
      await platform.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The `_id` that opens a job document's JSON (the member the platform writes first). */
const JOB_ID_AT_HEAD = /^\{"_id":"([0-9a-f]{24})"/;

/**
 * Watches the platform's job events so a benchmark can start jobs and wait for their end without
 * polling the store: `run(start, settle?)` calls `start()` (which answers the started job ids), waits
 * until each has sent its jobComplete/jobError/jobCancel event (and then for `settle()` when given),
 * and answers the elapsed time (the reading of the finished jobs that follows not counted) and the
 * finished job documents; it throws when a job did not complete.
 */
export async function watchJobs(platform, label) {
  const ended = new Set();
  let wake = () => {};
  // only the events that end a job: the load generator runs in the platform's process, and taking
  // every task event (two per task) would count its own deliveries as the engine's CPU
  const subs = await Promise.all(
    ['jobComplete', 'jobError', 'jobCancel'].map((name) =>
      platform.bus.consumeEvents(
        `nap.evt.workflow.job.*.${name}`,
        (event) => {
          ended.add(event.subject.split('.')[4]);
          wake();
        },
        { deliver: 'new' },
      ),
    ),
  );
  const jobs = platform.stores.get('workflow').collection('jobs');
  return {
    async run(start, settle) {
      const started = performance.now();
      const ids = await start();
      const deadline = Date.now() + 120_000;
      while (!ids.every((id) => ended.has(id))) {
        if (Date.now() > deadline) throw new Error(`${label}: jobs did not finish`);
        await new Promise((r) => {
          wake = r;
          setTimeout(r, 100);
        });
      }
      await settle?.(ids);
      const elapsedMs = performance.now() - started;
      const done = await jobs.find({ _id: { $in: ids } });
      const bad = done.filter((j) => j.status !== 'complete');
      if (bad.length > 0) throw new Error(`${label}: ${bad.length} jobs ended ${bad[0].status}: ${JSON.stringify(bad[0].error)}`);
      return { elapsedMs, done };
    },
    stop: () => Promise.all(subs.map((sub) => sub.unsubscribe())),
  };
}

/** Linux's USER_HZ, the unit of /proc's CPU times. */
const CLOCK_TICKS = 100;

/** CPU ms (user + system, every thread) this process has used so far, or NaN without /proc. */
export function cpuMs() {
  if (!existsSync('/proc/self/task')) return Number.NaN;
  let ms = 0;
  for (const task of readdirSync('/proc/self/task')) {
    let stat;
    try {
      stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ms += ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  }
  return ms;
}
