import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AuditRecord } from '@nap/contracts';
import { auditRecordHash, eventPattern } from '@nap/contracts';
import { createNatsBus } from '@nap/bus';
import type { NatsBus, Subscription } from '@nap/bus';
import { eventually, startNatsServer } from '@nap/testing';
import type { NatsServer } from '@nap/testing';
import { distributedEnv, gatewayUrl, startNapProcess } from '../support/processes';
import type { NapProcess } from '../support/processes';

/**
 * The audit trail distributed: a real nats-server, the admin service and two gateways as separate
 * processes. Both gateways' records land in one chain; a gateway killed (-9) right after it answered
 * a change, and the admin service killed right after, lose none of them (the gateway had them
 * acknowledged by JetStream before answering); each record is also an `auditRecorded` event.
 */
let nats: NatsServer;
let admin: NapProcess | undefined;
let gateways: NapProcess[] = [];
let dataDir: string;
let bus: NatsBus;
let events: Subscription;
const seen: AuditRecord[] = [];
const password = 'audit-distributed-admin-password';

const env = () => distributedEnv(nats.url, dataDir, password);

const startAdmin = () => startNapProcess('services/admin/dist/main.js', env(), /Service admin is serving/);
const startGateway = () => startNapProcess('gateway/dist/main.js', env(), /Gateway listening/);

function urlOf(gateway: NapProcess | undefined): string {
  if (gateway === undefined) throw new Error('The gateway is not running');
  return gatewayUrl(gateway);
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-e2e-audit-'));
  nats = await startNatsServer({ jetstream: true });
  admin = await startAdmin();
  gateways = await Promise.all([startGateway(), startGateway()]);
  bus = await createNatsBus({ servers: nats.url, name: 'audit-siem' });
  events = await bus.consumeEvents(
    eventPattern('admin', 'audit'),
    (event) => {
      seen.push(JSON.parse(Buffer.from(event.data).toString('utf8')) as AuditRecord);
    },
    { deliver: 'all' },
  );
}, 90_000);

afterAll(async () => {
  await events?.unsubscribe();
  await bus?.close();
  for (const gateway of gateways) await gateway.stop();
  await admin?.stop();
  await nats?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function login(url: string): Promise<string> {
  const res = await fetch(`${url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: { username: 'admin', password } }),
  });
  if (res.status !== 200) throw new Error(`login: ${res.status}`);
  return res.text();
}

async function createGroup(url: string, token: string, name: string): Promise<Response> {
  return fetch(`${url}/user-management/groups`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ group: { name } }),
  });
}

async function auditOf(url: string, token: string, query = 'limit=500'): Promise<AuditRecord[]> {
  const res = await fetch(`${url}/audit?${query}`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`GET /audit: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { results: AuditRecord[] }).results;
}

it('keeps the records of both gateways in one chain, and publishes each as an event', async () => {
  const [first, second] = gateways.map(urlOf) as [string, string];
  const [token1, token2] = await Promise.all([login(first), login(second)]);
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) => createGroup(i % 2 === 0 ? first : second, i % 2 === 0 ? token1 : token2, `both-${i}`)),
  );
  expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
  const requestIds = new Set(answers.map((a) => a.headers.get('x-request-id')));

  // the answers were given once JetStream held the records; the admin service appends them soon after
  const records = await eventually('both gateways recorded in the chain', async () => {
    const all = await auditOf(first, token1);
    return all.filter((r) => requestIds.has(r.requestId ?? '')).length === 20 && all;
  });
  const ordered = [...records].sort((a, b) => a.seq - b.seq);
  expect(ordered.map((r) => r.seq)).toEqual(ordered.map((_, i) => i + 1));
  for (const [i, r] of ordered.entries()) {
    expect(r.hash).toBe(auditRecordHash(r));
    if (i > 0) expect(r.prevHash).toBe(ordered[i - 1]?.hash);
  }
  const verify = await fetch(`${second}/audit/verify`, { headers: { authorization: `Bearer ${token2}` } });
  expect(await verify.json()).toMatchObject({ valid: true, firstBroken: null });
  // one record by its seq, through the other gateway, as the list answers it
  const last = ordered[ordered.length - 1];
  const one = await fetch(`${second}/audit/${last?.seq}`, { headers: { authorization: `Bearer ${token2}` } });
  expect(await one.json()).toEqual(last);

  // a SIEM following the events sees every record, as GET /audit answers it
  await eventually('the auditRecorded events', () => seen.length >= ordered.length);
  const bySeq = new Map(seen.map((r) => [r.seq, r]));
  for (const r of ordered) expect(bySeq.get(r.seq)).toEqual(r);
});

it('loses no record of a change answered just before its gateway and the admin service are killed', async () => {
  const url = urlOf(gateways[1]);
  const token = await login(url);
  const answered = await createGroup(url, token, 'before-the-kill');
  expect(answered.status).toBe(200);
  const requestId = answered.headers.get('x-request-id') ?? '';
  // kill -9 at once, both the gateway that answered and the service that appends the chain
  await Promise.all([gateways[1]?.kill(), admin?.kill()]);
  gateways = gateways.slice(0, 1);
  admin = await startAdmin();

  const survivor = urlOf(gateways[0]);
  const token1 = await login(survivor);
  const found = await eventually(
    'the record of the answered change after the restart',
    async () => {
      const records = await auditOf(survivor, token1, `equals[requestId]=${requestId}`);
      return records.length === 1 && records[0];
      // what the killed admin service held unacknowledged comes back after the queue's ack wait (10 s)
    },
    { timeoutMs: 45_000, intervalMs: 250 },
  );
  expect(found).toMatchObject({ operation: 'admin.createGroup', target: { name: 'before-the-kill' }, outcome: { status: 200 } });
  const verify = await fetch(`${survivor}/audit/verify`, { headers: { authorization: `Bearer ${token1}` } });
  expect(await verify.json()).toMatchObject({ valid: true });
}, 90_000);
