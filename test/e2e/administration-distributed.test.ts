import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNatsServer } from '@nap/testing';
import type { NatsServer } from '@nap/testing';
import { distributedEnv, gatewayUrl, startNapProcess } from '../support/processes';
import type { NapProcess } from '../support/processes';

/**
 * Platform administration across processes over a real nats-server: `/indexes` reaches the mop
 * process through its replica's control channel, and `/exporter_metrics` gathers the platform
 * metrics of the admin, mop and gateway processes into one exposition.
 */
let nats: NatsServer;
const processes: NapProcess[] = [];
let dataDir: string;
let url: string;
let token: string;
const password = 'administration-admin-password';

const env = () => distributedEnv(nats.url, dataDir, password);

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-e2e-admin-'));
  nats = await startNatsServer({ jetstream: true });
  // side by side, each kept as soon as it serves (afterAll stops whichever started)
  await Promise.all([
    startNapProcess('services/admin/dist/main.js', env(), /Service admin is serving/).then((p) => processes.push(p)),
    startNapProcess('services/mop/dist/main.js', env(), /Service mop is serving/).then((p) => processes.push(p)),
  ]);
  const gateway = await startNapProcess('gateway/dist/main.js', env(), /Gateway listening/);
  processes.push(gateway);
  url = gatewayUrl(gateway);
  const res = await fetch(`${url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: { username: 'admin', password } }),
  });
  token = (await res.text()).replace(/"/g, '');
}, 60_000);

afterAll(async () => {
  for (const p of processes.reverse()) await p.stop();
  await nats?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function get(route: string, method = 'GET'): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}${route}`, { method, headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  return { status: res.status, body: (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
}

it('lists and checks the indexes of a service in another process over its control channel', async () => {
  const list = await get('/indexes');
  expect(list.status).toBe(200);
  const services = new Set((list.body as { results: { service: string }[] }).results.map((r) => r.service));
  // only the services that run answer: admin and mop here
  expect([...services].sort()).toEqual(['admin', 'mop']);
  const status = await get('/indexes/command_templates/status');
  expect(status.body).toMatchObject({ service: 'mop', collection: 'command_templates', missing: [], indexed: [{ name: 'name_1' }] });
  expect((await get('/indexes/mop.command_templates', 'POST')).body).toMatchObject({
    service: 'mop',
    unchanged: 1,
    changed: 0,
    total: 1,
    running: 0,
  });
  // a collection whose service does not run is unknown, not answered from a list kept elsewhere
  expect((await get('/indexes/jobs/status')).status).toBe(404);
  expect((await get('/indexes/workflow.jobs/status')).status).toBe(503);
});

it('gathers the platform metrics of every process into one exposition', async () => {
  const res = await get('/exporter_metrics');
  expect(res.status).toBe(200);
  const text = String(res.body);
  expect(text).toMatch(/^nap_active_sessions\{component="admin"\} [1-9]/m);
  expect(text).toMatch(/^nap_total_api_calls\{component="gateway"\} [1-9]/m);
  expect(text).toMatch(/^nap_mop_runs_total\{kind="analytic",result="pass",component="mop"\} 0/m);
});
