import type { JobDocument } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { createAutomation, greetWorkflow, waitForJob } from '../support/automation';
import { readEvents } from '../support/sse';
import type { Frame } from '../support/sse';

/**
 * Resuming GET /operations-manager/events with a Last-Event-ID replays the stored events through
 * the same filter as the live stream: a caller sees again only the jobs it may see, whatever
 * position it resumes from (the stream's start, or one past its end, which starts there too).
 */
let platform: TestPlatform;
let admin: string;
let reader: string;
let hiddenGroup: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
  await createAutomation(platform, admin, greetWorkflow('resume-open'));
  await createAutomation(platform, admin, greetWorkflow('resume-hidden'));
  const group = async (name: string, roles: string[]) => {
    const res = await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name, roles } } });
    return (res.body as { data: { _id: string } }).data._id;
  };
  const readers = await group('resume-readers', ['operations']);
  hiddenGroup = await group('resume-others', ['operations']);
  const account = await platform.http('POST', '/user-management/accounts', {
    token: admin,
    body: { account: { username: 'resume-reader', password: 'password-123', groups: [readers] } },
  });
  if (account.status !== 200) throw new Error(`account: ${account.status} ${JSON.stringify(account.body)}`);
  reader = await platform.login('resume-reader', 'password-123');
}, 60_000);

afterAll(async () => {
  await platform?.stop();
});

async function start(workflow: string, groups?: string[]): Promise<string> {
  const res = await platform.http('POST', '/operations-manager/jobs/start', {
    token: admin,
    body: { workflow, options: { variables: { who: 'hidden-who-secret' }, ...(groups ? { groups } : {}) } },
  });
  if (res.status !== 200) throw new Error(`start ${workflow}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { data: JobDocument }).data._id;
}

function follow(headers: Record<string, string>, as: string): Promise<Response> {
  return fetch(`${platform.url}/operations-manager/events`, { headers: { authorization: `Bearer ${as}`, ...headers } });
}

it('a replay from the start, or from past the end, shows only the jobs the caller may see', async () => {
  const hidden = await start('resume-hidden', [hiddenGroup]);
  await waitForJob(platform, admin, hidden);
  const open = await start('resume-open');
  await waitForJob(platform, admin, open);

  for (const lastId of ['0', String(Number.MAX_SAFE_INTEGER - 1)]) {
    // the admin's replay has both: what the reader's lacks was there to be replayed
    for (const [who, token] of [
      ['admin', admin],
      ['reader', reader],
    ] as const) {
      const res = await follow({ 'last-event-id': lastId }, token);
      expect(res.status).toBe(200);
      const frames: Frame[] = [];
      await readEvents(res, (frame) => {
        frames.push(frame);
        return frame.event === 'jobComplete' && frame.data.jobId === open;
      });
      const jobs = [...new Set(frames.map((f) => f.data.jobId))];
      if (who === 'admin') expect({ lastId, who, jobs }).toEqual({ lastId, who, jobs: expect.arrayContaining([hidden, open]) });
      else {
        expect({ lastId, who, jobs }).toEqual({ lastId, who, jobs: [open] });
        expect(JSON.stringify(frames)).not.toContain('resume-hidden');
      }
    }
  }
});
