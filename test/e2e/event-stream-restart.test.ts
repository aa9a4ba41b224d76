import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { JobDocument } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { createAutomation, greetWorkflow, waitForJob } from '../support/automation';
import { readEvents } from '../support/sse';
import type { Frame } from '../support/sse';

/**
 * The job event stream across a restart of the standalone platform, whose event stream lives in
 * the process's memory: ids keep rising across the restart, so a client that resumes with the id
 * it saw last before it (the console does, with Last-Event-ID) gets the events of the new process
 * instead of waiting, silently, for the new numbering to reach its old id, after a `gap` event that
 * says the events of the first process after its id are no longer kept; a client resuming from an
 * id past anything the platform handed out (a data directory started afresh) gets them too.
 */

let dataDir: string;
let platform: TestPlatform | undefined;

beforeAll(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-event-restart-'));
});

afterAll(async () => {
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(p: TestPlatform, token: string, workflow: string): Promise<string> {
  const res = await p.http('POST', '/operations-manager/jobs/start', {
    token,
    body: { workflow, options: { variables: { who: workflow } } },
  });
  if (res.status !== 200) throw new Error(`start ${workflow}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { data: JobDocument }).data._id;
}

function follow(p: TestPlatform, token: string, lastEventId?: string): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  return fetch(`${p.url}/operations-manager/events?workflow=restart-greet`, { headers });
}

/** The frames up to the first jobComplete: those of the one job started while the stream is open. */
async function framesOf(res: Response): Promise<Frame[]> {
  const frames: Frame[] = [];
  await readEvents(res, (frame) => {
    frames.push(frame);
    return frame.event === 'jobComplete';
  });
  return frames;
}

it('a client resuming with an id from before a restart gets the events of the new process', async () => {
  const first = await startTestPlatform({ dataDir });
  platform = first;
  let token = await first.login();
  await createAutomation(first, token, greetWorkflow('restart-greet'));
  // a few jobs before the restart: the id the client keeps is well past the first ids of a new numbering
  for (let i = 0; i < 3; i += 1) await waitForJob(first, token, await start(first, token, 'restart-greet'));
  const seen = framesOf(await follow(first, token));
  const before = await start(first, token, 'restart-greet');
  const seenBefore = await seen;
  expect(seenBefore.map((f) => f.data.jobId)).toEqual([before, before, before, before]);
  const lastBefore = Number(seenBefore.at(-1)?.id);
  expect(Number.isInteger(lastBefore)).toBe(true);
  await first.stop();
  platform = undefined;

  const second = await startTestPlatform({ dataDir });
  platform = second;
  token = await second.login();
  const resumed = framesOf(await follow(second, token, String(lastBefore)));
  // a position no life of this data directory reached
  const fromElsewhere = framesOf(await follow(second, token, String(lastBefore + 1_000_000_000)));
  const after = await start(second, token, 'restart-greet');
  const [resumedFrames, gotElsewhere] = await Promise.all([resumed, fromElsewhere]);
  // what the first process published after that id, if anything, is gone with it: the client is told
  // so (a gap event, reason retention) and reads its jobs again rather than trust it saw everything
  const [gap, ...got] = resumedFrames;
  expect(gap).toMatchObject({ event: 'gap', data: { lastEventId: lastBefore, reason: 'retention' } });
  expect(Number(gap?.data.resumesAt)).toBeGreaterThan(lastBefore);
  for (const frames of [got, gotElsewhere]) {
    expect(frames.map((f) => `${f.event} ${String(f.data.jobId)}`)).toEqual(
      ['jobStart', 'taskStart', 'taskFinish', 'jobComplete'].map((event) => `${event} ${after}`),
    );
    expect(frames.every((f) => Number(f.id) > lastBefore)).toBe(true);
  }
});
