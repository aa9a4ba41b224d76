import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { JobDocument } from '@nap/contracts';
import { startNatsServer, task, workflowDocument } from '@nap/testing';
import type { NatsServer } from '@nap/testing';
import { jobReaching } from '../support/automation';
import { distributedEnv, gatewayUrl, startNapProcess } from '../support/processes';
import type { NapProcess } from '../support/processes';

/**
 * Crash recovery of the workflow engine in distributed mode: a real nats-server and every process
 * the jobs need (admin, studio, workflow, gateway) started from their built dist/. The engine
 * process is killed with SIGKILL while a task is in flight; the next engine process resumes the
 * job, running the interrupted task again (at-least-once), and a second replica takes over the
 * jobs of one that dies. The replicas share the embedded store's data directory (LMDB serializes
 * writers across processes; MongoDB takes that part in production).
 */

const LEASE_MS = 1_500;
let nats: NatsServer;
let dataDir: string;
let admin: NapProcess;
let studio: NapProcess;
let gateway: NapProcess;
const engines: NapProcess[] = [];
let url: string;
let token: string;
const password = 'workflow-distributed-password';

function env(extra: Record<string, string> = {}): Record<string, string> {
  return distributedEnv(nats.url, dataDir, password, { NAP_WORKFLOW_LEASE_MS: String(LEASE_MS), ...extra });
}

async function startEngine(): Promise<NapProcess> {
  const engine = await startNapProcess('services/workflow/dist/main.js', env(), /Service workflow is serving/);
  engines.push(engine);
  return engine;
}

function serverIdOf(engine: NapProcess): string {
  const m = /"serverId":"([^"]+)"/.exec(engine.output());
  if (!m?.[1]) throw new Error(`The engine did not log its server id:\n${engine.output()}`);
  return m[1];
}

async function api(method: string, route: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

async function job(id: string): Promise<JobDocument> {
  const res = await api('GET', `/operations-manager/jobs/${id}`);
  if (res.status !== 200) throw new Error(`GET job ${id}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { data: JobDocument }).data;
}

/**
 * Reads the job until `check` holds (bounded); a read that fails is tried again: the workflow service
 * may be down on purpose. Every 200 ms: the delay task runs 2 s, and a dozen jobs are watched at once
 * through the gateway, the bus and the workflow process.
 */
function until(id: string, check: (j: JobDocument) => boolean, what: string, timeoutMs = 30_000): Promise<JobDocument> {
  return jobReaching(`Job ${id} reaching ${what}`, () => job(id), check, { timeoutMs, intervalMs: 200 });
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-wf-e2e-'));
  nats = await startNatsServer({ jetstream: true });
  // side by side, each kept as soon as it serves (afterAll stops whichever started)
  await Promise.all([
    startNapProcess('services/admin/dist/main.js', env(), /Service admin is serving/).then((p) => (admin = p)),
    startNapProcess('services/studio/dist/main.js', env(), /Service studio is serving/).then((p) => (studio = p)),
  ]);
  gateway = await startNapProcess('gateway/dist/main.js', env(), /Gateway listening/);
  url = gatewayUrl(gateway);
  const login = await fetch(`${url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: { username: 'admin', password } }),
  });
  token = await login.text();
  const created = await api('POST', '/automation-studio/automations', {
    automation: workflowDocument(
      'crash-me',
      {
        a1: task('newVariable', { name: 'before', value: 'yes' }, { value: null }, { type: 'operation' }),
        d2: task('delay', { time: 2 }, { time_in_milliseconds: null }, { type: 'operation' }),
        p3: task('push', { job_variable: 'after', item_to_push: 'done' }, { job_variable_value: null }, { type: 'operation' }),
      },
      [
        ['workflow_start', 'a1'],
        ['a1', 'd2'],
        ['d2', 'p3'],
        ['p3', 'workflow_end'],
      ],
    ),
  });
  expect(created.status).toBe(200);
}, 90_000);

afterAll(async () => {
  for (const engine of engines) if (engine.child.exitCode === null && engine.child.signalCode === null) await engine.stop();
  await gateway?.stop();
  await studio?.stop();
  await admin?.stop();
  await nats?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

it('resumes a job after the engine is killed with SIGKILL mid-task', async () => {
  const first = await startEngine();
  const started = await api('POST', '/workflow_engine/startJobWithOptions/crash-me', { options: { variables: {} } });
  expect(started.status).toBe(200);
  const id = (started.body as JobDocument)._id;
  const inFlight = await until(id, (j) => j.tasks.d2?.status === 'running', 'd2 in flight');
  expect(inFlight.tasks.d2?.metrics?.server_id).toBe(serverIdOf(first));
  await first.kill();

  const second = await startEngine();
  const done = await until(id, (j) => j.status === 'complete', 'complete');
  // the interrupted delay ran again on the new engine, and the tasks after it ran once
  expect(done.tasks.d2?.metrics?.server_id).toBe(serverIdOf(second));
  expect(done.metrics?.server_id).toBe(serverIdOf(second));
  expect(done.variables).toMatchObject({ before: 'yes', after: ['done'] });
}, 60_000);

it('a second replica takes over the jobs of one that dies', async () => {
  const [survivor] = [await startEngine()];
  const victim = engines[1] as NapProcess;
  const ids: string[] = [];
  const victimId = serverIdOf(victim);
  let victimOwns = 0;
  // the queue group spreads starts over both replicas; go on until the victim owns some (bounded)
  for (let i = 0; i < 40 && (ids.length < 6 || victimOwns === 0); i += 1) {
    const res = await api('POST', '/workflow_engine/startJobWithOptions/crash-me', { options: { variables: { i } } });
    expect(res.status).toBe(200);
    const started = res.body as JobDocument;
    ids.push(started._id);
    if (started.metrics?.server_id === victimId) victimOwns += 1;
  }
  expect(victimOwns).toBeGreaterThan(0);
  await Promise.all(ids.map((id) => until(id, (j) => j.tasks.d2?.status === 'running' || j.status === 'complete', 'd2 in flight')));
  await victim.kill();
  const done = await Promise.all(ids.map((id) => until(id, (j) => j.status === 'complete', 'complete')));
  expect(done.every((j) => j.metrics?.server_id === serverIdOf(survivor as NapProcess))).toBe(true);
  expect(done.every((j) => JSON.stringify((j.variables as { after: string[] }).after) === '["done"]')).toBe(true);
}, 60_000);
