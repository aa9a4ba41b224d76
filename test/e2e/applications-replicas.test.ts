import { Writable } from 'node:stream';
import { createNatsBus } from '@nap/bus';
import { AppError, desiredStateSubject } from '@nap/contracts';
import type { Bus } from '@nap/bus';
import { createMopService } from '@nap/mop';
import { createClient, loadConfig } from '@nap/runtime';
import type { RunningService } from '@nap/runtime';
import { createLogger, createMetrics } from '@nap/telemetry';
import type { Logger } from '@nap/telemetry';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually, startNatsServer } from '@nap/testing';
import type { NatsServer } from '@nap/testing';

/**
 * Applications with several replicas over a real nats-server: the platform in this process, and
 * more replicas of the MOP service on their own NATS connections (as separate processes would be).
 * A log level reaches every replica; stop pauses every replica (leaving the queue group) and the
 * gateway answers 503; a replica that starts while its application is stopped starts paused.
 */

let nats: NatsServer;
let platform: TestPlatform;
let token: string;
const extra: { bus: Bus; logger: Logger; service: RunningService }[] = [];

const quiet = () => new Writable({ write: (_chunk, _encoding, done) => done() });

/** A bus on which the question a replica asks before it registers goes unanswered (the admin service is down at that moment). */
function deafToDesiredState(bus: Bus): Bus {
  return new Proxy(bus, {
    get(target, property, receiver) {
      if (property === 'request') {
        return async (subject: string, ...rest: Parameters<Bus['request']> extends [string, ...infer R] ? R : never) => {
          if (subject === desiredStateSubject()) throw new AppError('SERVICE_UNAVAILABLE', 'no admin service answers (simulated)');
          return target.request(subject, ...rest);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function startReplica(name: string, options: { deaf?: boolean } = {}): Promise<{ logger: Logger }> {
  const connected = await createNatsBus({ servers: nats.url, name });
  const bus = options.deaf === true ? deafToDesiredState(connected) : connected;
  const logger = createLogger({ name, level: 'info', destination: quiet() });
  const metrics = createMetrics({ defaultLabels: { component: name } });
  const store = platform.stores.get('mop');
  if (store === undefined) throw new Error('the platform runs no mop store');
  const module = createMopService({
    bus,
    store,
    logger,
    metrics,
    client: createClient(bus, metrics),
    config: loadConfig({ NAP_DATA_DIR: platform.dataDir, NAP_SECRET_KEY: 'test-secret-key-of-32-characters' }),
  });
  const service = await module.start();
  extra.push({ bus, logger, service });
  return { logger };
}

type MopRecord = { metadata: { state: string; isActive: boolean; activeSync: boolean }; instances: { state: string }[] };

async function mop(): Promise<MopRecord> {
  const res = await platform.http('GET', '/applications/MOP', { token });
  expect(res.status).toBe(200);
  return res.body as MopRecord;
}

/** Reads MOP's application record until `check` holds (bounded); a timeout shows the record it last had. */
function until(check: (r: MopRecord) => boolean, what: string): Promise<MopRecord> {
  return eventually(
    `MOP becoming ${what}`,
    async () => {
      const record = await mop();
      if (check(record)) return record;
      throw new Error(JSON.stringify(record));
    },
    { timeoutMs: 10_000, intervalMs: 100 },
  );
}

beforeAll(async () => {
  nats = await startNatsServer({ jetstream: true });
  const bus = await createNatsBus({ servers: nats.url, name: 'nap-platform' });
  platform = await startTestPlatform({ bus, admin: { reconcileIntervalMs: 200 } });
  token = await platform.login();
}, 60_000);

afterAll(async () => {
  for (const r of extra) {
    await r.service.stop().catch(() => undefined);
    await r.bus.close().catch(() => undefined);
  }
  await platform?.stop();
  await nats?.stop();
});

it('carries a log level to every replica, stops and starts them all, and stops a replica that starts while stopped', async () => {
  const second = await startReplica('mop-replica-2');
  const two = await until((r) => r.instances.length === 2, 'two replicas');
  expect(two.metadata).toMatchObject({ state: 'RUNNING', activeSync: true });

  const level = await platform.http('PUT', '/applications/MOP/loglevel', { token, body: { properties: { level: 'warn' } } });
  expect(level.status).toBe(200);
  expect(second.logger.level).toBe('warn');
  // both replicas answer their control channel with the new level
  expect((await mop()).metadata.activeSync).toBe(true);

  expect((await platform.http('GET', '/mop/listAnalyticTemplates', { token })).status).toBe(200);
  const stopped = await platform.http('PUT', '/applications/MOP/stop', { token });
  expect(stopped.body).toEqual({ name: 'MOP', state: 'STOPPED', service: 'mop', applications: ['MOP'], replicas: 2 });
  expect((await mop()).instances.map((i) => i.state)).toEqual(['paused', 'paused']);
  const refused = await platform.http('GET', '/mop/listAnalyticTemplates', { token });
  expect(refused.status).toBe(503);
  expect(refused.body).toMatchObject({
    code: 'SERVICE_UNAVAILABLE',
    message: expect.stringContaining('stopped by an operator (application MOP)'),
  });

  // a replica that starts now asks the admin service first: it registers paused, at the level set before
  const third = await startReplica('mop-replica-3');
  expect(third.logger.level).toBe('warn');
  const three = await mop();
  expect(three.instances.map((i) => i.state)).toEqual(['paused', 'paused', 'paused']);
  expect(three.metadata).toMatchObject({ state: 'STOPPED', isActive: false, activeSync: true });
  expect((await platform.http('GET', '/mop/listAnalyticTemplates', { token })).status).toBe(503);

  // one that could not ask (no admin service answered at its start) is stopped by reconciliation
  const fourth = await startReplica('mop-replica-4', { deaf: true });
  const four = await until((r) => r.instances.length === 4 && r.instances.every((i) => i.state === 'paused'), 'four paused replicas');
  expect(four.metadata).toMatchObject({ state: 'STOPPED', activeSync: true });
  expect(fourth.logger.level).toBe('warn');

  const started = await platform.http('PUT', '/applications/MOP/start', { token });
  expect(started.body).toMatchObject({ state: 'RUNNING', replicas: 4 });
  expect((await mop()).instances.map((i) => i.state)).toEqual(['running', 'running', 'running', 'running']);
  expect((await platform.http('GET', '/mop/listAnalyticTemplates', { token })).status).toBe(200);
}, 60_000);
