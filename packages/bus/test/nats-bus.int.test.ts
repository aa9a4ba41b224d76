import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstreamManager } from '@nats-io/jetstream';
import type { JetStreamManager } from '@nats-io/jetstream';
// The bus tests need only the nats-server helper; `@nap/testing`'s index also loads the whole
// platform harness (which depends on this package), so the helper module is imported directly.
import { eventually } from '../../testing/src/eventually';
import { startNatsServer } from '../../testing/src/nats-server';
import type { NatsServer } from '../../testing/src/nats-server';
import { CoalescingTransport, connectNats } from '../src/internal/nats-connection';
import { isNoResponders } from '../src/internal/nats-convert';
import { ReplyInbox } from '../src/internal/nats-reply-inbox';
import { publishToStream } from '../src/internal/nats-stream-publish';
import { createNatsBus } from '../src/nats-bus';
import type { NatsBus, NatsBusOptions } from '../src/nats-bus';
import { EVENT_STREAM } from '../src/types';
import { runBusSuite } from './bus-suite';
import { Collector, bytes, expectAppError, text } from './helpers';

const NANOS_PER_MS = 1_000_000;

/** A JetStream manager on its own connection, to look at the server as a bystander. */
async function inspect(server: NatsServer): Promise<{ jsm: JetStreamManager; nc: NatsConnection }> {
  const nc = await connect({ servers: server.url });
  return { jsm: await jetstreamManager(nc), nc };
}

runBusSuite({
  name: 'NatsBus',
  async createWorld(options) {
    const server = await startNatsServer({ jetstream: true });
    // every connect, even one still pending when a test fails, is closed with the world
    const buses: Promise<NatsBus>[] = [];
    let bystander: { jsm: JetStreamManager; nc: NatsConnection } | undefined;
    return {
      connect(connectOptions) {
        const bus = createNatsBus({
          servers: server.url,
          name: 'bus-suite',
          stream: options?.stream,
          events: connectOptions?.events,
          reconnectTimeWaitMs: 100,
        });
        buses.push(bus);
        return bus;
      },
      async storedEvents() {
        bystander ??= await inspect(server);
        return (await bystander.jsm.streams.info(EVENT_STREAM)).state.messages;
      },
      async close() {
        await Promise.allSettled(buses.map(async (bus) => (await bus).close()));
        await bystander?.nc.close();
        await server.stop();
      },
    };
  },
});

describe('NatsBus specifics', () => {
  let server: NatsServer | undefined;
  const buses: NatsBus[] = [];
  const open = async (options: Partial<NatsBusOptions> = {}): Promise<NatsBus> => {
    if (server === undefined) throw new Error('start the server first');
    const bus = await createNatsBus({ servers: server.url, name: 'nats-specifics', reconnectTimeWaitMs: 100, ...options });
    buses.push(bus);
    return bus;
  };
  afterEach(async () => {
    await Promise.allSettled(buses.splice(0).map((bus) => bus.close()));
    await server?.stop();
    server = undefined;
  });

  test('connecting ensures the stream NAP_EVENTS on nap.evt.> with file storage and the limits', async () => {
    server = await startNatsServer({ jetstream: true });
    await open();
    const { jsm, nc } = await inspect(server);
    try {
      const { config } = await jsm.streams.info(EVENT_STREAM);
      expect(config).toMatchObject({
        name: 'NAP_EVENTS',
        subjects: ['nap.evt.>'],
        storage: 'file',
        retention: 'limits',
        discard: 'old',
        max_age: 7 * 24 * 60 * 60 * 1000 * NANOS_PER_MS,
        max_bytes: 1024 * 1024 * 1024,
      });

      // another process with other limits brings the stream to them
      await open({ stream: { maxAgeMs: 60 * 60 * 1000, maxBytes: 64 * 1024 * 1024 } });
      const updated = await jsm.streams.info(EVENT_STREAM);
      expect(updated.config.max_age).toBe(60 * 60 * 1000 * NANOS_PER_MS);
      expect(updated.config.max_bytes).toBe(64 * 1024 * 1024);
    } finally {
      await nc.close();
    }
  });

  test("refuses a request over the server's max_payload as 413 PAYLOAD_TOO_LARGE naming it, not a 500", async () => {
    server = await startNatsServer({ jetstream: true });
    const bus = await open();
    // nats-server's default max_payload: 1 MiB
    const err = await expectAppError(
      bus.request('nap.rpc.big.import', new Uint8Array(1024 * 1024 + 1), { timeoutMs: 1000 }),
      'PAYLOAD_TOO_LARGE',
    );
    expect(err.message).toContain("larger than the NATS server's max_payload of 1048576 bytes");
  });

  test('a durable consumer acks each handled event at the server', async () => {
    server = await startNatsServer({ jetstream: true });
    const bus = await open();
    const got = new Collector<number>();
    await bus.consumeEvents('nap.evt.>', (e) => got.push(e.seq), { deliver: 'all', durableName: 'acker' });
    for (let i = 0; i < 5; i++) await bus.publishEvent(`nap.evt.mop.t.t${i}.done`, bytes(''));
    await got.waitFor(5);
    const { jsm, nc } = await inspect(server);
    try {
      await eventually('acks at the server', async () => {
        const info = await jsm.consumers.info(EVENT_STREAM, 'acker');
        return info.ack_floor.stream_seq === 5 && info.num_ack_pending === 0;
      });
      const info = await jsm.consumers.info(EVENT_STREAM, 'acker');
      expect(info.config).toMatchObject({ durable_name: 'acker', ack_policy: 'explicit', filter_subject: 'nap.evt.>', max_deliver: 10 });
    } finally {
      await nc.close();
    }
  });

  test('after a nats-server restart the bus reports disconnect and reconnect and works again', async () => {
    server = await startNatsServer({ jetstream: true });
    const serverBus = await open();
    const client = await open();
    const statuses: string[] = [];
    client.onStatus((s) => statuses.push(s));
    await serverBus.addService({
      name: 'orch-proxy',
      version: '1.0.0',
      endpoints: [{ name: 'ping', subject: 'nap.rpc.orch-proxy.ping', handler: (req) => req.respond(bytes('pong')) }],
    });
    const events = new Collector<string>();
    await serverBus.consumeEvents('nap.evt.>', (e) => events.push(text(e.data)), { deliver: 'all', durableName: 'survivor' });
    await client.publishEvent('nap.evt.orch.a.1.before', bytes('before'));
    await events.waitFor(1);

    await server.restart();
    await eventually('disconnect and reconnect', () => statuses.join(',') === 'disconnected,connected', { timeoutMs: 15_000 });
    expect(client.isConnected()).toBe(true);
    await eventually('the service bus to reconnect', () => serverBus.isConnected(), { timeoutMs: 15_000 });

    // the service's subscription is sent again on its own connection: until the server has taken it,
    // a request through the client's connection meets no responder (503, as a caller would be told)
    const answer = await eventually(
      'the service to answer again',
      async () => text((await client.request('nap.rpc.orch-proxy.ping', bytes(''), { timeoutMs: 5000 })).data),
      { timeoutMs: 15_000 },
    );
    expect(answer).toBe('pong');
    await client.publishEvent('nap.evt.orch.a.1.after', bytes('after'));
    expect(await events.waitFor(2, 20_000)).toEqual(['before', 'after']);
  });

  test('a request while the server is down fails with SERVICE_UNAVAILABLE at once, and the bus logs the disconnect and the reconnect', async () => {
    server = await startNatsServer({ jetstream: true });
    const lines: string[] = [];
    const record = (level: string) => (_obj: object, msg?: string) => void lines.push(`${level} ${msg ?? ''}`);
    const bus = await open({ logger: { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') } });
    await server.kill();
    await eventually('the disconnect', () => !bus.isConnected());
    // a 60 s timeout that is not waited for: the bus knows nobody can answer
    const pending = bus.request('nap.rpc.any.op', bytes(''), { timeoutMs: 60_000 });
    const outcome = await Promise.race([
      pending.then(
        () => 'answered',
        (err: unknown) => (err as { code?: string }).code,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5_000)),
    ]);
    expect(outcome).toBe('SERVICE_UNAVAILABLE');
    expect(lines).toContain('warn NATS connection lost; reconnecting');
    await server.restart();
    await eventually('the reconnect', () => bus.isConnected(), { timeoutMs: 15_000 });
    expect(lines).toContain('info NATS connection restored');
  });

  test('requests share one reply subscription; one still waiting when the bus closes fails with SERVICE_UNAVAILABLE, not at its timeout', async () => {
    server = await startNatsServer({ jetstream: true });
    const serverBus = await open();
    const client = await open();
    serverBus.subscribe('nap.rpc.echo.op', (m) => m.reply?.(m.data, { echoed: 'yes' }));
    serverBus.subscribe('nap.rpc.silent.op', () => undefined);
    // the subscriptions reach the server on their own connection: asked before that, nobody listens yet
    await eventually('the echo subscription known to the server', () =>
      client.request('nap.rpc.echo.op', bytes('ready?'), { timeoutMs: 5000 }).then(
        () => true,
        () => false,
      ),
    );
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.request('nap.rpc.echo.op', bytes(`m${i}`), { timeoutMs: 5000 })),
    );
    expect(replies.map((r) => text(r.data))).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));
    expect(replies[0]?.headers).toEqual({ echoed: 'yes' });
    const waiting = expectAppError(client.request('nap.rpc.silent.op', bytes('x'), { timeoutMs: 600_000 }), 'SERVICE_UNAVAILABLE');
    await client.close();
    expect((await waiting).message).toContain('closed');
  });

  test('a hedged request: sent again when no reply came within hedgeAfterMs; the first reply answers, and it fails only once both have', async () => {
    server = await startNatsServer({ jetstream: true });
    const replica = await open();
    const client = await open();
    const seen: string[] = [];
    // the first request is lost, as one is that reached a replica just before it died
    replica.subscribe(
      'nap.rpc.read.op',
      (m) => {
        seen.push(text(m.data));
        if (seen.length > 1) m.reply?.(bytes(`answer ${seen.length}`));
      },
      { queue: 'readers' },
    );
    replica.subscribe('nap.rpc.silent.op', (m) => seen.push(`silent ${text(m.data)}`));
    await replica.flush();
    const reply = await client.request('nap.rpc.read.op', bytes('r'), { timeoutMs: 20_000, hedgeAfterMs: 100 });
    expect(text(reply.data)).toBe('answer 2');
    expect(seen).toEqual(['r', 'r']);
    // neither answers: TIMEOUT, once both waited
    await expectAppError(client.request('nap.rpc.silent.op', bytes('s'), { timeoutMs: 400, hedgeAfterMs: 100 }), 'TIMEOUT');
    expect(seen.filter((s) => s === 'silent s')).toHaveLength(2);
    // nobody listens: SERVICE_UNAVAILABLE at once, not after the hedge (a minute, beyond the test's timeout)
    await expectAppError(
      client.request('nap.rpc.nobody.home', bytes('x'), { timeoutMs: 120_000, hedgeAfterMs: 60_000 }),
      'SERVICE_UNAVAILABLE',
    );
  });

  test('what a process sends during one turn of the event loop leaves in one write, in order', async () => {
    server = await startNatsServer({ jetstream: false });
    const sender = await connectNats({ servers: server.url, name: 'coalescing' });
    const receiver = await connect({ servers: server.url });
    try {
      const transport = (sender as unknown as { protocol: { transport: unknown } }).protocol.transport;
      expect(transport).toBeInstanceOf(CoalescingTransport);
      // the system calls the socket makes: one per write, one per writev of what was corked
      const socket = (transport as CoalescingTransport).socket as unknown as Record<'_write' | '_writev', (...args: unknown[]) => void>;
      let writes = 0;
      for (const method of ['_write', '_writev'] as const) {
        const original = socket[method].bind(socket);
        socket[method] = (...args: unknown[]) => {
          writes += 1;
          original(...args);
        };
      }
      const got = new Collector<string>();
      receiver.subscribe('coalesce.>', { callback: (_err, msg) => got.push(msg.subject) });
      await receiver.flush();
      // fifty callbacks of one turn, each sending as a request handler does (the client flushes after each)
      await new Promise<void>((resolve) => {
        for (let i = 0; i < 50; i++)
          setImmediate(() => {
            sender.publish(`coalesce.${i}`, bytes(`m${i}`));
            if (i === 49) resolve();
          });
      });
      await got.waitFor(50);
      expect(got.items).toEqual(Array.from({ length: 50 }, (_, i) => `coalesce.${i}`));
      expect(writes).toBe(1);
    } finally {
      await sender.close();
      await receiver.close();
    }
  });

  test('a stream publish over the reply inbox: acknowledged with its seq, a repeated id seen as a duplicate, no stream is no responders', async () => {
    server = await startNatsServer({ jetstream: true });
    await open();
    const nc = await connect({ servers: server.url });
    try {
      const inbox = new ReplyInbox(nc);
      const first = await publishToStream(inbox, 'nap.evt.test.thing.1.made', bytes('one'), { msgId: 'made-1' });
      expect(first).toMatchObject({ stream: EVENT_STREAM, duplicate: false });
      const again = await publishToStream(inbox, 'nap.evt.test.thing.1.made', bytes('one'), { msgId: 'made-1' });
      expect(again).toEqual({ ...first, duplicate: true });
      const next = await publishToStream(inbox, 'nap.evt.test.thing.2.made', bytes('two'));
      expect(next.seq).toBe(first.seq + 1);
      // no stream stores the subject: nobody answers, and the error says so
      const none = await publishToStream(inbox, 'nowhere.stored', bytes('x'), { timeoutMs: 2_000 }).catch((err: unknown) => err);
      expect(none).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(isNoResponders(none)).toBe(true);
    } finally {
      await nc.close();
    }
  });

  test('without JetStream or without a server, createNatsBus fails with SERVICE_UNAVAILABLE naming the cause', async () => {
    server = await startNatsServer({ jetstream: false });
    const noJs = await expectAppError(createNatsBus({ servers: server.url, name: 'no-js' }), 'SERVICE_UNAVAILABLE');
    expect(noJs.message).toContain('-js');
    // the bus still works for request/reply when the stream is not required
    const bus = await open({ ensureStream: false });
    bus.subscribe('nap.rpc.plain.echo', (m) => m.reply?.(m.data));
    expect(text((await bus.request('nap.rpc.plain.echo', bytes('hi'), { timeoutMs: 5000 })).data)).toBe('hi');

    const port = server.port;
    await server.stop();
    server = undefined;
    const down = await expectAppError(
      createNatsBus({ servers: `nats://127.0.0.1:${port}`, name: 'down', connectTimeoutMs: 2000 }),
      'SERVICE_UNAVAILABLE',
    );
    expect(down.message).toContain(`127.0.0.1:${port}`);
  });
});
