import { queueSubject } from '@nap/contracts';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/nats-core';
import { QUEUE_BATCH_HEADER, decodeQueueBatch, encodeQueueBatch } from '../src/internal/queue-batch';
import { queueStreamName } from '../src/internal/nats-queue';
import type { JournaledEntry, QueueJournal, QueuedEntry } from '../src/types';
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

/** Consumes the audit queue, keeping each batch's texts; the first batch is held in the handler until `first` opens. */
async function consumeHoldingFirstBatch(
  bus: ReturnType<typeof createMemoryBus>,
): Promise<{ batches: string[][]; first: ReturnType<typeof gate> }> {
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
  return { batches, first };
}

describe('work queue of the in-process bus', () => {
  it('refuses an append that nothing consumes: there is nothing durable to keep it in', async () => {
    const bus = createMemoryBus();
    await expectAppError(bus.appendToQueue('audit', 'e1', bytes('x')), 'SERVICE_UNAVAILABLE');
    await bus.close();
  });

  it('resolves an append once the handler took it, and batches what arrives meanwhile', async () => {
    const bus = createMemoryBus();
    const { batches, first } = await consumeHoldingFirstBatch(bus);
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

/**
 * A journal that outlives the brokers given it, as the standalone platform's store outlives a crash
 * of its process (the store-backed one is tested in deploy/standalone); `failNext` refuses a keep.
 */
class TestJournal implements QueueJournal {
  readonly entries = new Map<string, JournaledEntry & { queue: string }>();
  failNext = false;
  private counter = 0;

  async keep(queue: 'audit', entry: QueuedEntry): Promise<string> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('disk full');
    }
    const key = `${queue}:${String(++this.counter).padStart(4, '0')}`;
    this.entries.set(key, { queue, key, id: entry.id, data: entry.data.slice() });
    return key;
  }

  async kept(queue: 'audit'): Promise<JournaledEntry[]> {
    return [...this.entries.values()].filter((e) => e.queue === queue).map(({ queue: _queue, ...e }) => e);
  }

  async release(keys: readonly string[]): Promise<void> {
    for (const key of keys) this.entries.delete(key);
  }

  ids(): string[] {
    return [...this.entries.values()].map((e) => e.id);
  }
}

describe('work queue of the in-process bus with a journal', () => {
  it('resolves an append once the journal kept it; the handler takes it after, and then it leaves the journal', async () => {
    const journal = new TestJournal();
    const bus = createMemoryBus({ queueJournal: journal });
    const { batches, first } = await consumeHoldingFirstBatch(bus);
    await bus.appendToQueue('audit', 'a', bytes('a'));
    await eventually('the first batch in the handler', () => batches.length === 1);
    // the handler holds its batch: appends still resolve, the journal keeps them
    await Promise.all(['b', 'c'].map((id) => bus.appendToQueue('audit', id, bytes(id))));
    expect(journal.ids()).toEqual(['a', 'b', 'c']);
    let handled = false;
    const caughtUp = bus.queueHandled('audit', 10_000).then(() => (handled = true));
    await Promise.resolve();
    expect(handled).toBe(false);
    first.open();
    await caughtUp;
    expect(batches).toEqual([['a'], ['b', 'c']]);
    await bus.close();
    expect(journal.ids()).toEqual([]);
  });

  it('tells when its oldest entry not yet handled came, the batch a handler holds included, and nothing once handled', async () => {
    const bus = createMemoryBus({ queueJournal: new TestJournal() });
    expect(await bus.queueBacklog('audit')).toEqual({});
    const { batches, first } = await consumeHoldingFirstBatch(bus);
    const before = Date.now();
    await bus.appendToQueue('audit', 'a', bytes('a'));
    await eventually('the first batch in the handler', () => batches.length === 1);
    await bus.appendToQueue('audit', 'b', bytes('b'));
    const held = await bus.queueBacklog('audit');
    // the held batch's entry, not the one waiting behind it
    expect(held.oldestAt).toBeGreaterThanOrEqual(before);
    expect(held.oldestAt).toBeLessThanOrEqual(Date.now());
    expect(held.fill).toBeUndefined();
    first.open();
    await bus.queueHandled('audit', 10_000);
    expect(await bus.queueBacklog('audit')).toEqual({});
    await bus.close();
  });

  it('delivers what a crash left in the journal to the first consumer of the next start, before anything newer', async () => {
    const journal = new TestJournal();
    const crashed = createMemoryBus({ queueJournal: journal });
    const held = gate();
    // the consumer took the entries and never finished: the process died with them
    await crashed.consumeQueue('audit', () => held.wait, { durableName: 'test' });
    await crashed.appendToQueue('audit', 'one', bytes('1'));
    await crashed.appendToQueue('audit', 'two', bytes('2'));

    const restarted = createMemoryBus({ queueJournal: journal });
    const received: string[] = [];
    await restarted.consumeQueue('audit', async (batch) => void received.push(...batch.map((e) => `${e.id}=${text(e.data)}`)), {
      durableName: 'test',
    });
    await restarted.appendToQueue('audit', 'three', bytes('3'));
    await restarted.queueHandled('audit', 10_000);
    expect(received).toEqual(['one=1', 'two=2', 'three=3']);
    await restarted.close();
    expect(journal.ids()).toEqual([]);
    held.open();
    await crashed.close();
  });

  it('hands a batch whose handler threw out again after a delay; its appends were answered and it stays in the journal meanwhile', async () => {
    const journal = new TestJournal();
    const bus = createMemoryBus({ queueJournal: journal });
    const attempts: string[][] = [];
    await bus.consumeQueue(
      'audit',
      async (batch) => {
        attempts.push(batch.map((e) => e.id));
        if (attempts.length === 1) {
          expect(journal.ids()).toEqual(['a']);
          throw new Error('store down');
        }
      },
      { durableName: 'test' },
    );
    await bus.appendToQueue('audit', 'a', bytes('a'));
    await eventually('the batch delivered again', () => attempts.length === 2, { timeoutMs: 5_000 });
    await bus.queueHandled('audit', 5_000);
    expect(attempts).toEqual([['a'], ['a']]);
    await bus.close();
    expect(journal.ids()).toEqual([]);
  });

  it('refuses an append the journal could not keep, and never delivers it', async () => {
    const journal = new TestJournal();
    const bus = createMemoryBus({ queueJournal: journal });
    const received: string[] = [];
    await bus.consumeQueue('audit', async (batch) => void received.push(...batch.map((e) => e.id)), { durableName: 'test' });
    journal.failNext = true;
    await expectAppError(bus.appendToQueue('audit', 'lost', bytes('x')), 'SERVICE_UNAVAILABLE');
    await bus.appendToQueue('audit', 'kept', bytes('y'));
    await bus.queueHandled('audit', 5_000);
    expect(received).toEqual(['kept']);
    await bus.close();
  });

  it('still refuses an append that nothing consumes', async () => {
    const journal = new TestJournal();
    const bus = createMemoryBus({ queueJournal: journal });
    await expectAppError(bus.appendToQueue('audit', 'e1', bytes('x')), 'SERVICE_UNAVAILABLE');
    expect(journal.ids()).toEqual([]);
    await bus.close();
  });
});

describe('entries framed together in one message', () => {
  it('come back as they went, ids and bytes, each with data of its own', () => {
    const entries = [
      { id: 'é-1', data: bytes('{"a":1}') },
      { id: 'schedule:job:7', data: new Uint8Array([0, 255, 10]) },
      { id: 'empty', data: new Uint8Array() },
    ];
    const body = encodeQueueBatch(entries);
    const decoded = decodeQueueBatch(body, 3);
    expect(decoded.map((e) => [e.id, [...e.data]])).toEqual(entries.map((e) => [e.id, [...e.data]]));
    body.fill(0);
    expect(text((decoded[0] as QueuedEntry).data)).toBe('{"a":1}');
  });

  it('are refused when the body is cut or holds another count than the header says', () => {
    const body = encodeQueueBatch([
      { id: 'a', data: bytes('x') },
      { id: 'b', data: bytes('y') },
    ]);
    expect(() => decodeQueueBatch(body.subarray(0, body.length - 1), 2)).toThrow(/ends inside/);
    expect(() => decodeQueueBatch(body, 3)).toThrow(/holds 2 entries where its header says 3/);
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

  it('tells when its oldest entry not acknowledged came and how full its stream is, and nothing once consumed', async () => {
    const before = Date.now() - 1_000; // JetStream's clock and ours, to the second
    await bus.appendToQueue('audit', 'waiting-1', bytes('first'));
    await bus.appendToQueue('audit', 'waiting-2', bytes('second'));
    const waiting = await bus.queueBacklog('audit');
    expect(waiting.oldestAt).toBeGreaterThanOrEqual(before);
    expect(waiting.oldestAt).toBeLessThanOrEqual(Date.now() + 1_000);
    // two small entries in a stream of 1 GiB
    expect(waiting.fill).toBeGreaterThan(0);
    expect(waiting.fill).toBeLessThan(0.001);
    const received: string[] = [];
    const subscription = await bus.consumeQueue('audit', async (batch) => void received.push(...batch.map((e) => e.id)), {
      durableName: 'queue-test',
    });
    await eventually('both entries', () => received.length === 2);
    const emptied = await eventually('the stream emptied', async () => {
      const backlog = await bus.queueBacklog('audit');
      return backlog.oldestAt === undefined ? backlog : undefined;
    });
    expect(emptied.fill).toBe(0);
    await subscription.unsubscribe();
  });

  it('sends the appends of one turn as one message, and hands each entry with its id to the consumer', async () => {
    const nc = await connect({ servers: server.url });
    try {
      const jsm = await jetstreamManager(nc);
      const stream = queueStreamName('audit');
      const before = (await jsm.streams.info(stream)).state.last_seq;
      const ids = Array.from({ length: 20 }, (_, i) => `together-${i}`);
      await Promise.all(ids.map((id) => bus.appendToQueue('audit', id, bytes(`data of ${id}`))));
      expect((await jsm.streams.info(stream)).state.last_seq - before).toBe(1);

      // a message that is no batch of the bus's is dropped, and the entries after it still come
      const garbage = natsHeaders();
      garbage.set(QUEUE_BATCH_HEADER, '2');
      await nc.request(queueSubject('audit'), bytes('not a batch'), { headers: garbage, timeout: 5_000 });
      await bus.appendToQueue('audit', 'after-the-garbage', bytes('still here'));

      const received: string[] = [];
      const subscription = await bus.consumeQueue(
        'audit',
        async (batch) => void received.push(...batch.map((e) => `${e.id}=${text(e.data)}`)),
        {
          // the one consumer a work-queue stream allows
          durableName: 'queue-test',
          maxBatch: 8,
        },
      );
      await eventually('every entry', () => received.length === 21);
      expect(received).toEqual([...ids.map((id) => `${id}=data of ${id}`), 'after-the-garbage=still here']);
      await subscription.unsubscribe();
    } finally {
      await nc.close();
    }
  });
});
