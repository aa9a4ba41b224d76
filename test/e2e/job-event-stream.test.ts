import { EVENTS, SECRET_MASK, eventSubject } from '@nap/contracts';
import type { JobDocument } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { createAutomation, greetWorkflow, waitForJob } from '../support/automation';
import { readEvents, streamEnd } from '../support/sse';
import type { Frame } from '../support/sse';

/**
 * Following every job event over HTTP: GET /operations-manager/events as server-sent events,
 * filtered by workflow and event, only the jobs the caller may see, resumable with Last-Event-ID;
 * and the AsyncAPI document that describes the events at GET /asyncapi.json.
 */

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
  await createAutomation(platform, token, greetWorkflow('stream-a'));
  await createAutomation(platform, token, greetWorkflow('stream-b'));
}, 60_000);

afterAll(async () => {
  await platform.stop();
});

async function start(workflow: string, as = token): Promise<string> {
  const res = await platform.http('POST', '/operations-manager/jobs/start', {
    token: as,
    body: { workflow, options: { variables: { who: workflow } } },
  });
  if (res.status !== 200) throw new Error(`start ${workflow}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { data: JobDocument }).data._id;
}

/**
 * Opens the stream. It resolves with the stream's headers, which the gateway sends once it has
 * subscribed to the events: whatever happens after it is on the stream.
 */
function follow(query: string, headers: Record<string, string> = {}, as = token): Promise<Response> {
  return fetch(`${platform.url}/operations-manager/events${query}`, { headers: { authorization: `Bearer ${as}`, ...headers } });
}

it('streams the job events of the chosen workflows and event types, with their stream position as id', async () => {
  const res = await follow('?workflow=stream-a&event=jobStart,jobComplete');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const frames: Frame[] = [];
  const reading = readEvents(res, (frame) => {
    frames.push(frame);
    return frames.length === 4;
  });
  const a1 = await start('stream-a');
  await waitForJob(platform, token, await start('stream-b'));
  await waitForJob(platform, token, a1);
  const a2 = await start('stream-a');
  await reading;
  expect(frames.map((f) => `${f.event} ${String(f.data.jobId)}`)).toEqual([
    `jobStart ${a1}`,
    `jobComplete ${a1}`,
    `jobStart ${a2}`,
    `jobComplete ${a2}`,
  ]);
  expect(frames.every((f) => f.data.name === 'stream-a')).toBe(true);
  const ids = frames.map((f) => Number(f.id));
  expect(ids.every((id, i) => Number.isInteger(id) && (i === 0 || id > (ids[i - 1] as number)))).toBe(true);
});

it('resumes after the Last-Event-ID it is given, losing nothing that happened meanwhile', async () => {
  const first = await follow('?workflow=stream-b');
  const seen: Frame[] = [];
  const job = await start('stream-b');
  await readEvents(first, (frame) => {
    seen.push(frame);
    return frame.event === 'jobStart';
  });
  const lastId = seen.at(-1)?.id ?? '';
  // while nobody listens, the job goes on to its end
  await waitForJob(platform, token, job);
  const resumed = await follow('?workflow=stream-b', { 'last-event-id': lastId });
  const after: Frame[] = [];
  await readEvents(resumed, (frame) => {
    after.push(frame);
    return frame.event === 'jobComplete';
  });
  expect(after.map((f) => f.event)).toEqual(['taskStart', 'taskFinish', 'jobComplete']);
  expect(after.every((f) => f.data.jobId === job && Number(f.id) > Number(lastId))).toBe(true);
});

it('sends a job event published twice (same seq) once, and masks secrets in payloads', async () => {
  const res = await follow('?workflow=stream-replayed');
  expect(res.status).toBe(200);
  const frames: Frame[] = [];
  const reading = readEvents(res, (frame) => {
    frames.push(frame);
    return frame.event === 'jobComplete';
  });
  // what an engine that died between publishing and recording it leaves: the same event again, under the same seq
  const publish = (event: string, seq: number, extra: Record<string, unknown> = {}) =>
    platform.bus.publishEvent(
      eventSubject('workflow', 'job', 'replayed-job-1', event),
      Buffer.from(
        JSON.stringify({ jobId: 'replayed-job-1', name: 'stream-replayed', status: 'running', timestamp: Date.now(), seq, ...extra }),
      ),
    );
  await publish('jobStart', 1, { api_token: 'hunter2-in-an-event' });
  await publish('jobStart', 1, { api_token: 'hunter2-in-an-event' });
  await publish('jobComplete', 2, { status: 'complete' });
  await reading;
  expect(frames.map((f) => `${f.event} ${String(f.data.seq)}`)).toEqual(['jobStart 1', 'jobComplete 2']);
  expect(JSON.stringify(frames)).not.toContain('hunter2');
  expect(frames[0]?.data.api_token).toBe(SECRET_MASK);
});

it('shows a caller only the jobs it may see, and refuses a bad filter before streaming', async () => {
  const admin = token;
  const group = await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name: 'stream-readers' } } });
  const groupId = (group.body as { data: { _id: string } }).data._id;
  await platform.http('PUT', `/user-management/groups/${groupId}/roles`, { token: admin, body: { roles: ['operations'] } });
  await platform.http('POST', '/user-management/accounts', {
    token: admin,
    body: { account: { username: 'stream-reader', password: 'stream-reader-pw', groups: [groupId] } },
  });
  const reader = await platform.login('stream-reader', 'stream-reader-pw');
  const hidden = await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name: 'others' } } });
  const hiddenId = (hidden.body as { data: { _id: string } }).data._id;

  const res = await follow('?event=jobStart', {}, reader);
  expect(res.status).toBe(200);
  const frames: Frame[] = [];
  const reading = readEvents(res, (frame) => {
    frames.push(frame);
    return frame.data.name === 'stream-b';
  });
  const secret = await platform.http('POST', '/operations-manager/jobs/start', {
    token: admin,
    body: { workflow: 'stream-a', options: { groups: [hiddenId], variables: { who: 'x' } } },
  });
  const secretId = (secret.body as { data: JobDocument }).data._id;
  const open = await start('stream-b', reader);
  await reading;
  expect(frames.map((f) => f.data.jobId)).toEqual([open]);
  expect(frames.some((f) => f.data.jobId === secretId)).toBe(false);

  const bad = await follow('?event=jobExploded');
  expect(bad.status).toBe(400);
  expect(await bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'query.event' }] });
  expect((await follow('', { 'last-event-id': 'yesterday' })).status).toBe(400);
  expect((await fetch(`${platform.url}/operations-manager/events`)).status).toBe(401);
});

it('ends the stream of a caller that loses access (logged out, taken out of its group, deactivated); reconnecting is refused', async () => {
  const admin = token;
  const group = await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name: 'revoked-readers' } } });
  const groupId = (group.body as { data: { _id: string } }).data._id;
  await platform.http('PUT', `/user-management/groups/${groupId}/roles`, { token: admin, body: { roles: ['operations'] } });
  const person = async (username: string) => {
    const made = await platform.http('POST', '/user-management/accounts', {
      token: admin,
      body: { account: { username, password: `${username}-pw`, groups: [groupId] } },
    });
    const body = made.body as { data?: { _id: string }; _id?: string };
    return { id: body.data?._id ?? body._id ?? '', token: await platform.login(username, `${username}-pw`) };
  };
  const changes: Record<string, (who: { id: string; token: string }) => Promise<{ status: number }>> = {
    'logged out': (who) => platform.http('GET', '/logout', { token: who.token }),
    'taken out of its group': (who) =>
      platform.http('PUT', `/user-management/accounts/${who.id}/groups`, { token: admin, body: { groups: [] } }),
    deactivated: (who) => platform.http('PATCH', `/authorization/accounts/${who.id}`, { token: admin, body: { inactive: true } }),
  };
  for (const [change, make] of Object.entries(changes)) {
    const who = await person(`revoked-${change.replace(/ /g, '-')}`);
    const all = await follow('', {}, who.token);
    expect({ change, status: all.status }).toEqual({ change, status: 200 });
    expect({ change, status: (await make(who)).status }).toEqual({ change, status: 200 });
    expect({ change, all: await streamEnd(all) }).toEqual({ change, all: 'ended' });
    // out of its group it holds no role any more
    const refused = change === 'taken out of its group' ? 403 : 401;
    expect({ change, reconnect: (await follow('', {}, who.token)).status }).toEqual({ change, reconnect: refused });
  }
}, 120_000);

it('serves the AsyncAPI document of the events without credentials', async () => {
  const res = await fetch(`${platform.url}/asyncapi.json`);
  expect(res.status).toBe(200);
  const doc = (await res.json()) as { asyncapi: string; channels: Record<string, { address: string }> };
  expect(doc.asyncapi).toBe('3.0.0');
  expect(Object.values(doc.channels).map((c) => c.address)).toEqual(EVENTS.map((e) => `nap.evt.${e.service}.${e.entity}.{id}.${e.event}`));
});
