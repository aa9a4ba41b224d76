import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { spawnTracked, stopChild, task, waitForOutput, workflowDocument } from '@nap/testing';
import { REPO_ROOT } from '../support/processes';

/**
 * A short version of the memory soak (test/bench/soak.mjs runs 100,000 jobs): the built standalone
 * platform as a child process with V8's old space capped and the memory probe loaded, a warm-up of
 * short jobs, then more, and the heap retained per finished job measured after a forced GC. Its
 * in-process event stream, which keeps events by design, is bounded small here so that the warm-up
 * fills it: what is left to grow is what each job leaves behind. Each measure waits for the audit
 * trail to chain the starts' records first (`GET /audit` does), so that records still queued do not
 * count as kept. The bound is generous (the leak this guards against kept 4.7 KiB per job; the
 * platform keeps about 0.05–0.15 KiB now): a regression fails, noise does not. With 1,500 jobs a
 * few hundred KiB that settle at their own pace weighed up to 1 KiB a job on a loaded machine (a
 * full suite failed at 1.003); 3,000 jobs spread them thinner.
 */

const MAIN = path.join(REPO_ROOT, 'deploy/standalone/dist/main.js');
const PROBE = path.join(REPO_ROOT, 'test/support/memory-probe.cjs');
const PASSWORD = 'soak-admin-password';
const WARMUP = 350;
const JOBS = 3_000;
const BOUND_KIB_PER_JOB = 1;

let child: ChildProcess;
let dataDir: string;
let url: string;
let token: string;
const replies = new Map<number, (msg: { memory: NodeJS.MemoryUsage }) => void>();
let nextId = 1;

async function call(method: string, route: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}${route}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 300)}`);
  return (res.headers.get('content-type') ?? '').includes('json') ? (JSON.parse(text) as Record<string, unknown>) : { text };
}

/** heap used + external of the platform after a full GC, bytes. */
function retained(): Promise<number> {
  const id = nextId++;
  return new Promise((resolve) => {
    replies.set(id, (msg) => resolve(msg.memory.heapUsed + msg.memory.external));
    child.send({ probe: 'nap', id, op: 'memory' });
  });
}

async function runJobs(count: number, offset: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = offset + next++;
      await call('POST', '/workflow_engine/startJobWithOptions/soak', { options: { variables: { seed: `s${i}` } } });
    }
  };
  await Promise.all(Array.from({ length: 50 }, worker));
  for (;;) {
    const page = await call('GET', '/operations-manager/jobs?in[status]=running,paused&limit=1&include=_id');
    if (page.total === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first (npm test does)`);
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-soak-'));
  child = spawnTracked(process.execPath, ['--max-old-space-size=256', '--expose-gc', '--require', PROBE, MAIN], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: {
      ...process.env,
      NAP_DATA_DIR: dataDir,
      NAP_PORT: '0',
      NAP_LOG_LEVEL: 'info',
      NAP_ADMIN_PASSWORD: PASSWORD,
      NAP_SECRET_KEY: 'soak-secret-key-of-32-characters',
      NAP_MEMORY_EVENTS_MAX_BYTES: String(1024 * 1024),
    },
  });
  child.on('message', (msg: { probe?: string; id: number; memory: NodeJS.MemoryUsage }) => {
    if (msg.probe === 'nap') replies.get(msg.id)?.(msg);
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  await waitForOutput(child, /NAP is listening on (http:\/\/[0-9.:]+)/, {
    what: 'the standalone platform',
    timeoutMs: 30_000,
    output: () => output,
  });
  url = /NAP is listening on (http:\/\/[0-9.:]+)/.exec(output)?.[1] ?? '';
  token = (await call('POST', '/login', { user: { username: 'admin', password: PASSWORD } })).text as string;
  const soak = workflowDocument(
    'soak',
    {
      a1: task('newVariable', { name: 'greeting', value: '$var.job.seed' }, { value: null }, { type: 'operation' }),
      b2: task(
        'stringConcat',
        { str: '$var.job.greeting', stringN: '-soak' },
        { combinedStrings: '$var.job.joined' },
        { type: 'operation' },
      ),
      c3: task('query', { pass_on_null: true, query: 'a', obj: { a: 1 } }, { return_data: '$var.job.found' }, { type: 'operation' }),
    },
    [
      ['workflow_start', 'a1'],
      ['a1', 'b2'],
      ['b2', 'c3'],
      ['c3', 'workflow_end'],
    ],
  );
  await call('POST', '/automation-studio/automations', { automation: soak });
}, 60_000);

afterAll(async () => {
  if (child) await stopChild(child);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

it(`keeps less than ${BOUND_KIB_PER_JOB} KiB of heap per finished job`, async () => {
  await runJobs(WARMUP, 0);
  // the audit trail has chained the records of the starts (a read waits for it)
  await call('GET', '/audit?limit=1');
  const before = await retained();
  await runJobs(JOBS, WARMUP);
  await call('GET', '/audit?limit=1');
  const after = await retained();
  const perJobKiB = (after - before) / JOBS / 1024;
  expect(perJobKiB).toBeLessThan(BOUND_KIB_PER_JOB);
}, 90_000);
