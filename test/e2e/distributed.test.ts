import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, startNatsServer } from '@nap/testing';
import type { NatsServer } from '@nap/testing';
import { distributedEnv, gatewayUrl, startNapProcess } from '../support/processes';
import type { NapProcess } from '../support/processes';

/**
 * Distributed mode: a real nats-server, the admin service and the gateway as separate processes.
 * The other services are not started, so their operations answer 503 (no responders).
 */
let nats: NatsServer;
let admin: NapProcess | undefined;
let gateway: NapProcess;
let gateway2: NapProcess;
let dataDir: string;
let url: string;
let url2: string;
const password = 'distributed-admin-password';

const env = () => distributedEnv(nats.url, dataDir, password);

const startAdmin = () => startNapProcess('services/admin/dist/main.js', env(), /Service admin is serving/);

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-e2e-'));
  nats = await startNatsServer({ jetstream: true });
  admin = await startAdmin();
  [gateway, gateway2] = await Promise.all([
    startNapProcess('gateway/dist/main.js', env(), /Gateway listening/),
    startNapProcess('gateway/dist/main.js', env(), /Gateway listening/),
  ]);
  url = gatewayUrl(gateway);
  url2 = gatewayUrl(gateway2);
}, 60_000);

afterAll(async () => {
  await gateway2?.stop();
  await gateway?.stop();
  await admin?.stop();
  await nats?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function login(): Promise<Response> {
  return fetch(`${url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: { username: 'admin', password } }),
  });
}

/** The first status other than 200 that `request` answers, within a second. */
function firstAnswerOtherThan200(replica: string, request: () => Promise<Response>): Promise<number> {
  return eventually(
    `${replica} answering otherwise than 200`,
    async () => {
      const { status } = await request();
      return status !== 200 && status;
    },
    { timeoutMs: 1_000, intervalMs: 25 },
  );
}

it('logs in and manages groups through the gateway and the admin process over NATS', async () => {
  const res = await login();
  expect(res.status).toBe(200);
  const token = await res.text();
  const created = await fetch(`${url}/user-management/groups`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ group: { name: 'distributed' } }),
  });
  expect(created.status).toBe(200);
  const id = ((await created.json()) as { data: { _id: string } }).data._id;
  const got = await fetch(`${url}/user-management/groups/${id}`, { headers: { authorization: `Bearer ${token}` } });
  expect(await got.json()).toMatchObject({ name: 'distributed' });
});

it('revokes on every gateway replica within a second', async () => {
  const admin = await (await login()).text();
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${admin}` };
  const post = async (base: string, route: string, body: unknown, method = 'POST') =>
    fetch(`${base}${route}`, { method, headers, body: JSON.stringify(body) });
  const group = ((await (await post(url, '/user-management/groups', { group: { name: 'replicas' } })).json()) as { data: { _id: string } })
    .data;
  await post(url, `/user-management/groups/${group._id}/roles`, { roles: ['admin'] }, 'PUT');
  await post(url, '/user-management/accounts', { account: { username: 'replica-user', password: 'password-123', groups: [group._id] } });
  const token = await (
    await fetch(`${url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'replica-user', password: 'password-123' }),
    })
  ).text();
  const asUser = (base: string) => fetch(`${base}/user-management/roles`, { headers: { authorization: `Bearer ${token}` } });
  // both replicas have resolved and cached the session
  expect((await asUser(url)).status).toBe(200);
  expect((await asUser(url2)).status).toBe(200);

  // the role goes away through replica 1; replica 2 refuses within a second
  await post(url, `/user-management/groups/${group._id}/roles`, { roles: ['apiread'] }, 'PUT');
  const afterRoleChange = await firstAnswerOtherThan200('replica 2', () => asUser(url2));
  expect(afterRoleChange).toBe(403);

  // logout through replica 2 ends the session on replica 1
  expect((await fetch(`${url2}/logout`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  const afterLogout = await firstAnswerOtherThan200('replica 1', () => asUser(url));
  expect(afterLogout).toBe(401);
});

it('answers 503 for a service that is not running', async () => {
  const token = await (await login()).text();
  const res = await fetch(`${url}/automation-studio/templates`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(503);
  expect(await res.json()).toMatchObject({ status: 'error', code: 'SERVICE_UNAVAILABLE' });
});

it('answers 503 while the admin process is down and recovers when it is back', async () => {
  await admin?.stop();
  admin = undefined;
  const started = Date.now();
  const down = await login();
  expect(down.status).toBe(503);
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(await down.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });

  admin = await startAdmin();
  const back = await login();
  expect(back.status).toBe(200);
  // the data of the first run is still there
  const token = await back.text();
  const groups = await fetch(`${url}/user-management/groups`, { headers: { authorization: `Bearer ${token}` } });
  expect(JSON.stringify(await groups.json())).toContain('distributed');
});
