import { eventSubject } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { readEvents } from '../support/sse';
import type { Frame } from '../support/sse';

/**
 * GET /operations-manager/events resumed with a Last-Event-ID far behind: the stream goes back at
 * most 10,000 positions from its end. The client is told so first (a `gap` event with the position
 * the stream goes on at), then gets every event from there on, once and in order: it re-reads the
 * jobs it follows instead of the gateway replaying everything the stream holds for it.
 */
let platform: TestPlatform;
let admin: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
}, 60_000);

afterAll(async () => {
  await platform?.stop();
});

const WINDOW = 10_000;

it('a resume from further back than the window gets a gap event, then the events of the window', async () => {
  // more events than the window holds, of 100 jobs; the last one marks the end
  const seqs: number[] = [];
  const total = WINDOW + 2_000;
  for (let i = 0; i < total; i += 1_000) {
    const batch = Array.from({ length: Math.min(1_000, total - i) }, (_, k) => {
      const n = i + k;
      const jobId = `window-job-${n % 100}`;
      const payload = { jobId, name: 'window-wf', status: 'running', timestamp: Date.now(), seq: Math.floor(n / 100) + 1, n };
      return { subject: eventSubject('workflow', 'job', jobId, 'taskStart'), data: Buffer.from(JSON.stringify(payload)) };
    });
    const stored = await platform.bus.publishEvents(batch);
    expect(stored.error).toBeUndefined();
    seqs.push(...stored.seqs);
  }
  const last = seqs.at(-1) as number;

  for (const lastEventId of ['0', String(seqs[500])]) {
    const res = await fetch(`${platform.url}/operations-manager/events?workflow=window-wf`, {
      headers: { authorization: `Bearer ${admin}`, 'last-event-id': lastEventId },
    });
    expect(res.status).toBe(200);
    const frames: Frame[] = [];
    await readEvents(res, (frame) => {
      frames.push(frame);
      return frame.data.n === total - 1;
    });
    const [gap, ...replayed] = frames;
    expect(gap?.event).toBe('gap');
    const resumesAt = Number(gap?.data.resumesAt);
    // the window ends where the stream did when the client came (other services' events count too)
    expect(resumesAt).toBeGreaterThanOrEqual(last + 1 - WINDOW);
    expect(gap?.id).toBe(String(resumesAt - 1));
    expect(gap?.data.lastEventId).toBe(Number(lastEventId));
    expect(typeof gap?.data.message).toBe('string');
    const ids = replayed.map((f) => Number(f.id));
    expect(ids).toEqual(seqs.filter((seq) => seq >= resumesAt));
    expect(replayed.every((f) => f.event === 'taskStart' && f.data.name === 'window-wf')).toBe(true);
  }

  // within the window: no gap, every event after the id
  const res = await fetch(`${platform.url}/operations-manager/events?workflow=window-wf`, {
    headers: { authorization: `Bearer ${admin}`, 'last-event-id': String(seqs[total - 50]) },
  });
  const frames: Frame[] = [];
  await readEvents(res, (frame) => {
    frames.push(frame);
    return frame.data.n === total - 1;
  });
  expect(frames.map((f) => Number(f.id))).toEqual(seqs.slice(total - 49));
}, 60_000);
