import type { Bus, BusEvent, BusHeaders, BusMessage, IncomingRequest } from '../src/types';
import type { EventConsumerSettings, EventStreamLimits } from '../src/internal/events';
import { sleep } from '@nap/util';
// `@nap/testing`'s index also loads the whole platform harness (which depends on this package): the helper module is imported directly
import { eventually } from '../../testing/src/eventually';
import { Collector, Gate, bytes, expectAppError, expectThrowsAppError, text } from './helpers';

/** A bus under test; `flush()` resolves once the server has processed what this bus sent. */
export type TestBus = Bus & { flush(): Promise<void> };

/** One isolated world (a fresh nats-server, or a fresh memory broker) that buses connect to. */
export interface BusWorld {
  /** Another bus (connection) on this world, closed by `close()` if the test has not closed it. */
  connect(options?: { events?: EventConsumerSettings }): Promise<TestBus>;
  /** Number of events the stream keeps now. */
  storedEvents(): Promise<number>;
  close(): Promise<void>;
}

export interface BusWorldOptions {
  stream?: EventStreamLimits;
}

export interface BusSuiteTarget {
  name: string;
  createWorld(options?: BusWorldOptions): Promise<BusWorld>;
}

type PlainMessage = BusMessage & { reply?: (data: Uint8Array, headers?: BusHeaders) => void };

const FAST_REDELIVERY: EventConsumerSettings = { redeliveryDelayMs: 50, maxDeliver: 3 };

/**
 * The behaviour both `NatsBus` and `MemoryBus` must show. Each test gets its own world, so the
 * suite runs in parallel with any other; waits are bounded, nothing asserts on elapsed time except
 * that a no-responders failure comes well before the request timeout.
 */
export function runBusSuite(target: BusSuiteTarget): void {
  describe(`Bus contract: ${target.name}`, () => {
    let world: BusWorld;
    const open = async (options?: BusWorldOptions): Promise<BusWorld> => {
      world = await target.createWorld(options);
      return world;
    };
    afterEach(async () => {
      await world?.close();
    });

    describe('request/reply', () => {
      test('a request gets the reply of a subscriber on another bus, headers both ways', async () => {
        await open();
        const server = await world.connect();
        const client = await world.connect();
        const seen = new Collector<PlainMessage>();
        server.subscribe('nap.rpc.echo.say', (msg) => {
          seen.push(msg);
          msg.reply?.(bytes(`echo ${text(msg.data)}`), { 'nap-status': '201', 'x-echo': msg.headers['nap-request-id'] ?? '' });
        });
        await server.flush();

        const reply = await client.request('nap.rpc.echo.say', bytes('hello'), {
          timeoutMs: 5000,
          headers: { 'nap-request-id': 'req-1', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
        });

        expect(text(reply.data)).toBe('echo hello');
        expect(reply.headers).toEqual({ 'nap-status': '201', 'x-echo': 'req-1' });
        expect(seen.items[0]?.subject).toBe('nap.rpc.echo.say');
        expect(seen.items[0]?.headers).toEqual({
          'nap-request-id': 'req-1',
          traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        });
        expect(client.kind).toBe(server.kind);
      });

      test('no reply within the timeout rejects with TIMEOUT', async () => {
        await open();
        const bus = await world.connect();
        const got = new Collector<PlainMessage>();
        bus.subscribe('nap.rpc.silent.op', got.push);
        await bus.flush();

        const err = await expectAppError(bus.request('nap.rpc.silent.op', bytes('x'), { timeoutMs: 150 }), 'TIMEOUT');
        expect(err.status).toBe(504);
        expect(err.message).toContain('nap.rpc.silent.op');
        expect(got.items).toHaveLength(1);
      });

      test('no responders rejects with SERVICE_UNAVAILABLE at once, not after the timeout', async () => {
        await open();
        const bus = await world.connect();
        const started = Date.now();
        const err = await expectAppError(bus.request('nap.rpc.nobody.home', bytes('x'), { timeoutMs: 60_000 }), 'SERVICE_UNAVAILABLE');
        expect(Date.now() - started).toBeLessThan(10_000);
        expect(err.status).toBe(503);
        expect(err.message).toContain('nap.rpc.nobody.home');
      });

      // a Node Buffer's own slice() is a view of its memory: the bus must copy Buffers too
      test.each([
        ['a Uint8Array', bytes],
        ['a Node Buffer', (value: string): Uint8Array => Buffer.from(value)],
      ])('a sender reusing %s after sending changes nothing', async (_kind, make) => {
        await open();
        const server = await world.connect();
        const client = await world.connect();
        const received = new Collector<string>();
        server.subscribe('nap.rpc.copy.check', (msg) => {
          received.push(text(msg.data));
          if (msg.reply === undefined) return;
          const answer = make('answer');
          msg.reply(answer);
          answer.fill(0);
        });
        await server.flush();

        const payload = make('original');
        const pending = client.request('nap.rpc.copy.check', payload, { timeoutMs: 5000 });
        payload.fill(120);
        const published = make('published');
        client.publish('nap.rpc.copy.check', published);
        published.fill(120);
        const reply = await pending;

        await received.waitFor(2);
        expect(received.items).toEqual(['original', 'published']);
        expect(text(reply.data)).toBe('answer');
      });

      test('arguments the bus refuses fail with INTERNAL, never a raw error', async () => {
        await open();
        const bus = await world.connect();
        await expectAppError(bus.request('nap..rpc', bytes('x'), { timeoutMs: 100 }), 'INTERNAL');
        await expectAppError(bus.request('nap.rpc.*', bytes('x'), { timeoutMs: 100 }), 'INTERNAL');
        await expectAppError(bus.request('nap.rpc.x', bytes('x'), { timeoutMs: 0 }), 'INTERNAL');
        await expectAppError(bus.request('nap.rpc.x', bytes('x'), { timeoutMs: 100, headers: { 'bad name': 'v' } }), 'INTERNAL');
        await expectAppError(bus.request('nap.rpc.x', bytes('x'), { timeoutMs: 100, headers: { ok: 'line\r\nbreak' } }), 'INTERNAL');
        expectThrowsAppError(() => bus.publish('', bytes('x')), 'INTERNAL');
        expectThrowsAppError(() => bus.subscribe('a.>.b', () => undefined), 'INTERNAL');
      });
    });

    describe('publish/subscribe', () => {
      test('every plain subscriber gets every message, in order', async () => {
        await open();
        const a = await world.connect();
        const b = await world.connect();
        const publisher = await world.connect();
        const gotA = new Collector<string>();
        const gotB = new Collector<string>();
        a.subscribe('nap.news', (m) => gotA.push(text(m.data)));
        b.subscribe('nap.news', (m) => gotB.push(text(m.data)));
        await Promise.all([a.flush(), b.flush()]);

        const sent = Array.from({ length: 20 }, (_, i) => `m${i}`);
        for (const m of sent) publisher.publish('nap.news', bytes(m), { n: m });

        expect(await gotA.waitFor(20)).toEqual(sent);
        expect(await gotB.waitFor(20)).toEqual(sent);
      });

      test('a queue group gives each message to exactly one member and spreads the work', async () => {
        await open();
        const members = await Promise.all([world.connect(), world.connect(), world.connect()]);
        const watcher = await world.connect();
        const publisher = await world.connect();
        const byMember = members.map(() => new Collector<string>());
        const all = new Collector<string>();
        members.forEach((bus, i) =>
          bus.subscribe(
            'nap.work.*',
            (m) => {
              byMember[i]?.push(text(m.data));
              all.push(text(m.data));
            },
            { queue: 'workers' },
          ),
        );
        const watched = new Collector<string>();
        watcher.subscribe('nap.work.>', (m) => watched.push(text(m.data)));
        await Promise.all([...members, watcher].map((bus) => bus.flush()));

        const sent = Array.from({ length: 90 }, (_, i) => `job-${i}`);
        for (const m of sent) publisher.publish(`nap.work.${m}`, bytes(m));

        await all.waitFor(90);
        await watched.waitFor(90);
        await publisher.flush();
        expect([...all.items].sort()).toEqual([...sent].sort());
        for (const member of byMember) expect(member.items.length).toBeGreaterThan(0);
        expect(watched.items).toEqual(sent);
      });

      test('wildcards: * matches one token, > one or more', async () => {
        await open();
        const bus = await world.connect();
        const star = new Collector<string>();
        const tail = new Collector<string>();
        const exact = new Collector<string>();
        bus.subscribe('nap.rpc.*.ping', (m) => star.push(m.subject));
        bus.subscribe('nap.evt.>', (m) => tail.push(m.subject));
        bus.subscribe('nap.rpc.mop.ping', (m) => exact.push(m.subject));
        await bus.flush();

        const end = new Collector<string>();
        bus.subscribe('nap.end', (m) => end.push(m.subject));
        await bus.flush();

        const subjects = [
          'nap.rpc.mop.ping',
          'nap.rpc.mop.pong',
          'nap.rpc.a.b.ping',
          'nap.evt',
          'nap.evt.job',
          'nap.evt.job.1.done',
          'nap.rpc.wf.ping',
        ];
        for (const s of subjects) bus.publish(s, bytes(s));
        // messages from one publisher arrive in order: once the marker is in, the rest is too
        bus.publish('nap.end', bytes('end'));
        await end.waitFor(1);

        expect(star.items).toEqual(['nap.rpc.mop.ping', 'nap.rpc.wf.ping']);
        expect(tail.items).toEqual(['nap.evt.job', 'nap.evt.job.1.done']);
        expect(exact.items).toEqual(['nap.rpc.mop.ping']);
      });

      test('a receiver gets its own copy of the data and headers', async () => {
        await open();
        const bus = await world.connect();
        const first = new Collector<BusMessage>();
        const second = new Collector<BusMessage>();
        bus.subscribe('nap.copy', (m) => {
          m.data.fill(0);
          m.headers.h = 'changed';
          first.push(m);
        });
        bus.subscribe('nap.copy', (m) => second.push(m));
        await bus.flush();

        const data = bytes('payload');
        const headers = { h: 'value' };
        bus.publish('nap.copy', data, headers);
        data.fill(0);
        headers.h = 'mutated';

        await first.waitFor(1);
        const [m] = await second.waitFor(1);
        expect(text(m?.data ?? new Uint8Array())).toBe('payload');
        expect(m?.headers).toEqual({ h: 'value' });
      });

      test('unsubscribe stops the deliveries', async () => {
        await open();
        const bus = await world.connect();
        const got = new Collector<string>();
        const sub = bus.subscribe('nap.once', (m) => got.push(text(m.data)));
        await bus.flush();
        bus.publish('nap.once', bytes('1'));
        await got.waitFor(1);
        await sub.unsubscribe();
        await expectAppError(bus.request('nap.once', bytes('2'), { timeoutMs: 5000 }), 'SERVICE_UNAVAILABLE');
        expect(got.items).toEqual(['1']);
      });
    });

    describe('services', () => {
      const okOrError = (req: IncomingRequest): void => {
        const input = text(req.data);
        if (input.startsWith('missing')) {
          req.respondError(404, `Template "${input}" not found`, bytes(JSON.stringify({ code: 'TEMPLATE_NOT_FOUND' })), {
            'nap-request-id': req.headers['nap-request-id'] ?? '',
          });
        } else {
          req.respond(bytes(`ran ${input}`), { 'nap-status': '200' });
        }
      };

      test('addService answers on its endpoints; discover and stats describe it', async () => {
        await open();
        const server = await world.connect();
        const client = await world.connect();
        const registered = await server.addService({
          name: 'mop',
          version: '1.2.3',
          description: 'Method of procedure',
          metadata: { team: 'netops' },
          endpoints: [
            { name: 'RunCommandTemplate', subject: 'nap.rpc.mop.RunCommandTemplate', handler: okOrError },
            { name: 'ListTemplates', subject: 'nap.rpc.mop.ListTemplates', handler: (req) => req.respond(bytes('[]')) },
          ],
        });

        const ok = await client.request('nap.rpc.mop.RunCommandTemplate', bytes('show version'), { timeoutMs: 5000 });
        expect(text(ok.data)).toBe('ran show version');
        expect(ok.headers).toEqual({ 'nap-status': '200' });
        await client.request('nap.rpc.mop.RunCommandTemplate', bytes('show ip'), { timeoutMs: 5000 });
        const failed = await client.request('nap.rpc.mop.RunCommandTemplate', bytes('missing-1'), {
          timeoutMs: 5000,
          headers: { 'nap-request-id': 'r-42' },
        });
        expect(failed.headers).toEqual({
          'Nats-Service-Error-Code': '404',
          'Nats-Service-Error': 'Template "missing-1" not found',
          'nap-request-id': 'r-42',
        });
        expect(JSON.parse(text(failed.data))).toEqual({ code: 'TEMPLATE_NOT_FOUND' });

        const expectedInfo = {
          name: 'mop',
          id: registered.id,
          version: '1.2.3',
          description: 'Method of procedure',
          metadata: { team: 'netops', registration: '1' },
          endpoints: [
            { name: 'RunCommandTemplate', subject: 'nap.rpc.mop.RunCommandTemplate', queue_group: 'mop' },
            { name: 'ListTemplates', subject: 'nap.rpc.mop.ListTemplates', queue_group: 'mop' },
          ],
        };
        expect(registered.info).toEqual(expectedInfo);
        expect(await client.discover()).toEqual([expectedInfo]);
        expect(await client.discover('mop', 2000)).toEqual([expectedInfo]);
        expect(await client.discover('studio', 300)).toEqual([]);

        const [stats, ...more] = await client.stats('mop');
        expect(more).toEqual([]);
        expect(stats).toBeDefined();
        if (stats === undefined) return;
        expect(Object.keys(stats).sort()).toEqual(['endpoints', 'id', 'name', 'started', 'version']);
        expect(stats).toMatchObject({ name: 'mop', id: registered.id, version: '1.2.3' });
        expect(Number.isNaN(Date.parse(stats.started))).toBe(false);
        const [run, list] = stats.endpoints;
        expect(run).toMatchObject({
          name: 'RunCommandTemplate',
          subject: 'nap.rpc.mop.RunCommandTemplate',
          num_requests: 3,
          num_errors: 1,
          last_error: 'Template "missing-1" not found',
        });
        expect(run?.processing_time).toBeGreaterThanOrEqual(0);
        expect(run?.average_processing_time).toBeGreaterThanOrEqual(0);
        expect(Object.keys(run ?? {}).sort()).toEqual([
          'average_processing_time',
          'last_error',
          'name',
          'num_errors',
          'num_requests',
          'processing_time',
          'subject',
        ]);
        expect(list).toEqual({
          name: 'ListTemplates',
          subject: 'nap.rpc.mop.ListTemplates',
          num_requests: 0,
          num_errors: 0,
          processing_time: 0,
          average_processing_time: 0,
        });
      });

      test('processing time counts until the asynchronous answer', async () => {
        await open();
        const server = await world.connect();
        await server.addService({
          name: 'slow',
          version: '0.1.0',
          endpoints: [
            {
              name: 'wait',
              subject: 'nap.rpc.slow.wait',
              handler: (req) => {
                setTimeout(() => req.respond(bytes('done')), 30);
              },
            },
          ],
        });
        await server.request('nap.rpc.slow.wait', bytes(''), { timeoutMs: 5000 });
        const [stats] = await server.stats('slow');
        // at least 20 ms, in nanoseconds: timers may fire a little early, never 10 ms early
        expect(stats?.endpoints[0]?.processing_time).toBeGreaterThanOrEqual(20_000_000);
        expect(stats?.endpoints[0]?.average_processing_time).toBe(stats?.endpoints[0]?.processing_time);
      });

      test('a handler that throws answers 500 and counts an error', async () => {
        await open();
        const server = await world.connect();
        await server.addService({
          name: 'broken',
          version: '1.0.0',
          endpoints: [
            {
              name: 'sync',
              subject: 'nap.rpc.broken.sync',
              handler: () => {
                throw new Error('boom');
              },
            },
            // a handler typed `void` that is async anyway: its rejection must become a 500 too
            {
              name: 'async',
              subject: 'nap.rpc.broken.async',
              // eslint-disable-next-line @typescript-eslint/no-misused-promises
              handler: async () => {
                await sleep(1);
                throw new Error('later');
              },
            },
          ],
        });
        for (const subject of ['nap.rpc.broken.sync', 'nap.rpc.broken.async']) {
          const reply = await server.request(subject, bytes(''), { timeoutMs: 5000 });
          expect(reply.headers['Nats-Service-Error-Code']).toBe('500');
          expect(JSON.parse(text(reply.data))).toMatchObject({ code: 'INTERNAL' });
        }
        const [stats] = await server.stats('broken');
        expect(stats?.endpoints.map((e) => [e.num_requests, e.num_errors])).toEqual([
          [1, 1],
          [1, 1],
        ]);
      });

      test('two instances of a service share its requests, each request to one of them', async () => {
        await open();
        const replicas = await Promise.all([world.connect(), world.connect()]);
        const client = await world.connect();
        const handledBy = replicas.map(() => new Collector<string>());
        const instances = await Promise.all(
          replicas.map((bus, i) =>
            bus.addService({
              name: 'workflow',
              version: '2.0.0',
              endpoints: [
                {
                  name: 'startJob',
                  subject: 'nap.rpc.workflow.startJob',
                  handler: (req) => {
                    handledBy[i]?.push(text(req.data));
                    req.respond(bytes(`replica-${i}`));
                  },
                },
              ],
            }),
          ),
        );

        const replies = await Promise.all(
          Array.from({ length: 60 }, (_, n) => client.request('nap.rpc.workflow.startJob', bytes(`job-${n}`), { timeoutMs: 5000 })),
        );
        expect(replies).toHaveLength(60);
        const handled = handledBy.flatMap((c) => c.items).sort();
        expect(handled).toEqual(Array.from({ length: 60 }, (_, n) => `job-${n}`).sort());
        for (const c of handledBy) expect(c.items.length).toBeGreaterThan(0);

        const ids = instances.map((s) => s.id).sort();
        expect(new Set(ids).size).toBe(2);
        await eventually('both instances in discovery', async () => (await client.discover('workflow')).length === 2);
        expect((await client.discover('workflow')).map((s) => s.id)).toEqual(ids);
        const stats = await client.stats('workflow');
        expect(stats.reduce((n, s) => n + (s.endpoints[0]?.num_requests ?? 0), 0)).toBe(60);
      });

      test('a stopped service leaves discovery and stops answering', async () => {
        await open();
        const server = await world.connect();
        const client = await world.connect();
        const service = await server.addService({
          name: 'admin',
          version: '1.0.0',
          queue: 'admin-replicas',
          endpoints: [{ name: 'whoami', subject: 'nap.rpc.admin.whoami', handler: (req) => req.respond(bytes('me')) }],
        });
        expect((await client.discover('admin'))[0]?.endpoints[0]?.queue_group).toBe('admin-replicas');
        await service.stop();
        await expectAppError(client.request('nap.rpc.admin.whoami', bytes(''), { timeoutMs: 5000 }), 'SERVICE_UNAVAILABLE');
        expect(await client.discover('admin', 300)).toEqual([]);
      });

      test('a paused instance leaves the queue group but stays in discovery, paused; resume brings it back', async () => {
        await open();
        const [busA, busB, client] = await Promise.all([world.connect(), world.connect(), world.connect()]);
        const handledBy = { a: 0, b: 0 };
        const replica = (bus: TestBus, label: 'a' | 'b') =>
          bus.addService({
            name: 'studio',
            version: '1.0.0',
            metadata: { instance: label },
            endpoints: [
              {
                name: 'render',
                subject: 'nap.rpc.studio.render',
                handler: (req) => {
                  handledBy[label]++;
                  req.respond(bytes(label));
                },
              },
            ],
          });
        const a = await replica(busA, 'a');
        const b = await replica(busB, 'b');
        const runningId = a.id;
        expect(a.state).toBe('running');

        await a.pause();
        expect(a.state).toBe('paused');
        expect(a.id).not.toBe(runningId);
        const replies = await Promise.all(
          Array.from({ length: 20 }, () => client.request('nap.rpc.studio.render', bytes(''), { timeoutMs: 5000 })),
        );
        expect(replies.map((r) => text(r.data))).toEqual(Array(20).fill('b'));
        expect(handledBy.a).toBe(0);

        const instances = await client.discover('studio');
        expect(instances).toHaveLength(2);
        const paused = instances.find((i) => i.metadata.instance === 'a');
        // each registration of the instance is numbered: the paused one is its second
        expect(paused).toMatchObject({ id: a.id, endpoints: [], metadata: { instance: 'a', paused: 'true', registration: '2' } });
        expect(a.info).toEqual(paused);
        expect(instances.find((i) => i.metadata.instance === 'b')?.endpoints).toHaveLength(1);
        expect((await client.stats('studio')).find((s) => s.id === a.id)?.endpoints).toEqual([]);

        // with every replica paused nobody answers, at once
        await b.pause();
        await b.pause();
        await expectAppError(client.request('nap.rpc.studio.render', bytes(''), { timeoutMs: 60_000 }), 'SERVICE_UNAVAILABLE');
        expect(await client.discover('studio')).toHaveLength(2);

        await a.resume();
        await a.resume();
        expect(a.state).toBe('running');
        expect(text((await client.request('nap.rpc.studio.render', bytes(''), { timeoutMs: 5000 })).data)).toBe('a');
        const back = (await client.discover('studio')).find((i) => i.metadata.instance === 'a');
        expect(back?.metadata.paused).toBeUndefined();
        expect(back?.metadata.registration).toBe('3');
        expect(back?.endpoints).toEqual([{ name: 'render', subject: 'nap.rpc.studio.render', queue_group: 'studio' }]);

        // stopping a paused instance takes it out of discovery
        await b.stop();
        expect((await client.discover('studio')).map((i) => i.id)).toEqual([a.id]);
      });

      test('an instance registered paused takes no request until it resumes', async () => {
        await open();
        const [bus, client] = await Promise.all([world.connect(), world.connect()]);
        const registered = await bus.addService({
          name: 'mop',
          version: '1.0.0',
          paused: true,
          metadata: { instance: 'late' },
          endpoints: [{ name: 'run', subject: 'nap.rpc.mop.run', handler: (req) => req.respond(bytes('ran')) }],
        });
        expect(registered.state).toBe('paused');
        await expectAppError(client.request('nap.rpc.mop.run', bytes(''), { timeoutMs: 60_000 }), 'SERVICE_UNAVAILABLE');
        expect(await client.discover('mop')).toEqual([
          expect.objectContaining({ endpoints: [], metadata: { instance: 'late', paused: 'true', registration: '1' } }),
        ]);
        await registered.resume();
        expect(registered.state).toBe('running');
        expect(text((await client.request('nap.rpc.mop.run', bytes(''), { timeoutMs: 5000 })).data)).toBe('ran');
        await registered.stop();
      });

      test('pause waits for requests in flight and answers them; requests after it go elsewhere', async () => {
        await open();
        const server = await world.connect();
        const client = await world.connect();
        const gate = new Gate();
        const started = new Collector<string>();
        const registered = await server.addService({
          name: 'mop',
          version: '1.0.0',
          endpoints: [
            {
              name: 'run',
              subject: 'nap.rpc.mop.run',
              handler: (req) => {
                started.push(text(req.data));
                void gate.opened.then(() => req.respond(bytes(`done ${text(req.data)}`)));
              },
            },
          ],
        });
        const inFlight = client.request('nap.rpc.mop.run', bytes('first'), { timeoutMs: 10_000 });
        await started.waitFor(1);
        let pausedAt = 0;
        const pausing = registered.pause().then(() => {
          pausedAt = Date.now();
        });
        // once discovery shows only the paused registration, the endpoints have left the queue group
        await eventually('the instance to show paused, and only paused', async () => {
          const instances = await client.discover('mop', 300);
          return instances.length === 1 && instances[0]?.metadata.paused === 'true';
        });
        await expectAppError(client.request('nap.rpc.mop.run', bytes('late'), { timeoutMs: 5000 }), 'SERVICE_UNAVAILABLE');
        expect(pausedAt).toBe(0);
        const releasedAt = Date.now();
        gate.release();
        expect(text((await inFlight).data)).toBe('done first');
        await pausing;
        expect(pausedAt).toBeGreaterThanOrEqual(releasedAt);
        expect(started.items).toEqual(['first']);
      });

      test('registrations the services framework refuses fail with INTERNAL', async () => {
        await open();
        const bus = await world.connect();
        const endpoint = { name: 'op', subject: 'nap.rpc.x.op', handler: (req: IncomingRequest) => req.respond(bytes('')) };
        await expectAppError(bus.addService({ name: 'bad name', version: '1.0.0', endpoints: [endpoint] }), 'INTERNAL');
        await expectAppError(bus.addService({ name: 'x', version: 'one', endpoints: [endpoint] }), 'INTERNAL');
        await expectAppError(bus.addService({ name: 'x', version: '1.0.0', endpoints: [endpoint, endpoint] }), 'INTERNAL');
        await expectAppError(bus.discover('a.b'), 'INTERNAL');
      });
    });

    describe('durable events', () => {
      const subjectFor = (n: number): string => `nap.evt.workflow.job.j${n}.jobComplete`;

      async function publishAll(bus: Bus, from: number, to: number): Promise<number[]> {
        const seqs: number[] = [];
        for (let n = from; n <= to; n++) seqs.push((await bus.publishEvent(subjectFor(n), bytes(`event-${n}`), { n: String(n) })).seq);
        return seqs;
      }

      test('publishEvent returns increasing sequences; a new consumer with deliver all replays the past', async () => {
        await open();
        const bus = await world.connect();
        const seqs = await publishAll(bus, 1, 3);
        expect(seqs[1]).toBeGreaterThan(seqs[0] ?? Infinity);
        expect(seqs[2]).toBeGreaterThan(seqs[1] ?? Infinity);

        const before = Date.now();
        const got = new Collector<BusEvent>();
        const sub = await bus.consumeEvents('nap.evt.workflow.job.>', got.push, { deliver: 'all' });
        const live = await publishAll(bus, 4, 4);
        const events = await got.waitFor(4);

        expect(events.map((e) => e.seq)).toEqual([...seqs, ...live]);
        expect(events.map((e) => text(e.data))).toEqual(['event-1', 'event-2', 'event-3', 'event-4']);
        expect(events[0]?.subject).toBe(subjectFor(1));
        expect(events[0]?.headers).toEqual({ n: '1' });
        expect(events[0]?.timestamp).toBeLessThanOrEqual(before + 1000);
        expect(events[3]?.timestamp).toBeGreaterThan(before - 60_000);
        await sub.unsubscribe();
      });

      test('an event published from a Node Buffer the sender reuses, and a consumer that scribbles on what it got, change no other copy', async () => {
        await open();
        const bus = await world.connect();
        const data = Buffer.from('event-data');
        await bus.publishEvent(subjectFor(1), data);
        data.fill(120);
        const batch = Buffer.from('batch-data');
        await bus.publishEvents([{ subject: subjectFor(2), data: batch }]);
        batch.fill(120);
        // bytes handed over are kept as they are: still no consumer sees another's scribbles
        await bus.publishEvents([{ subject: subjectFor(3), data: Buffer.from('handed-over'), handOver: true }]);
        const scribbler = await bus.consumeEvents(
          'nap.evt.workflow.job.>',
          (e) => {
            e.data.fill(0);
          },
          { deliver: 'all' },
        );
        const got = new Collector<BusEvent>();
        const reader = await bus.consumeEvents('nap.evt.workflow.job.>', got.push, { deliver: 'all' });
        const events = await got.waitFor(3);
        expect(events.map((e) => text(e.data))).toEqual(['event-data', 'batch-data', 'handed-over']);
        await scribbler.unsubscribe();
        await reader.unsubscribe();
      });

      test("deliver 'new' sees only later events; startSeq starts there; the filter selects", async () => {
        await open();
        const bus = await world.connect();
        const seqs = await publishAll(bus, 1, 5);
        await bus.publishEvent('nap.evt.admin.account.a1.created', bytes('other'));

        const fresh = new Collector<BusEvent>();
        const fromThird = new Collector<BusEvent>();
        const completes = new Collector<BusEvent>();
        await bus.consumeEvents('nap.evt.workflow.>', fresh.push, { deliver: 'new' });
        await bus.consumeEvents('nap.evt.workflow.>', fromThird.push, { deliver: { startSeq: seqs[2] ?? 0 } });
        await bus.consumeEvents('nap.evt.*.job.*.jobComplete', completes.push, { deliver: 'all' });
        const later = await publishAll(bus, 6, 6);

        expect((await fresh.waitFor(1)).map((e) => e.seq)).toEqual(later);
        expect((await fromThird.waitFor(4)).map((e) => e.seq)).toEqual([...seqs.slice(2), ...later]);
        expect((await completes.waitFor(6)).map((e) => e.subject)).toEqual([1, 2, 3, 4, 5, 6].map(subjectFor));
      });

      test('a startSeq past the end of the stream (a position in an earlier life of it) starts at its first event', async () => {
        await open();
        const bus = await world.connect();
        const seqs = await publishAll(bus, 1, 2);
        const resumed = new Collector<BusEvent>();
        const last = seqs[1] ?? 0;
        await bus.consumeEvents('nap.evt.workflow.>', resumed.push, { deliver: { startSeq: last + 1_000 } });
        expect((await resumed.waitFor(2)).map((e) => e.seq)).toEqual(seqs);
        const later = await publishAll(bus, 3, 3);
        expect((await resumed.waitFor(3)).map((e) => e.seq)).toEqual([...seqs, ...later]);
        // the next sequence to come is not past the end: that consumer waits for it
        const next = new Collector<BusEvent>();
        await bus.consumeEvents('nap.evt.workflow.>', next.push, { deliver: { startSeq: (later[0] ?? 0) + 1 } });
        const newest = await publishAll(bus, 4, 4);
        expect((await next.waitFor(1)).map((e) => e.seq)).toEqual(newest);
      });

      test('startTimeMs starts at the first event stored at or after that time', async () => {
        await open();
        const bus = await world.connect();
        await publishAll(bus, 1, 2);
        const startTimeMs = Date.now() + 2;
        await eventually('the clock to pass startTimeMs', () => Date.now() > startTimeMs, { intervalMs: 1 });
        const later = await publishAll(bus, 3, 4);
        const got = new Collector<BusEvent>();
        await bus.consumeEvents('nap.evt.>', got.push, { deliver: { startTimeMs } });
        expect((await got.waitFor(2)).map((e) => e.seq)).toEqual(later);
        const sentinel = await publishAll(bus, 5, 5);
        expect((await got.waitFor(3)).map((e) => e.seq)).toEqual([...later, ...sentinel]);
      });

      test('a durable consumer resumes after re-subscribing without redelivering acked events', async () => {
        await open();
        const first = await world.connect();
        const seqs = await publishAll(first, 1, 3);
        const before = new Collector<number>();
        const sub = await first.consumeEvents('nap.evt.workflow.>', (e) => before.push(e.seq), {
          deliver: 'all',
          durableName: 'job-watcher',
        });
        await before.waitFor(3);
        await sub.unsubscribe();
        await first.close();

        const second = await world.connect();
        const later = await publishAll(second, 4, 5);
        const after = new Collector<number>();
        // deliver is ignored for a durable that exists: it resumes where it stopped
        await second.consumeEvents('nap.evt.workflow.>', (e) => after.push(e.seq), { deliver: 'all', durableName: 'job-watcher' });
        const sentinel = await publishAll(second, 6, 6);

        expect(before.items).toEqual(seqs);
        expect(await after.waitFor(3)).toEqual([...later, ...sentinel]);
      });

      test('replicas on one durable name share the stream: each event to exactly one of them', async () => {
        await open();
        const replicas = await Promise.all([world.connect(), world.connect()]);
        const byReplica = replicas.map(() => new Collector<number>());
        const all = new Collector<number>();
        for (const [i, bus] of replicas.entries()) {
          await bus.consumeEvents(
            'nap.evt.workflow.>',
            async (e) => {
              await sleep(2);
              byReplica[i]?.push(e.seq);
              all.push(e.seq);
            },
            { deliver: 'new', durableName: 'shared' },
          );
        }
        const publisher = await world.connect();
        const seqs = await publishAll(publisher, 1, 40);
        await all.waitFor(40);
        expect([...all.items].sort((a, b) => a - b)).toEqual(seqs);
        for (const c of byReplica) expect(c.items.length).toBeGreaterThan(0);
      });

      test('an event whose handler throws is delivered again; after maxDeliver it is given up', async () => {
        await open();
        const bus = await world.connect({ events: FAST_REDELIVERY });
        for (const durableName of [undefined, 'retrying']) {
          const attempts = new Map<string, number>();
          const done = new Collector<string>();
          const sub = await bus.consumeEvents(
            'nap.evt.studio.>',
            (e) => {
              const n = (attempts.get(e.subject) ?? 0) + 1;
              attempts.set(e.subject, n);
              if (e.subject.endsWith('.flaky') && n === 1) throw new Error('first delivery fails');
              if (e.subject.endsWith('.poison')) throw new Error('always fails');
              done.push(`${e.subject}#${n}`);
            },
            { deliver: 'new', durableName },
          );
          await bus.publishEvent('nap.evt.studio.doc.d1.flaky', bytes('1'));
          await bus.publishEvent('nap.evt.studio.doc.d2.poison', bytes('2'));
          await bus.publishEvent('nap.evt.studio.doc.d3.fine', bytes('3'));
          await done.waitFor(2);
          await eventually('poison event given up', () => attempts.get('nap.evt.studio.doc.d2.poison') === 3);
          expect([...done.items].sort()).toEqual(['nap.evt.studio.doc.d1.flaky#2', 'nap.evt.studio.doc.d3.fine#1']);
          await sub.unsubscribe();
          expect(attempts.get('nap.evt.studio.doc.d2.poison')).toBe(3);
        }
      });

      test('the stream drops the oldest events beyond maxBytes', async () => {
        await open({ stream: { maxBytes: 1000 } });
        const bus = await world.connect();
        const payload = 'x'.repeat(200);
        const seqs: number[] = [];
        for (let n = 1; n <= 10; n++) seqs.push((await bus.publishEvent(subjectFor(n), bytes(payload))).seq);
        const kept = await world.storedEvents();
        expect(kept).toBeGreaterThanOrEqual(1);
        expect(kept).toBeLessThan(5);
        const got = new Collector<number>();
        await bus.consumeEvents('nap.evt.>', (e) => got.push(e.seq), { deliver: 'all' });
        expect(await got.waitFor(kept)).toEqual(seqs.slice(10 - kept));
      });

      test('eventBounds answers the first and last sequence held and the last one matching a filter', async () => {
        await open({ stream: { maxBytes: 1000 } });
        const bus = await world.connect();
        expect(await bus.eventBounds('nap.evt.workflow.>')).toEqual({ firstSeq: 1, lastSeq: 0, lastMatchingSeq: 0 });
        const payload = 'x'.repeat(200);
        const seqs: number[] = [];
        for (let n = 1; n <= 10; n++) seqs.push((await bus.publishEvent(subjectFor(n), bytes(payload))).seq);
        const other = (await bus.publishEvent('nap.evt.studio.doc.d1.saved', bytes('s'))).seq;
        const kept = await world.storedEvents();
        const bounds = await bus.eventBounds('nap.evt.workflow.job.>');
        // the oldest went beyond maxBytes: the first held is the first a consumer of every event gets
        const first = new Collector<number>();
        await bus.consumeEvents('nap.evt.>', (e) => first.push(e.seq), { deliver: 'all' });
        expect((await first.waitFor(1))[0]).toBe(bounds.firstSeq);
        expect(bounds).toEqual({ firstSeq: other - kept + 1, lastSeq: other, lastMatchingSeq: seqs[9] });
        expect(bounds.firstSeq).toBeGreaterThan(1);
        expect((await bus.eventBounds('nap.evt.studio.>')).lastMatchingSeq).toBe(other);
        expect((await bus.eventBounds('nap.evt.mop.>')).lastMatchingSeq).toBe(0);
        await expectAppError(bus.eventBounds('nap.evt.bad..filter'), 'INTERNAL');
      });

      test('the stream drops events older than maxAgeMs', async () => {
        await open({ stream: { maxAgeMs: 1000 } });
        const bus = await world.connect();
        await publishAll(bus, 1, 2);
        expect(await world.storedEvents()).toBe(2);
        await eventually('events to expire', async () => (await world.storedEvents()) === 0, { timeoutMs: 15_000 });
        const got = new Collector<number>();
        await bus.consumeEvents('nap.evt.>', (e) => got.push(e.seq), { deliver: 'all' });
        const [seq] = await publishAll(bus, 3, 3);
        expect(await got.waitFor(1)).toEqual([seq]);
      });

      test('publishEvents stores events in order and stops at the first it cannot store, leaving the rest untried', async () => {
        await open();
        const bus = await world.connect();
        const got = new Collector<BusEvent>();
        await bus.consumeEvents('nap.evt.workflow.job.>', got.push, { deliver: 'new' });
        const stored = await bus.publishEvents(
          [1, 2, 3].map((n) => ({ subject: subjectFor(n), data: bytes(`event-${n}`), headers: { n: String(n) } })),
        );
        expect(stored.error).toBeUndefined();
        expect(stored.seqs).toHaveLength(3);
        expect(stored.seqs[1]).toBeGreaterThan(stored.seqs[0] ?? Infinity);
        expect(stored.seqs[2]).toBeGreaterThan(stored.seqs[1] ?? Infinity);
        const stopped = await bus.publishEvents([
          { subject: subjectFor(4), data: bytes('event-4') },
          { subject: 'nap.rpc.mop.x', data: bytes('not an event') },
          { subject: subjectFor(5), data: bytes('event-5') },
        ]);
        expect(stopped.seqs).toHaveLength(1);
        expect((stopped.error as { code?: string } | undefined)?.code).toBe('INTERNAL');
        expect(await bus.publishEvents([])).toEqual({ seqs: [] });
        const events = await got.waitFor(4);
        expect(events.map((e) => text(e.data))).toEqual(['event-1', 'event-2', 'event-3', 'event-4']);
        expect(events.map((e) => e.seq)).toEqual([...stored.seqs, ...stopped.seqs]);
        expect(events[0]?.headers).toEqual({ n: '1' });
        // nothing after the refused one was stored
        const last = await bus.publishEvent(subjectFor(6), bytes('event-6'));
        expect((await got.waitFor(5)).map((e) => e.seq)).toEqual([...stored.seqs, ...stopped.seqs, last.seq]);
      });

      test('event subjects, filters and durable names are checked; a durable keeps its filter', async () => {
        await open();
        const bus = await world.connect();
        await expectAppError(bus.publishEvent('nap.rpc.mop.x', bytes('')), 'INTERNAL');
        await expectAppError(bus.publishEvent('nap.evt.*', bytes('')), 'INTERNAL');
        await expectAppError(
          bus.consumeEvents('>', () => undefined, { deliver: 'all' }),
          'INTERNAL',
        );
        await expectAppError(
          bus.consumeEvents('nap.evt.>', () => undefined, { deliver: 'all', durableName: 'a.b' }),
          'INTERNAL',
        );
        await expectAppError(
          bus.consumeEvents('nap.evt.>', () => undefined, { deliver: { startSeq: 0 } }),
          'INTERNAL',
        );
        const sub = await bus.consumeEvents('nap.evt.mop.>', () => undefined, { deliver: 'all', durableName: 'keeper' });
        await sub.unsubscribe();
        await expectAppError(
          bus.consumeEvents('nap.evt.admin.>', () => undefined, { deliver: 'all', durableName: 'keeper' }),
          'CONFLICT',
        );
      });
    });

    describe('close', () => {
      test('close() drains: in-flight requests are answered, then the bus refuses new work', async () => {
        await open();
        const server = await world.connect();
        const client = await world.connect();
        const statuses: string[] = [];
        server.onStatus((s) => statuses.push(s));
        const gate = new Gate();
        const received = new Collector<string>();
        await server.addService({
          name: 'gateway-devices',
          version: '1.0.0',
          endpoints: [
            {
              name: 'send',
              subject: 'nap.rpc.gateway-devices.send',
              handler: (req) => {
                received.push(text(req.data));
                void gate.opened.then(() => req.respond(bytes(`sent ${text(req.data)}`)));
              },
            },
          ],
        });
        const news = new Collector<string>();
        server.subscribe('nap.news', (m) => news.push(text(m.data)));
        await server.flush();

        const pending = client.request('nap.rpc.gateway-devices.send', bytes('cmd'), { timeoutMs: 10_000 });
        await received.waitFor(1);
        expect(server.isConnected()).toBe(true);
        const closing = server.close();
        gate.release();

        expect(text((await pending).data)).toBe('sent cmd');
        await closing;
        expect(server.isConnected()).toBe(false);
        expect(statuses).toEqual(['disconnected']);
        await expectAppError(client.request('nap.rpc.gateway-devices.send', bytes('late'), { timeoutMs: 5000 }), 'SERVICE_UNAVAILABLE');
        await expectAppError(server.request('nap.rpc.x.y', bytes(''), { timeoutMs: 1000 }), 'SERVICE_UNAVAILABLE');
        expectThrowsAppError(() => server.publish('nap.news', bytes('x')), 'SERVICE_UNAVAILABLE');
        expectThrowsAppError(() => server.subscribe('nap.news', () => undefined), 'SERVICE_UNAVAILABLE');
        await expectAppError(server.addService({ name: 'late', version: '1.0.0', endpoints: [] }), 'SERVICE_UNAVAILABLE');
        await expectAppError(server.publishEvent('nap.evt.x.y', bytes('')), 'SERVICE_UNAVAILABLE');
        await server.close();
      });

      test('close() lets the event handler in hand finish and ack', async () => {
        await open();
        const bus = await world.connect();
        const gate = new Gate();
        const started = new Collector<number>();
        const finished = new Collector<number>();
        await bus.consumeEvents(
          'nap.evt.>',
          async (e) => {
            started.push(e.seq);
            await gate.opened;
            finished.push(e.seq);
          },
          { deliver: 'all', durableName: 'closer' },
        );
        const { seq } = await bus.publishEvent('nap.evt.mop.t.t1.done', bytes(''));
        await started.waitFor(1);
        const closing = bus.close();
        gate.release();
        await closing;
        expect(finished.items).toEqual([seq]);

        const again = await world.connect();
        const later = new Collector<number>();
        await again.consumeEvents('nap.evt.>', (e) => later.push(e.seq), { deliver: 'all', durableName: 'closer' });
        const next = await again.publishEvent('nap.evt.mop.t.t2.done', bytes(''));
        expect(await later.waitFor(1)).toEqual([next.seq]);
      });
    });
  });
}
