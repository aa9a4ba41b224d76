import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNatsServer } from '@nap/testing';
import type { NatsServer } from '@nap/testing';
import { distributedEnv, gatewayUrl, startNapProcess } from '../support/processes';
import type { NapProcess } from '../support/processes';

/**
 * Login protection in distributed mode: a real nats-server, the admin service and two gateways as
 * processes. Failures counted through either gateway add up (the counts live in the admin store),
 * Basic and /oauth/token included; every failure is logged without the password.
 */
let nats: NatsServer;
let admin: NapProcess;
let gateways: NapProcess[];
let dataDir: string;
let urls: string[];
let adminToken: string;
const password = 'distributed-admin-password';

function env(): Record<string, string> {
  return distributedEnv(nats.url, dataDir, password, { NAP_TRUST_PROXY: 'true' });
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-e2e-throttle-'));
  nats = await startNatsServer({ jetstream: true });
  admin = await startNapProcess('services/admin/dist/main.js', env(), /Service admin is serving/);
  gateways = await Promise.all([
    startNapProcess('gateway/dist/main.js', env(), /Gateway listening/),
    startNapProcess('gateway/dist/main.js', env(), /Gateway listening/),
  ]);
  urls = gateways.map(gatewayUrl);
  adminToken = await (await login(0, 'admin', password, '198.51.100.1')).text();
  const created = await fetch(`${urls[0]}/user-management/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({ account: { username: 'dist-user', password: 'dist-user-password' } }),
  });
  expect(created.status).toBe(200);
}, 60_000);

afterAll(async () => {
  for (const gateway of gateways ?? []) await gateway.stop();
  await admin?.stop();
  await nats?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function login(gateway: number, username: string, secret: string, address: string): Promise<Response> {
  return fetch(`${urls[gateway]}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({ user: { username, password: secret } }),
  });
}

function oauth(gateway: number, username: string, secret: string, address: string): Promise<Response> {
  return fetch(`${urls[gateway]}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: username, client_secret: secret }).toString(),
  });
}

function basic(gateway: number, username: string, secret: string, address: string): Promise<Response> {
  return fetch(`${urls[gateway]}/whoami`, {
    headers: { authorization: `Basic ${Buffer.from(`${username}:${secret}`).toString('base64')}`, 'x-forwarded-for': address },
  });
}

async function expectThrottled(res: Response, scope: 'account' | 'address'): Promise<void> {
  expect(res.status).toBe(429);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(await res.json()).toMatchObject({ code: 'LOGIN_THROTTLED', details: { scope } });
}

it('adds up the failures of one username through both gateways, Basic and /oauth/token included', async () => {
  const wrong = ['wrong-secret-1', 'wrong-secret-2', 'wrong-secret-3', 'wrong-secret-4', 'wrong-secret-5'];
  expect((await login(0, 'dist-user', wrong[0] as string, '203.0.113.1')).status).toBe(401);
  expect((await login(1, 'dist-user', wrong[1] as string, '203.0.113.2')).status).toBe(401);
  expect((await oauth(0, 'dist-user', wrong[2] as string, '203.0.113.3')).status).toBe(401);
  expect((await basic(1, 'dist-user', wrong[3] as string, '203.0.113.4')).status).toBe(401);
  expect((await basic(0, 'dist-user', wrong[4] as string, '203.0.113.5')).status).toBe(401);

  await expectThrottled(await login(0, 'dist-user', 'dist-user-password', '203.0.113.6'), 'account');
  await expectThrottled(await login(1, 'dist-user', 'dist-user-password', '203.0.113.6'), 'account');
  await expectThrottled(await basic(1, 'dist-user', 'dist-user-password', '203.0.113.6'), 'account');
  await expectThrottled(await oauth(0, 'dist-user', 'dist-user-password', '203.0.113.6'), 'account');

  // every failure logged, with the username and the address, never a password
  const logs = [admin, ...gateways].map((p) => p.output()).join('\n');
  const failures = logs.split('\n').filter((line) => line.includes('Login failed') && line.includes('"username":"dist-user"'));
  expect(failures).toHaveLength(5);
  expect(failures.map((line) => (JSON.parse(line) as { via: string }).via).sort()).toEqual(['basic', 'basic', 'login', 'login', 'oauth']);
  expect(failures.join('\n')).toContain('"address":"203.0.113.4"');
  for (const secret of [...wrong, 'dist-user-password']) expect(logs).not.toContain(secret);
  expect(logs).toContain('Login throttled');

  // an admin unlocks through one gateway; the other lets the account in at once
  const unlock = await fetch(`${urls[1]}/user-management/accounts`, { headers: { authorization: `Bearer ${adminToken}` } });
  const id = ((await unlock.json()) as { results: { _id: string; username: string }[] }).results.find(
    (a) => a.username === 'dist-user',
  )?._id;
  const unlocked = await fetch(`${urls[1]}/user-management/accounts/${id}/unlock`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}` },
  });
  expect(unlocked.status).toBe(200);
  expect((await login(0, 'dist-user', 'dist-user-password', '203.0.113.6')).status).toBe(200);
});

it('throttles an address whose failures went through both gateways', async () => {
  const sprayer = '203.0.113.90';
  for (let i = 0; i < 50; i += 1) expect((await login(i % 2, `spray-${i}`, 'Winter2025!', sprayer)).status).toBe(401);
  await expectThrottled(await login(0, 'admin', password, sprayer), 'address');
  await expectThrottled(await basic(1, 'dist-user', 'dist-user-password', sprayer), 'address');
  expect((await login(1, 'admin', password, '203.0.113.91')).status).toBe(200);
}, 60_000);
