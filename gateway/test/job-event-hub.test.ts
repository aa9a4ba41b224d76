import { eventSubject } from '@nap/contracts';
import type { Caller, EventStreamFilter, JobAudience } from '@nap/contracts';
import { createMemoryBus } from '@nap/bus';
import type { MemoryBus } from '@nap/bus';
import { createLogger, createMetrics } from '@nap/telemetry';
import { eventually } from '@nap/testing';
import { JobEventHub } from '../src/job-event-hub';
import { DEFAULT_SINK_OPTIONS, sharedJoin } from '../src/sse-sink';
import type { SinkOptions } from '../src/sse-sink';
import { followFrames, openUnreadStream, readRestOfStream } from '../../test/support/sse';
import { jobAudiencesClient, serveJobEvents } from './support/job-event-hub';
import type { StreamCallers } from './support/job-event-hub';

/**
 * The gateway's one subscription behind every event stream: who sees what is decided once per job
 * and group set, the same bytes go to every client, and a client that does not read is dropped
 * with a retry line while the others get every event.
 */

const ALL: EventStreamFilter = { workflows: [], events: [], allJobs: false };
const caller = (id: string, groups: string[], roles: Caller['roles'] = ['operations']): Caller => ({ id, username: id, groups, roles });

interface Harness {
  bus: MemoryBus;
  hub: JobEventHub;
  /** A sample of the hub's metrics for one stream. */
  sample(name: string, stream: string): Promise<number | undefined>;
  url: string;
  /** Job ids the hub asked the audience of, call by call. */
  asked: string[][];
  callers: StreamCallers;
  stop(): Promise<void>;
}

async function harness(audiences: JobAudience[], sink: Partial<SinkOptions> = {}): Promise<Harness> {
  const bus = createMemoryBus();
  const metrics = createMetrics({ processMetrics: false });
  const asked: string[][] = [];
  const hub = new JobEventHub({
    bus,
    client: jobAudiencesClient(audiences, asked),
    logger: createLogger({ name: 'hub-test', level: 'silent' }),
    registry: metrics.registry,
    heartbeatMs: 60_000,
    sink: { ...DEFAULT_SINK_OPTIONS, ...sink },
  });
  const callers: StreamCallers = new Map();
  const server = await serveJobEvents(hub, callers);
  return {
    bus,
    hub,
    sample: async (name: string, stream: string) =>
      (await metrics.registry.getSingleMetric(name)?.get())?.values.find((v) => v.labels.stream === stream)?.value,
    url: server.url,
    asked,
    callers,
    async stop() {
      await hub.stop();
      await server.close();
      await bus.close();
    },
  };
}

/** An open stream that collects the raw frames it receives. */
async function follow(h: Harness, name: string): Promise<{ frames: string[]; close(): void }> {
  const frames: string[] = [];
  const { close } = await followFrames(`${h.url}/${name}`, (text) => frames.push(text));
  return { frames, close };
}

function publish(bus: MemoryBus, jobId: string, event: string, seq: number, extra: Record<string, unknown> = {}) {
  const payload = { jobId, name: 'wf', status: 'running', timestamp: Date.now(), seq, ...extra };
  return bus.publishEvent(eventSubject('workflow', 'job', jobId, event), Buffer.from(JSON.stringify(payload)));
}

const jobsOf = (frames: string[]) => frames.map((f) => /"jobId":"([^"]+)"/.exec(f)?.[1]).filter((id) => id !== undefined);

describe('the job event hub', () => {
  it('decides who sees a job once per job and group set: a client in group A never sees group B’s job', async () => {
    const h = await harness([
      { jobId: 'job-a', groups: ['A'], owner: 'alice' },
      { jobId: 'job-b', groups: ['B'], owner: 'bob', runAsId: 'bob' },
      { jobId: 'job-open', groups: [] },
    ]);
    try {
      for (let i = 0; i < 3; i++) h.callers.set(`a${i}`, { caller: caller(`a${i}`, ['A']), filter: ALL });
      for (let i = 0; i < 2; i++) h.callers.set(`b${i}`, { caller: caller(`b${i}`, ['B']), filter: ALL });
      // in group A, but started job-b: sees it as its owner
      h.callers.set('bob', { caller: caller('bob', ['A']), filter: ALL });
      h.callers.set('admin', { caller: caller('admin', [], ['admin']), filter: { ...ALL, allJobs: true } });
      const streams = new Map<string, Awaited<ReturnType<typeof follow>>>();
      for (const name of h.callers.keys()) streams.set(name, await follow(h, name));
      await eventually('seven clients connected', () => h.hub.clients === 7);

      for (const jobId of ['job-a', 'job-b', 'job-open']) {
        await publish(h.bus, jobId, 'jobStart', 1);
        await publish(h.bus, jobId, 'jobComplete', 2, { status: 'complete' });
      }
      const expected: Record<string, string[]> = {
        a0: ['job-a', 'job-a', 'job-open', 'job-open'],
        b0: ['job-b', 'job-b', 'job-open', 'job-open'],
        bob: ['job-a', 'job-a', 'job-b', 'job-b', 'job-open', 'job-open'],
        admin: ['job-a', 'job-a', 'job-b', 'job-b', 'job-open', 'job-open'],
      };
      await eventually('every event relayed', () => {
        for (const [name, jobs] of Object.entries(expected)) expect(jobsOf(streams.get(name)?.frames ?? [])).toEqual(jobs);
        return true;
      });
      for (const name of ['a1', 'a2']) expect(streams.get(name)?.frames).toEqual(streams.get('a0')?.frames);
      expect(streams.get('b1')?.frames).toEqual(streams.get('b0')?.frames);
      // asked once per job however many clients and groups follow it
      expect(h.asked.flat().sort()).toEqual(['job-a', 'job-b', 'job-open']);
      for (const s of streams.values()) s.close();
    } finally {
      await h.stop();
    }
  });

  it('with many clients, writes each burst once per group, coalesced, and every client gets every event once, in order', async () => {
    const h = await harness([{ jobId: 'job-g', groups: ['G'] }]);
    try {
      // past the number of clients from which writes are coalesced: admins and members of G
      for (let i = 0; i < 40; i++)
        h.callers.set(`admin${i}`, { caller: caller(`admin${i}`, [], ['admin']), filter: { ...ALL, allJobs: true } });
      for (let i = 0; i < 40; i++) h.callers.set(`g${i}`, { caller: caller(`g${i}`, ['G']), filter: ALL });
      const streams = await Promise.all([...h.callers.keys()].map((name) => follow(h, name)));
      await eventually('eighty clients connected', () => h.hub.clients === 80);
      for (let seq = 1; seq <= 30; seq++) await publish(h.bus, 'job-g', seq === 30 ? 'jobComplete' : 'taskComplete', seq);
      await eventually('every client got every event', () => streams.every((s) => s.frames.length === 30));
      const ids = (frames: string[]) => frames.map((f) => /^id: (.+)$/m.exec(f)?.[1]);
      for (const s of streams) expect(ids(s.frames)).toEqual(ids(streams[0]?.frames ?? []));
      expect(new Set(ids(streams[0]?.frames ?? [])).size).toBe(30);
      expect(jobsOf(streams[0]?.frames ?? [])).toEqual(Array.from({ length: 30 }, () => 'job-g'));
      for (const s of streams) s.close();
    } finally {
      await h.stop();
    }
  });

  it('sends a repeated job event (same seq) once, to every stream', async () => {
    const h = await harness([]);
    try {
      h.callers.set('admin', { caller: caller('admin', [], ['admin']), filter: { ...ALL, allJobs: true } });
      const stream = await follow(h, 'admin');
      await eventually('the client connected', () => h.hub.clients === 1);
      await publish(h.bus, 'job-r', 'jobStart', 1);
      await publish(h.bus, 'job-r', 'jobStart', 1);
      await publish(h.bus, 'job-r', 'jobComplete', 2);
      await eventually('the job ended', () => stream.frames.some((f) => f.includes('event: jobComplete')));
      expect(stream.frames.map((f) => /event: (\w+)/.exec(f)?.[1])).toEqual(['jobStart', 'jobComplete']);
      stream.close();
    } finally {
      await h.stop();
    }
  });

  it('drops a client that does not read, with a retry line, while the others get every event', async () => {
    const h = await harness([], { maxBufferedBytes: 256 * 1024, retryMs: 1_500, lingerMs: 60_000 });
    try {
      h.callers.set('admin', { caller: caller('admin', [], ['admin']), filter: { ...ALL, allJobs: true } });
      const reader = await follow(h, 'admin');
      // a client that sends its request and then reads nothing
      const stalled = await openUnreadStream(`${h.url}/admin`);
      await eventually('both clients connected', () => h.hub.clients === 2);
      expect(await h.sample('nap_event_stream_clients', 'events')).toBe(2);
      expect(await h.sample('nap_event_stream_clients_dropped_total', 'events')).toBe(0);

      // more than the kernel's socket buffers hold, so that bytes pile up in the process for the stalled
      // client; in bursts the reading client takes before the next (a burst over the bound drops anyone)
      const filler = 'x'.repeat(4_000);
      const events = 8_000;
      for (let i = 1; i <= events; i++) {
        await publish(h.bus, `job-${i % 50}`, 'taskStart', Math.floor(i / 50) + 1, { filler });
        if (i % 40 === 0) await eventually('the reading client kept up', () => reader.frames.length >= i);
      }
      await eventually('the stalled client dropped', () => h.hub.clients === 1);
      expect(await h.sample('nap_event_stream_clients', 'events')).toBe(1);
      expect(await h.sample('nap_event_stream_clients_dropped_total', 'events')).toBe(1);
      expect(await h.sample('nap_event_stream_clients', 'job')).toBe(0);
      expect(reader.frames.length).toBe(events);
      expect(reader.frames.every((f) => f.startsWith('id: '))).toBe(true);

      // the stalled client, once it reads, finds its last frames and the reconnect hint, then the end
      expect(await readRestOfStream(stalled)).toContain('retry: 1500\n');
      reader.close();
    } finally {
      await h.stop();
    }
  }, 90_000);
});

describe('sharedJoin', () => {
  it('makes the chunk of the same frames once, and another for other frames', () => {
    const [a, b, c] = ['id: 1\n\n', 'id: 2\n\n', 'id: 3\n\n'].map((t) => Buffer.from(t)) as [Buffer, Buffer, Buffer];
    const join = sharedJoin();
    const first = join([a, b]);
    expect(first.toString()).toBe('id: 1\n\nid: 2\n\n');
    expect(join([a, b])).toBe(first);
    // equal bytes but other buffers, another order, a longer list: made anew
    expect(join([Buffer.from(a), b])).not.toBe(first);
    expect(join([b, a]).toString()).toBe('id: 2\n\nid: 1\n\n');
    expect(join([a, b, c]).toString()).toBe('id: 1\n\nid: 2\n\nid: 3\n\n');
    // one flush's memory only
    expect(sharedJoin()([a, b])).not.toBe(first);
  });
});
