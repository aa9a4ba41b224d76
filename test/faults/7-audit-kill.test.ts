/**
 * Scenario 7: the audit trail under kill -9. Concurrent writes go through the platform; after a
 * third of them are answered, the process that answered is killed (-9): in distributed mode a
 * gateway and the admin service that appends the chain, standalone the whole process. Every write
 * answered 2xx must have its audit record after the restart (0 lost), exactly once, and the chain
 * must verify.
 */
import { randomUUID } from 'node:crypto';
import type { AuditRecord } from '@nap/contracts';
import { eventually } from '@nap/testing';
import { figure } from './support/figures';
import type { Client } from './support/platform';
import { Distributed, Standalone, dataDirectory, progress } from './support/platform';

const SCENARIO = '7 audit records of answered writes across kill -9';
const WRITES = 150;

interface Outcome {
  requestId: string;
  status: number;
  /** The error code of a failure. */
  code?: string;
}

/** One group write with a request id of our own, as a client that follows its requests does; status 0 when no answer came. */
async function write(client: Client, name: string): Promise<Outcome> {
  const requestId = randomUUID();
  try {
    const res = await fetch(`${client.url}/user-management/groups`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${client.token}`, 'x-request-id': requestId },
      body: JSON.stringify({ group: { name } }),
      signal: AbortSignal.timeout(60_000),
    });
    const body = await res.text();
    if (res.status < 400) return { requestId, status: res.status };
    let code: string | undefined;
    try {
      code = (JSON.parse(body) as { code?: string }).code;
    } catch {
      code = undefined;
    }
    return { requestId, status: res.status, ...(code !== undefined ? { code } : {}) };
  } catch {
    return { requestId, status: 0 };
  }
}

/** Every record of the trail, through the export. */
async function exported(client: Client): Promise<AuditRecord[]> {
  const res = await fetch(`${client.url}/audit/export`, { headers: { authorization: `Bearer ${client.token}` } });
  if (res.status !== 200) throw new Error(`GET /audit/export: ${res.status} ${await res.text()}`);
  const text = (await res.text()).trim();
  return text === '' ? [] : text.split('\n').map((line) => JSON.parse(line) as AuditRecord);
}

/** Writes spread over `clients`; `kill` once `killAfter` of them were answered 2xx. */
async function writeAndKill(clients: Client[], tag: string, kill: () => Promise<void>): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let answered = 0;
  let killed: Promise<void> | undefined;
  await Promise.all(
    Array.from({ length: WRITES }, async (_, i) => {
      const outcome = await write(clients[i % clients.length] as Client, `${tag}-${i}`);
      outcomes.push(outcome);
      if (outcome.status >= 200 && outcome.status < 300) answered += 1;
      if (answered === Math.floor(WRITES / 3) && killed === undefined) killed = kill();
    }),
  );
  await (killed ?? kill());
  return outcomes;
}

/** Checks that every answered write has one record, and the chain verifies; records the figures. */
async function check(mode: string, client: Client, outcomes: Outcome[], restartedAt: number): Promise<void> {
  const acknowledged = outcomes.filter((o) => o.status >= 200 && o.status < 300);
  const wanted = new Set(acknowledged.map((o) => o.requestId));
  const records = await eventually(
    'the records of every answered write',
    async () => {
      const all = await exported(client);
      const found = new Set(all.filter((r) => wanted.has(r.requestId ?? '')).map((r) => r.requestId));
      return found.size === wanted.size && all;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  ).catch(() => exported(client));
  const allRecordedAfterMs = Date.now() - restartedAt;
  const byRequest = new Map<string, number>();
  for (const r of records) byRequest.set(r.requestId ?? '', (byRequest.get(r.requestId ?? '') ?? 0) + 1);
  const lost = acknowledged.filter((o) => !byRequest.has(o.requestId));
  const twice = [...wanted].filter((id) => (byRequest.get(id) ?? 0) > 1);
  const unanswered = outcomes.filter((o) => o.status === 0);
  // the admin service owns the write: while it is down, or when it died holding the request, the write is
  // 503 SERVICE_UNAVAILABLE or 504 TIMEOUT, honest answers; a 500, or a success the trail could not keep
  // (AUDIT_UNAVAILABLE), is a failure
  const serverErrors = outcomes.filter((o) => o.status === 500 || o.code === 'AUDIT_UNAVAILABLE');
  const unavailable = outcomes.filter((o) => o.code === 'SERVICE_UNAVAILABLE' || o.code === 'TIMEOUT');
  const verify = await fetch(`${client.url}/audit/verify`, { headers: { authorization: `Bearer ${client.token}` } });
  const verification = (await verify.json()) as { valid: boolean; checked: number; firstBroken: number | null };

  figure(SCENARIO, `${mode}: writes sent`, WRITES);
  figure(SCENARIO, `${mode}: answered 2xx before the kill`, acknowledged.length);
  figure(SCENARIO, `${mode}: unanswered (cut by the kill)`, unanswered.length);
  figure(SCENARIO, `${mode}: 503/504 because the owning service was killed`, unavailable.length);
  figure(SCENARIO, `${mode}: answered 2xx without a record`, lost.length, '', '0');
  figure(SCENARIO, `${mode}: recorded twice`, twice.length, '', '0');
  figure(SCENARIO, `${mode}: restart to every record in the chain`, allRecordedAfterMs, 'ms');
  figure(
    SCENARIO,
    `${mode}: chain verified`,
    `${verification.valid ? 'valid' : `broken at ${verification.firstBroken}`} (${verification.checked} records)`,
  );
  progress(
    `scenario 7 ${mode}: ${acknowledged.length} answered, ${lost.length} without a record, chain ${verification.valid ? 'valid' : 'broken'}`,
  );

  expect(acknowledged.length).toBeGreaterThan(0);
  expect(lost.map((o) => o.requestId)).toEqual([]);
  expect(twice).toEqual([]);
  expect(verification).toMatchObject({ valid: true, firstBroken: null });
  expect(serverErrors.map((o) => `${o.status} ${o.code ?? ''}`)).toEqual([]);
}

describe('audit records across kill -9', () => {
  const distributedData = dataDirectory('audit-distributed');
  const standaloneData = dataDirectory('audit-standalone');
  let distributed: Distributed | undefined;
  let standalone: Standalone | undefined;

  afterAll(async () => {
    await distributed?.stop();
    await standalone?.stop();
    distributedData.remove();
    standaloneData.remove();
  });

  it('distributed: a gateway and the admin service killed right after answering lose no record', async () => {
    distributed = await Distributed.start(distributedData.dir, { gateways: 2 });
    const platform = distributed;
    const [first, second] = platform.gateways;
    if (first === undefined || second === undefined) throw new Error('two gateways were not started');
    second.client.token = await second.client.login();
    const admin = platform.processes.find((p) => p.name === 'admin');
    const outcomes = await writeAndKill([first.client, second.client], `audit-d-${Date.now().toString(36)}`, async () => {
      await Promise.all([second.process.kill(), admin?.kill()]);
    });
    const restartedAt = Date.now();
    await platform.startService('admin');
    await check('distributed', first.client, outcomes, restartedAt);
    expect(platform.crashed()).toEqual([]);
  });

  it('standalone: the process killed right after answering loses no record', async () => {
    standalone = await Standalone.start(standaloneData.dir);
    const platform = standalone;
    const outcomes = await writeAndKill([platform.client], `audit-s-${Date.now().toString(36)}`, () => platform.kill());
    const restartedAt = Date.now();
    await platform.launch();
    await platform.client.login();
    await check('standalone', platform.client, outcomes, restartedAt);
  });
});
