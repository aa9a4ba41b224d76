import { createMemoryBroker, createMemoryBus } from '../src/memory-bus';
import type { MemoryBus } from '../src/memory-bus';
import { runBusSuite } from './bus-suite';
import type { BusEvent, EventSequences } from '../src/types';
import { Collector, bytes, expectAppError, text } from './helpers';

runBusSuite({
  name: 'MemoryBus',
  async createWorld(options) {
    const broker = createMemoryBroker({ stream: options?.stream });
    const buses: MemoryBus[] = [];
    return {
      async connect(connectOptions) {
        const bus = createMemoryBus({ broker, events: connectOptions?.events });
        buses.push(bus);
        return bus;
      },
      async storedEvents() {
        return broker.eventCount;
      },
      async close() {
        await Promise.all(buses.map((bus) => bus.close()));
      },
    };
  },
});

describe('MemoryBus specifics', () => {
  test('subscribers and responders run on a later turn, never inside the sender', async () => {
    const bus = createMemoryBus();
    const calls: string[] = [];
    bus.subscribe('nap.rpc.a.b', (msg) => {
      calls.push('handler');
      msg.reply?.(bytes('ok'));
      calls.push('replied');
    });
    const pending = bus.request('nap.rpc.a.b', bytes(''), { timeoutMs: 1000 }).then((r) => {
      calls.push(`reply ${text(r.data)}`);
    });
    calls.push('sent');
    await pending;
    expect(calls).toEqual(['sent', 'handler', 'replied', 'reply ok']);
    await bus.close();
  });

  test('buses on different brokers do not see each other; on one broker they do', async () => {
    const a = createMemoryBus();
    const b = createMemoryBus();
    const c = createMemoryBus({ broker: a.broker });
    const got = new Collector<string>();
    a.subscribe('nap.x', (m) => got.push(text(m.data)));
    await expectAppError(b.request('nap.x', bytes('from b'), { timeoutMs: 1000 }), 'SERVICE_UNAVAILABLE');
    c.publish('nap.x', bytes('from c'));
    expect(await got.waitFor(1)).toEqual(['from c']);
    await b.publishEvent('nap.evt.a.b.c.d', bytes(''));
    expect(a.broker.lastEventSeq).toBe(0);
    expect(b.broker.lastEventSeq).toBe(1);
    await Promise.all([a.close(), b.close(), c.close()]);
  });

  test('a request pending when its bus closes fails with SERVICE_UNAVAILABLE', async () => {
    const server = createMemoryBus();
    const client = createMemoryBus({ broker: server.broker });
    const got = new Collector<string>();
    server.subscribe('nap.rpc.hang.on', (m) => got.push(text(m.data)));
    const pending = client.request('nap.rpc.hang.on', bytes('x'), { timeoutMs: 30_000 });
    await got.waitFor(1);
    await client.close();
    await expectAppError(pending, 'SERVICE_UNAVAILABLE');
    await server.close();
  });

  describe('reserved event sequences', () => {
    /** Reservations kept in memory, as a store keeps them: each one waits for `gate` when given. */
    function reservations(first: number) {
      const reserved: number[] = [];
      let gate: Promise<void> | undefined;
      let failing: Error | undefined;
      const sequences: EventSequences = {
        first,
        async reserve(upTo) {
          await gate;
          if (failing) throw failing;
          reserved.push(upTo);
        },
      };
      return {
        sequences,
        reserved,
        hold(): () => void {
          let open = (): void => undefined;
          gate = new Promise<void>((resolve) => (open = resolve));
          return () => {
            gate = undefined;
            open();
          };
        },
        fail(err: Error | undefined): void {
          failing = err;
        },
      };
    }

    test('a new life starts past an earlier one, and hands out no sequence before it is reserved', async () => {
      const earlier = reservations(1);
      const first = createMemoryBus({ eventSequences: earlier.sequences });
      expect((await first.publishEvent('nap.evt.a.b.c.d', bytes('1'))).seq).toBe(1);
      expect(earlier.reserved.length).toBe(1);
      const upTo = earlier.reserved[0] ?? 0;
      expect(upTo).toBeGreaterThanOrEqual(1);
      await first.close();

      // the next life starts after all that the first one reserved, used or not
      const later = reservations(upTo + 1);
      const bus = createMemoryBus({ eventSequences: later.sequences });
      const release = later.hold();
      const pending = [
        bus.publishEvent('nap.evt.a.b.c.d', bytes('2')),
        bus.publishEvents([{ subject: 'nap.evt.a.b.c.e', data: bytes('3') }]),
      ];
      expect(bus.broker.lastEventSeq).toBe(upTo); // nothing stored before the reservation
      release();
      const [one, batch] = await Promise.all(pending);
      expect(one).toEqual({ seq: upTo + 1 });
      expect(batch).toEqual({ seqs: [upTo + 2] });
      // a consumer resuming from the earlier life's last id gets everything of this one
      const resumed = new Collector<BusEvent>();
      await bus.consumeEvents('nap.evt.>', resumed.push, { deliver: { startSeq: 2 } });
      expect((await resumed.waitFor(2)).map((e) => text(e.data))).toEqual(['2', '3']);
      await bus.close();
    });

    test('events that wait for a reservation keep the order they were published in', async () => {
      const r = reservations(1);
      const bus = createMemoryBus({ eventSequences: r.sequences });
      const release = r.hold();
      const published = Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0
          ? bus.publishEvent('nap.evt.a.b.c.d', bytes(String(i))).then((p) => [p.seq])
          : bus.publishEvents([{ subject: 'nap.evt.a.b.c.d', data: bytes(String(i)) }]).then((p) => p.seqs),
      );
      release();
      expect((await Promise.all(published)).flat()).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      await bus.close();
    });

    test('a reservation that fails stores nothing and says so; the next event tries again', async () => {
      const r = reservations(1);
      const bus = createMemoryBus({ eventSequences: r.sequences });
      r.fail(new Error('disk full'));
      await expectAppError(bus.publishEvent('nap.evt.a.b.c.d', bytes('lost')), 'SERVICE_UNAVAILABLE');
      const batch = await bus.publishEvents([{ subject: 'nap.evt.a.b.c.d', data: bytes('lost too') }]);
      expect(batch.seqs).toEqual([]);
      expect(String(batch.error)).toMatch(/could not reserve sequences: disk full/);
      expect(bus.broker.lastEventSeq).toBe(0);
      r.fail(undefined);
      expect(await bus.publishEvent('nap.evt.a.b.c.d', bytes('kept'))).toEqual({ seq: 1 });
      await bus.close();
    });
  });
});
