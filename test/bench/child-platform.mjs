// The standalone platform as a child process (the built deploy/standalone/dist/main.js), for
// benchmarks that measure the platform's own memory or CPU apart from the load they put on it:
//   const p = await startChildPlatform('soak', { maxOldSpaceMb: 352, probe: true });
//   await p.api('POST', '/automation-studio/automations', { automation });
//   const { memory } = await p.memory();   // after a full GC (probe: test/support/memory-probe.cjs)
//   p.cpuSeconds();                        // user + system CPU of the child so far, from /proc/<pid>/stat
//   await p.stop();
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PLATFORM_NODE_FLAGS } from './platform-flags.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '../..');
const MAIN = path.join(ROOT, 'deploy/standalone/dist/main.js');
const PROBE = path.join(ROOT, 'test/support/memory-probe.cjs');
const PASSWORD = 'bench-admin-password';
const CLOCK_TICKS = 100; // USER_HZ on Linux

/** User + system CPU seconds of process `pid` so far (Linux). */
export function cpuSecondsOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // the command name may hold spaces: the fields start after its closing parenthesis
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** Memory of process `pid` from /proc/<pid>/status, KiB: RssAnon (heap, malloc) and RssFile (mapped files: the store). */
export function procMemoryKiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: field('VmRSS'), rssAnon: field('RssAnon'), rssFile: field('RssFile') };
}

/**
 * Starts the platform in a child process with a fresh data directory. `maxOldSpaceMb` caps V8's old
 * space (garbage then cannot pose as growth); `probe` loads the memory probe and exposes the GC;
 * `env` adds NAP_* settings; `nodeArgs` adds node flags (`--cpu-prof`). Resolves once an admin logged in.
 */
export async function startChildPlatform(name, { maxOldSpaceMb, probe = false, env = {}, nodeArgs = [], readyTimeoutMs = 60_000 } = {}) {
  if (!existsSync(MAIN)) throw new Error(`${path.relative(ROOT, MAIN)} is missing: run \`npm run build\` first`);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `nap-bench-${name}-`));
  const args = [
    ...PLATFORM_NODE_FLAGS,
    ...(maxOldSpaceMb ? [`--max-old-space-size=${maxOldSpaceMb}`] : []),
    // the probe always: it also stops the platform when this process dies; the GC only with `probe`
    ...(probe ? ['--expose-gc'] : []),
    '--require',
    PROBE,
    ...nodeArgs,
    MAIN,
  ];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      NAP_DATA_DIR: dataDir,
      NAP_PORT: '0',
      NAP_HOST: '127.0.0.1',
      NAP_LOG_LEVEL: 'info',
      NAP_ADMIN_PASSWORD: PASSWORD,
      NAP_SECRET_KEY: 'bench-secret-key-of-32-characters',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  const keep = (chunk) => {
    output += chunk.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the platform did not start within ${readyTimeoutMs} ms:\n${output.slice(-4000)}`)),
      readyTimeoutMs,
    );
    const look = () => {
      const m = /NAP is listening on (http:\/\/[0-9.:]+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        child.stdout.off('data', look);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', look);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the platform exited (${code}) before it listened:\n${output.slice(-4000)}`));
    });
  });

  const call = async (method, route, body, token) => {
    const res = await fetch(`${url}${route}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 500)}`);
    return text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text || undefined;
  };
  const token = await call('POST', '/login', { user: { username: 'admin', password: PASSWORD } });

  let nextId = 1;
  const pending = new Map();
  child.on('message', (msg) => {
    if (msg?.probe !== 'nap') return;
    const waiter = pending.get(msg.id);
    pending.delete(msg.id);
    if (msg.error) waiter?.reject(new Error(msg.error));
    else waiter?.resolve(msg);
  });
  const ask = (op, extra = {}) => {
    if (!probe) throw new Error('start the platform with { probe: true } to read its memory');
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      child.send({ probe: 'nap', id, op, ...extra });
    });
  };

  return {
    url,
    pid: child.pid,
    dataDir,
    token,
    call,
    api: (method, route, body) => call(method, route, body, token),
    output: () => output,
    cpuSeconds: () => cpuSecondsOf(child.pid),
    procMemory: () => procMemoryKiB(child.pid),
    /** process.memoryUsage() and v8.getHeapStatistics() of the child after a full GC. */
    memory: () => ask('memory'),
    /** Writes a heap snapshot of the child (after a full GC) to `file`; resolves with its path. */
    snapshot: async (file) => (await ask('snapshot', { file })).file,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
      return output;
    },
  };
}

/** A short job: three built-in tasks in a chain (newVariable, stringConcat, query), each reading the one before; 8 job events. */
export function shortJobWorkflow(name) {
  const task = (taskName, incoming, outgoing) => ({
    name: taskName,
    app: 'WorkFlowEngine',
    type: 'operation',
    groups: [],
    variables: { incoming, outgoing },
  });
  return {
    name,
    type: 'automation',
    groups: [],
    tasks: {
      workflow_start: { name: 'workflow_start', groups: [] },
      a1: task('newVariable', { name: 'greeting', value: '$var.job.seed' }, { value: null }),
      b2: task('stringConcat', { str: '$var.job.greeting', stringN: '-soak' }, { combinedStrings: '$var.job.joined' }),
      c3: task('query', { pass_on_null: true, query: 'a.b', obj: '$var.job.data' }, { return_data: '$var.job.found' }),
      workflow_end: { name: 'workflow_end', groups: [] },
    },
    transitions: {
      workflow_start: { a1: { state: 'success', type: 'standard' } },
      a1: { b2: { state: 'success', type: 'standard' } },
      b2: { c3: { state: 'success', type: 'standard' } },
      c3: { workflow_end: { state: 'success', type: 'standard' } },
      workflow_end: {},
    },
  };
}
