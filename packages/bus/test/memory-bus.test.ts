import { createMemoryBroker, createMemoryBus } from '../src/memory-bus';
import type { MemoryBus } from '../src/memory-bus';
import { runBusSuite } from './bus-suite';
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
});
