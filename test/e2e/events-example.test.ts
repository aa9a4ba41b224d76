import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createNatsBus } from '@nap/bus';
import type { Bus } from '@nap/bus';
import { eventSubject } from '@nap/contracts';
import { eventually, startNatsServer } from '@nap/testing';
import type { NatsServer } from '@nap/testing';

/**
 * The example of docs/events.md works as it says: a service following job events with a durable
 * JetStream consumer sees the events published once it runs, and after a restart it goes on where
 * it stopped: what was published while it was down, nothing twice.
 */

const EXAMPLE = path.resolve(__dirname, '../../docs/examples/follow-job-events.mjs');
let nats: NatsServer;
let bus: Bus;

beforeAll(async () => {
  nats = await startNatsServer({ jetstream: true });
  bus = await createNatsBus({ servers: nats.url, name: 'events-example-test' });
}, 30_000);

afterAll(async () => {
  await bus?.close();
  await nats?.stop();
});

function startExample(): { child: ChildProcess; lines: () => Record<string, unknown>[]; stop: () => Promise<void> } {
  const child = spawn(process.execPath, [EXAMPLE], { env: { ...process.env, NATS_URL: nats.url }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    lines: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function publish(jobId: string, event: 'jobStart' | 'jobComplete'): Promise<void> {
  await bus.publishEvent(
    eventSubject('workflow', 'job', jobId, event),
    Buffer.from(JSON.stringify({ jobId, name: 'wf', status: event === 'jobStart' ? 'running' : 'complete', timestamp: Date.now() })),
  );
}

it('follows job events with a durable consumer and resumes after a restart without losing or repeating one', async () => {
  const first = startExample();
  await eventually('the example starting', () => first.lines().some((l) => l.following !== undefined), { intervalMs: 50 });
  await publish('j1', 'jobStart');
  await publish('j1', 'jobComplete');
  await eventually('two events', () => first.lines().filter((l) => l.event).length === 2, { intervalMs: 50 });
  await first.stop();

  // published while the follower is down
  await publish('j2', 'jobStart');
  const second = startExample();
  await publish('j2', 'jobComplete');
  // a marker published last: the consumer delivers in stream order, so anything it was going to
  // deliver again (j1's events, a repeat) comes before it
  await publish('j3', 'jobStart');
  await eventually('the marker event', () => second.lines().some((l) => l.jobId === 'j3'), { intervalMs: 50 });
  await second.stop();
  expect(
    first
      .lines()
      .filter((l) => l.event)
      .map((l) => `${String(l.jobId)} ${String(l.event)}`),
  ).toEqual(['j1 jobStart', 'j1 jobComplete']);
  expect(
    second
      .lines()
      .filter((l) => l.event)
      .map((l) => `${String(l.jobId)} ${String(l.event)}`),
  ).toEqual(['j2 jobStart', 'j2 jobComplete', 'j3 jobStart']);
}, 60_000);
