import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createNatsBus } from '@nap/bus';
import type { Bus } from '@nap/bus';
import { createEmbeddedStore } from '@nap/store';
import type { Store } from '@nap/store';
import { createMetrics } from '@nap/telemetry';
import { eventually, startNatsServer } from '@nap/testing';
import type { NatsServer } from '@nap/testing';
import { busCheck, checkHealth, probeHealth, startHealthServer, storeCheck } from '@nap/runtime';
import type { HealthServer } from '@nap/runtime';

/** The management listener against a real nats-server and a real embedded store. */
let nats: NatsServer;
let bus: Bus;
let store: Store;
let health: HealthServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'nap-health-'));
  nats = await startNatsServer({ jetstream: true });
  bus = await createNatsBus({ servers: nats.url, name: 'health-test' });
  store = createEmbeddedStore({ path: path.join(dir, 'db') });
  const metrics = createMetrics({ defaultLabels: { component: 'health-test' } });
  health = await startHealthServer({
    host: '127.0.0.1',
    port: 0,
    checks: [busCheck(bus), storeCheck(store)],
    registry: metrics.registry,
    checkTimeoutMs: 500,
  });
}, 30_000);

afterAll(async () => {
  await health?.close();
  await bus?.close().catch(() => undefined);
  await store?.close().catch(() => undefined);
  await nats?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const get = async (route: string) => {
  const res = await fetch(`${health.url}${route}`);
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
};

it('is live and ready while the bus is connected and the store answers, and serves its metrics', async () => {
  expect(await get('/health/live')).toMatchObject({ status: 200 });
  const ready = await get('/health/ready');
  expect(ready.status).toBe(200);
  expect(JSON.parse(ready.text)).toEqual({ status: 'ready', checks: { bus: 'ok', store: 'ok' } });
  const metrics = await get('/metrics');
  expect(metrics.status).toBe(200);
  expect(metrics.type).toContain('text/plain');
  expect(metrics.text).toContain('component="health-test"');
  expect((await get('/elsewhere')).status).toBe(404);
  expect((await fetch(`${health.url}/health/ready`, { method: 'POST' })).status).toBe(405);
});

it('the probe command reads the same variables the process does', async () => {
  const port = String(health.port);
  expect(await probeHealth({ NAP_HOST: '0.0.0.0', NAP_HEALTH_PORT: port })).toMatchObject({ ok: true });
  expect(await probeHealth({ NAP_HOST: '127.0.0.1', NAP_PORT: port }, 'live')).toMatchObject({ ok: true });
  const closed = await probeHealth({ NAP_HEALTH_PORT: '1' }, 'ready', 1_000);
  expect(closed.ok).toBe(false);
  expect(closed.message).toContain('127.0.0.1:1/health/ready did not answer');
});

it('turns not ready, naming the bus, while NATS is down, and ready again when it is back', async () => {
  await nats.kill();
  const notReady = await eventually(
    'not ready after NATS went down',
    async () => {
      const answer = await get('/health/ready');
      return answer.status !== 200 && answer;
    },
    { timeoutMs: 5_000, intervalMs: 100 },
  );
  expect(notReady.status).toBe(503);
  expect(JSON.parse(notReady.text)).toMatchObject({ status: 'not ready', checks: { bus: 'nats bus is disconnected', store: 'ok' } });
  // still alive: a restart would not bring NATS back
  expect((await get('/health/live')).status).toBe(200);
  await nats.restart();
  const ready = await eventually(
    'ready again once NATS is back',
    async () => {
      const answer = await get('/health/ready');
      return answer.status === 200 && answer;
    },
    { timeoutMs: 10_000, intervalMs: 100 },
  );
  expect(ready.status).toBe(200);
}, 30_000);

it('names a store that fails and a check that does not answer in time', async () => {
  const hanging = { name: 'slow', check: () => new Promise<void>(() => undefined) };
  const result = await checkHealth([storeCheck(store), hanging], 200);
  expect(result).toEqual({ ready: false, checks: { store: 'ok', slow: 'no answer within 200 ms' } });
  await store.close();
  const ready = await get('/health/ready');
  expect(ready.status).toBe(503);
  expect(JSON.parse(ready.text).checks.store).not.toBe('ok');
});
