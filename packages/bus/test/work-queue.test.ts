import type { QueuedEntry } from '../src/types';
import { createMemoryBus } from '../src/memory-bus';
import { createNatsBus } from '../src/nats-bus';
import type { NatsBus } from '../src/nats-bus';
// the helper modules directly: `@nap/testing`'s index loads the platform harness, which depends on this package
import { eventually } from '../../testing/src/eventually';
import { startNatsServer } from '../../testing/src/nats-server';
import type { NatsServer } from '../../testing/src/nats-server';
import { bytes, expectAppError, text } from './helpers';

/** A gate the handler waits on, to hold a batch while more appends arrive. */
function gate(): { wait: Promise<void>; open(): void } {
  let open = () => undefined as void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('work queue of the in-process bus', () => {
  it('refuses an append that nothing consumes: there is nothing durable to keep it in', async () => {
    const bus = createMemoryBus();
    await expectAppError(bus.appendToQueue('audit', 'e1', bytes('x')), 'SERVICE_UNAVAILABLE');
    await bus.close();
  });

  it('resolves an append once the handler took it, and batches what arrives meanwhile', async () => {
    const bus = createMemoryBus();
    const batches: string[][] = [];
    const first = gate();
    await bus.consumeQueue(
      'audit',
      async (batch: QueuedEntry[]) => {
        batches.push(batch.map((e) => text(e.data)));
        if (batches.length === 1) await first.wait;
      },
      { durableName: 'test' },
    );
    let done = false;
    const a = bus.appendToQueue('audit', 'a', bytes('a')).then(() => (done = true));
    await eventually('the first batch in the handler', () => batches.length === 1);
    const rest = ['b', 'c', 'd'].map((id) => bus.appendToQueue('audit', id, bytes(id)));
    expect(done).toBe(false);
    first.open();
    await Promise.all([a, ...rest]);
    expect(batches).toEqual([['a'], ['b', 'c', 'd']]);
    await bus.close();
  });

  it('fails the appends of a batch whose handler threw', async () => {
    const bus = createMemoryBus();
    await bus.consumeQueue(
      'audit',
      () => {
        throw new Error('store down');
      },
      { durableName: 'test' },
    );
    await expectAppError(bus.appendToQueue('audit', 'a', bytes('a')), 'SERVICE_UNAVAILABLE');
    await bus.close();
  });
});

describe('work queue over JetStream', () => {
  let server: NatsServer;
  let bus: NatsBus;

  beforeAll(async () => {
    server = await startNatsServer({ jetstream: true });
    bus = await createNatsBus({ servers: server.url, name: 'queue-test' });
  }, 30_000);

  afterAll(async () => {
    await bus?.close();
    await server?.stop();
  });

  it('keeps what was appended until a consumer comes, once per id, and delivers a failed batch again', async () => {
    await bus.appendToQueue('audit', 'one', bytes('1'));
    await bus.appendToQueue('audit', 'two', bytes('2'));
    await bus.appendToQueue('audit', 'one', bytes('1 again'));
    const received: string[] = [];
    let failures = 0;
    const subscription = await bus.consumeQueue(
      'audit',
      async (batch) => {
        if (failures === 0) {
          failures += 1;
          throw new Error('not now');
        }
        received.push(...batch.map((e) => `${e.id}=${text(e.data)}`));
      },
      { durableName: 'queue-test' },
    );
    await eventually('both entries, after one failed batch', () => received.length === 2, { timeoutMs: 10_000 });
    expect(received.sort()).toEqual(['one=1', 'two=2']);
    await subscription.unsubscribe();

    // acknowledged entries left the queue: a new subscription of the same consumer gets only new ones
    const later: string[] = [];
    const again = await bus.consumeQueue('audit', async (batch) => void later.push(...batch.map((e) => e.id)), {
      durableName: 'queue-test',
    });
    await bus.appendToQueue('audit', 'three', bytes('3'));
    await eventually('the new entry', () => later.length === 1);
    expect(later).toEqual(['three']);
    await again.unsubscribe();
  });
});
