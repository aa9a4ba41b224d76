import { eventPattern, eventSubject } from '@nap/contracts';
import type { Caller, EventStreamFilter, JobAudience } from '@nap/contracts';
import { createMemoryBus, createNatsBus } from '@nap/bus';
import type { Bus } from '@nap/bus';
import { createLogger } from '@nap/telemetry';
import { eventually, startNatsServer } from '@nap/testing';
import type { NatsServer } from '@nap/testing';
import { JobEventHub } from '../src/job-event-hub';
import type { ResumeOptions } from '../src/job-event-hub';
import { DEFAULT_SINK_OPTIONS } from '../src/sse-sink';
import { followFrames, openUnreadStream, readRestOfStream } from '../../test/support/sse';
import { jobAudiencesClient, serveJobEvents } from './support/job-event-hub';
import type { StreamCallers } from './support/job-event-hub';

/**
 * Streams resumed with Last-Event-ID, on the in-process bus and on NATS: from at most `window`
 * positions before the stream's end (further back, a `gap` event says where the stream goes on),
 * every event of the window once and in order whatever is published meanwhile, only the jobs the
 * caller may see, and a few replays of a caller at once (the others wait, open, for their turn).
 */

const ALL: EventStreamFilter = { workflows: [], events: [], allJobs: false };
const caller = (id: string, groups: string[], roles: Caller['roles'] = ['operations']): Caller => ({ id, username: id, groups, roles });
const admin = caller('admin', [], ['admin']);

/** A bus for one test, and what the test builds on it. */
interface World {
  bus: Bus;
  /** Has `close()` stop `stop` first (the latest registered first). */
  onClose(stop: () => Promise<void>): void;
  /** Stops what was built on the world, then its bus (and the bus's server). */
  close(): Promise<void>;
}

function worldOf(bus: Bus, closeBus: () => Promise<void>): World {
  const stops: (() => Promise<void>)[] = [];
  return {
    bus,
    onClose: (stop) => void stops.unshift(stop),
    async close() {
      for (const stop of stops.splice(0)) await stop();
      await closeBus();
    },
  };
}

interface Harness {
  bus: Bus;
  hub: JobEventHub;
  url: string;
  /** Job ids the hub asked the audience of, call by call. */
  asked: string[][];
  /** While set, asking for audiences waits for it. */
  gate: Promise<void> | undefined;
  callers: StreamCallers;
  stop(): Promise<void>;
}

async function harness(world: World, audiences: JobAudience[], resume: Partial<ResumeOptions>): Promise<Harness> {
  const asked: string[][] = [];
  const callers: StreamCallers = new Map();
  const h = { bus: world.bus, asked, gate: undefined, callers } as unknown as Harness;
  const hub = new JobEventHub({
    bus: world.bus,
    client: jobAudiencesClient(audiences, asked, () => h.gate),
    logger: createLogger({ name: 'resume-test', level: 'silent' }),
    heartbeatMs: 60_000,
    sink: DEFAULT_SINK_OPTIONS,
    resume,
  });
  const server = await serveJobEvents(hub, callers);
  Object.assign(h, {
    hub,
    url: server.url,
    async stop() {
      await hub.stop();
      await server.close();
    },
  });
  world.onClose(() => h.stop());
  return h;
}

interface Frame {
  id: number | undefined;
  event: string;
  data: Record<string, unknown>;
}

/** An open stream that collects the frames it receives (comments left out). */
async function follow(h: Harness, name: string, lastEventId?: number): Promise<{ frames: Frame[]; close(): void }> {
  const headers: Record<string, string> = lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) };
  const frames: Frame[] = [];
  const { close } = await followFrames(
    `${h.url}/${name}`,
    (text) => {
      if (text.startsWith(':')) return;
      const id = /^id: (\d+)$/m.exec(text)?.[1];
      frames.push({
        id: id === undefined ? undefined : Number(id),
        event: /^event: (.+)$/m.exec(text)?.[1] ?? 'message',
        data: JSON.parse(/^data: (.+)$/m.exec(text)?.[1] ?? '{}') as Record<string, unknown>,
      });
    },
    headers,
  );
  return { frames, close };
}

/** Publishes one event of each job in turn, `count` in all; answers their stream positions. */
async function publish(bus: Bus, jobs: readonly string[], count: number, from = 0, extra: Record<string, unknown> = {}): Promise<number[]> {
  const seqs: number[] = [];
  for (let i = from; i < from + count; i++) {
    const jobId = jobs[i % jobs.length] as string;
    const payload = { jobId, name: 'wf', status: 'running', timestamp: Date.now(), seq: Math.floor(i / jobs.length) + 1, n: i, ...extra };
    seqs.push((await bus.publishEvent(eventSubject('workflow', 'job', jobId, 'taskStart'), Buffer.from(JSON.stringify(payload)))).seq);
  }
  return seqs;
}

const events = (frames: Frame[]) => frames.filter((f) => f.event !== 'gap');

/** The in-process bus and NATS (a real nats-server), each with the event stream's limits given. */
function worlds(stream: { maxBytes?: number } = {}): [string, () => Promise<World>][] {
  return [
    [
      'the in-process bus',
      async () => {
        const bus = createMemoryBus({ stream });
        return worldOf(bus, () => bus.close());
      },
    ],
    [
      'NATS',
      async () => {
        const server: NatsServer = await startNatsServer({ jetstream: true });
        const bus = await createNatsBus({ servers: server.url, name: 'resume-test', stream });
        return worldOf(bus, async () => {
          await bus.close();
          await server.stop();
        });
      },
    ],
  ];
}

const buses = worlds();
/** Streams that keep about the last 20 of the test's events (about 200 bytes each as JetStream counts them). */
const limitedBuses = worlds({ maxBytes: 4_000 });

describe.each(limitedBuses)('a resumed stream on %s whose events the stream no longer keeps', (_name, createWorld) => {
  let world: World;
  let h: Harness | undefined;
  beforeEach(async () => {
    world = await createWorld();
  });
  // closes the test's harness too
  afterEach(() => world.close());

  it('gets a gap event saying they are no longer kept, then every event still kept; one resuming from a kept event gets none', async () => {
    h = await harness(world, [], { window: 1_000 });
    h.callers.set('admin', { caller: admin, filter: { ...ALL, allJobs: true } });
    const seqs = await publish(world.bus, ['job-1', 'job-2'], 60);
    const bounds = await world.bus.eventBounds(eventPattern('workflow', 'job'));
    // the stream's limit removed the first events, not the last
    expect(bounds.firstSeq).toBeGreaterThan(seqs[1] as number);
    expect(bounds.firstSeq).toBeLessThan(seqs.at(-1) as number);
    const kept = seqs.filter((s) => s >= bounds.firstSeq);

    const stream = await follow(h, 'admin', seqs[0]);
    await eventually('the kept events replayed', () => events(stream.frames).at(-1)?.id === seqs.at(-1));
    const [gap, ...replayed] = stream.frames;
    expect(gap).toEqual({
      id: bounds.firstSeq - 1,
      event: 'gap',
      data: expect.objectContaining({ lastEventId: seqs[0], resumesAt: bounds.firstSeq, reason: 'retention' }),
    });
    expect(String(gap?.data.message)).toContain(`Events after ${seqs[0]} and before ${bounds.firstSeq} are no longer kept`);
    expect(replayed.map((f) => f.id)).toEqual(kept);
    stream.close();

    // the gap event's id resumes without a gap: nothing was lost after it
    const again = await follow(h, 'admin', bounds.firstSeq - 1);
    await eventually('the kept events replayed again', () => events(again.frames).at(-1)?.id === seqs.at(-1));
    expect(again.frames.map((f) => f.id)).toEqual(kept);
    again.close();
  });
});

describe.each(buses)('resumed job event streams on %s', (_name, createWorld) => {
  let world: World;
  let h: Harness | undefined;
  beforeEach(async () => {
    world = await createWorld();
  });
  // closes the test's harness too
  afterEach(() => world.close());

  it('a resume from before the window gets a gap event, then every event from the window on, once and in order', async () => {
    h = await harness(world, [], { window: 10 });
    h.callers.set('admin', { caller: admin, filter: { ...ALL, allJobs: true } });
    // another kind of event between them: positions count every event of the stream
    const seqs = await publish(world.bus, ['job-1', 'job-2'], 20);
    const other = (await world.bus.publishEvent('nap.evt.studio.doc.d1.saved', Buffer.from('{}'))).seq;
    seqs.push(...(await publish(world.bus, ['job-1', 'job-2'], 5, 20)));
    const last = seqs.at(-1) as number;
    const resumesAt = last + 1 - 10;

    const stream = await follow(h, 'admin', 0);
    await eventually('the window replayed', () => events(stream.frames).at(-1)?.id === last);
    const [gap, ...replayed] = stream.frames;
    expect(gap).toEqual({ id: resumesAt - 1, event: 'gap', data: expect.objectContaining({ lastEventId: 0, resumesAt }) });
    expect(String(gap?.data.message)).toContain(`before ${resumesAt}`);
    expect(replayed.map((f) => f.id)).toEqual(seqs.filter((s) => s >= resumesAt));
    expect(replayed.map((f) => f.id)).not.toContain(other);

    // and then live: the events that follow come once each
    const later = await publish(world.bus, ['job-1', 'job-2'], 6, 25);
    await eventually('the live events', () => events(stream.frames).at(-1)?.id === later.at(-1));
    expect(events(stream.frames).map((f) => f.id)).toEqual([...seqs.filter((s) => s >= resumesAt), ...later]);
    expect(h.hub.replaying).toEqual({ running: 0, waiting: 0 });
    stream.close();
  });

  it('a position past the end of the stream (an earlier life of it) starts at the window, with a gap event', async () => {
    h = await harness(world, [], { window: 5 });
    h.callers.set('admin', { caller: admin, filter: { ...ALL, allJobs: true } });
    const seqs = await publish(world.bus, ['job-1'], 12);
    const stream = await follow(h, 'admin', (seqs.at(-1) as number) + 1_000);
    await eventually('the window replayed', () => events(stream.frames).at(-1)?.id === seqs.at(-1));
    expect(stream.frames[0]).toMatchObject({ event: 'gap', id: seqs[6], data: { resumesAt: seqs[7] } });
    expect(events(stream.frames).map((f) => f.id)).toEqual(seqs.slice(7));
    stream.close();
  });

  it('a resume within the window gets every event after its id once, in order, while events keep coming', async () => {
    h = await harness(world, [], { window: 1_000 });
    h.callers.set('admin', { caller: admin, filter: { ...ALL, allJobs: true } });
    const jobs = ['job-1', 'job-2', 'job-3'];
    const before = await publish(world.bus, jobs, 300);
    const lastSeen = before[99] as number;
    // published while the stream resumes: the replay meets the live events somewhere among them
    const publishing = publish(world.bus, jobs, 300, 300);
    const stream = await follow(h, 'admin', lastSeen);
    const during = await publishing;
    const expected = [...before.slice(100), ...during];
    await eventually('every event', () => stream.frames.at(-1)?.id === expected.at(-1), { timeoutMs: 20_000 });
    expect(stream.frames.every((f) => f.event === 'taskStart')).toBe(true);
    expect(stream.frames.map((f) => f.id)).toEqual(expected);
    await eventually('the replay ended', () => h?.hub.replaying.running === 0);
    stream.close();
  });

  it('replays only the jobs the caller may see, as the live stream does, asking who may see them a batch at a time', async () => {
    h = await harness(
      world,
      [
        { jobId: 'job-a', groups: ['A'] },
        { jobId: 'job-b', groups: ['B'], owner: 'bob' },
        { jobId: 'job-open', groups: [] },
      ],
      { window: 1_000 },
    );
    h.callers.set('a', { caller: caller('a', ['A']), filter: ALL });
    h.callers.set('bob', { caller: caller('bob', ['A']), filter: ALL });
    h.callers.set('b-open', { caller: caller('b', ['B']), filter: { ...ALL, workflows: ['wf'], events: ['taskStart'] } });
    h.callers.set('admin', { caller: admin, filter: { ...ALL, allJobs: true } });
    // job-gone does not exist: only callers who see every job see its events
    const jobs = ['job-a', 'job-b', 'job-open', 'job-gone'];
    const seqs = await publish(world.bus, jobs, 40);
    const jobOf = new Map(seqs.map((seq, i) => [seq, jobs[i % jobs.length]]));
    const expected: Record<string, string[]> = {
      a: ['job-a', 'job-open'],
      bob: ['job-a', 'job-b', 'job-open'],
      'b-open': ['job-b', 'job-open'],
      admin: jobs,
    };
    for (const [name, visible] of Object.entries(expected)) {
      const asked = h.asked.length;
      const stream = await follow(h, name, 0);
      const want = seqs.filter((seq) => visible.includes(jobOf.get(seq) as string));
      await eventually(`${name}'s replay`, () => stream.frames.at(-1)?.id === want.at(-1));
      expect({ name, ids: stream.frames.map((f) => f.id) }).toEqual({ name, ids: want });
      expect(stream.frames.every((f) => visible.includes(f.data.jobId as string))).toBe(true);
      // each job asked about at most once in a replay (those the live stream knows not at all), several at a time
      const calls = h.asked.slice(asked);
      expect(calls.flat().sort()).toEqual([...new Set(calls.flat())].sort());
      if (world.bus.kind === 'memory') expect(calls.length).toBeLessThanOrEqual(1);
      if (name === 'a' && world.bus.kind === 'memory') expect(calls).toEqual([expect.arrayContaining(jobs)]);
      // the live events that follow are filtered the same way
      const [live] = await publish(world.bus, ['job-b'], 1, 100 + seqs.length);
      if (visible.includes('job-b')) await eventually(`${name} sees job-b live`, () => stream.frames.at(-1)?.id === live);
      stream.close();
      await eventually('the stream closed', () => h?.hub.clients === 0);
      seqs.push(live as number);
      jobOf.set(live as number, 'job-b');
    }
  });

  it('runs a few replays of a caller at once: the others wait, open, for their turn; other callers do not wait for them', async () => {
    h = await harness(world, [{ jobId: 'job-1', groups: [] }], { window: 1_000, perCaller: 1, atOnce: 2 });
    h.callers.set('alice', { caller: caller('alice', ['A']), filter: ALL });
    h.callers.set('bob', { caller: caller('bob', ['A']), filter: ALL });
    h.callers.set('carol', { caller: caller('carol', ['A']), filter: ALL });
    const seqs = await publish(world.bus, ['job-1'], 5);
    // asking who may see job-1 waits: each replay holds its turn meanwhile
    let open: () => void = () => undefined;
    h.gate = new Promise<void>((resolve) => (open = resolve));

    const first = await follow(h, 'alice', 0);
    await eventually('alice replays', () => h?.hub.replaying.running === 1);
    const second = await follow(h, 'alice', 0);
    await eventually('alice’s second stream waits', () => h?.hub.replaying.waiting === 1);
    const bob = await follow(h, 'bob', 0);
    await eventually('bob replays beside alice', () => h?.hub.replaying.running === 2);
    // the gateway runs two at once: carol waits too
    const carol = await follow(h, 'carol', 0);
    await eventually('carol waits', () => h?.hub.replaying.waiting === 2);
    // a waiting stream that leaves gives up its turn
    const third = await follow(h, 'alice', 0);
    await eventually('three wait', () => h?.hub.replaying.waiting === 3);
    third.close();
    await eventually('two wait', () => h?.hub.replaying.waiting === 2);
    expect(second.frames).toEqual([]);
    expect(carol.frames).toEqual([]);

    open();
    h.gate = undefined;
    for (const stream of [first, second, bob, carol]) {
      await eventually('every replay', () => stream.frames.at(-1)?.id === seqs.at(-1));
      expect(stream.frames.map((f) => f.id)).toEqual(seqs);
    }
    await eventually('none runs or waits', () => h?.hub.replaying.running === 0 && h.hub.replaying.waiting === 0);
    // and every stream is live now
    const [live] = await publish(world.bus, ['job-1'], 1, 5);
    for (const stream of [first, second, bob, carol]) await eventually('the live event', () => stream.frames.at(-1)?.id === live);
    for (const stream of [first, second, bob, carol]) stream.close();
  });

  it('drops a resumed client that takes nothing of its replay, with a retry line, and its turn goes to the next', async () => {
    h = await harness(world, [], { window: 100_000, perCaller: 1, stallMs: 3_000 });
    h.callers.set('admin', { caller: admin, filter: { ...ALL, allJobs: true } });
    // more than the kernel's socket buffers hold
    const seqs = await publish(world.bus, ['job-1', 'job-2'], 4_000, 0, { filler: 'x'.repeat(4_000) });
    const stalled = await openUnreadStream(`${h.url}/admin`, { 'Last-Event-ID': '0' });
    await eventually('the stalled client replays', () => h?.hub.replaying.running === 1);
    const next = await follow(h, 'admin', 0);
    await eventually('the stalled client dropped, the next replays', () => h?.hub.clients === 1 && h.hub.replaying.waiting === 0, {
      timeoutMs: 30_000,
    });
    await eventually('the next got every event', () => next.frames.at(-1)?.id === seqs.at(-1), { timeoutMs: 30_000 });
    expect(next.frames.map((f) => f.id)).toEqual(seqs);
    expect(await readRestOfStream(stalled)).toContain('retry: ');
    next.close();
  }, 90_000);

  it('a replay that is left gives up its turn', async () => {
    h = await harness(world, [{ jobId: 'job-1', groups: [] }], { window: 1_000, perCaller: 1 });
    h.callers.set('alice', { caller: caller('alice', ['A']), filter: ALL });
    const seqs = await publish(world.bus, ['job-1'], 3);
    let open: () => void = () => undefined;
    h.gate = new Promise<void>((resolve) => (open = resolve));
    const left = await follow(h, 'alice', 0);
    await eventually('alice replays', () => h?.hub.replaying.running === 1);
    const next = await follow(h, 'alice', 0);
    await eventually('the next waits', () => h?.hub.replaying.waiting === 1);
    left.close();
    await eventually('the next replays', () => h?.hub.replaying.waiting === 0 && h.hub.replaying.running === 1);
    open();
    h.gate = undefined;
    await eventually('its replay', () => next.frames.at(-1)?.id === seqs.at(-1));
    expect(next.frames.map((f) => f.id)).toEqual(seqs);
    next.close();
  });
});
