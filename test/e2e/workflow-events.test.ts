import { eventSubject } from '@nap/contracts';
import type { JobDocument } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually, task, workflowDocument } from '@nap/testing';
import { readEvents } from '../support/sse';
import type { Frame } from '../support/sse';

/**
 * Following one job live: GET /operations-manager/jobs/:jobId/events as server-sent events, through
 * the whole platform. The first event is the job as it is; then the job's events until it ends.
 */

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
  const res = await platform.http('POST', '/automation-studio/automations', {
    token,
    body: {
      automation: workflowDocument(
        'sse-manual',
        {
          v1: task(
            'ViewData',
            { header: 'h', message: 'm', body: 'b', variables: '', btn_success: 'ok', btn_failure: '' },
            {},
            { type: 'manual' },
          ),
          n2: task('newVariable', { name: 'done', value: true }, { value: null }, { type: 'operation' }),
        },
        [
          ['workflow_start', 'v1'],
          ['v1', 'n2'],
          ['n2', 'workflow_end'],
        ],
      ),
    },
  });
  expect(res.status).toBe(200);
});

afterAll(async () => {
  await platform.stop();
});

/** Waits until the manual task v1 of the job waits for a person. */
async function v1Running(jobId: string): Promise<void> {
  await eventually(
    'v1 starting',
    async () =>
      ((await platform.http('GET', `/operations-manager/jobs/${jobId}`, { token })).body as { data: JobDocument }).data.tasks.v1?.status ===
      'running',
    { timeoutMs: 10_000 },
  );
}

it('streams the job as its first event, then its events until it ends', async () => {
  const started = await platform.http('POST', '/workflow_engine/startJobWithOptions/sse-manual', { token, body: { options: {} } });
  const jobId = (started.body as JobDocument)._id;
  await v1Running(jobId);
  const res = await fetch(`${platform.url}/operations-manager/jobs/${jobId}/events`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const frames: Frame[] = [];
  const reading = readEvents(res, (frame) => {
    frames.push(frame);
    if (frames.length === 1) {
      void (async () => {
        // events come at least once: a redelivered taskStart of v1 (seq 2, after jobStart) is sent to the client once at most
        const again = {
          jobId,
          name: 'sse-manual',
          status: 'running',
          timestamp: Date.now(),
          seq: 2,
          taskId: 'v1',
          taskName: 'ViewData',
          taskStatus: 'running',
        };
        for (let i = 0; i < 2; i += 1)
          await platform.bus.publishEvent(eventSubject('workflow', 'job', jobId, 'taskStart'), Buffer.from(JSON.stringify(again)));
        await platform.http('POST', `/operations-manager/jobs/${jobId}/tasks/v1/finish`, { token, body: { variables: {} } });
      })();
    }
  });
  await reading;
  expect(frames[0]).toMatchObject({ event: 'snapshot', data: { _id: jobId, status: 'running', tasks: { v1: { status: 'running' } } } });
  const names = frames.slice(1).map((f) => `${f.event}${f.data.taskId ? `:${String(f.data.taskId)}` : ''}`);
  // events follow the store write they describe, so v1's taskStart may still be on its way when the
  // snapshot (which already shows v1 running) is read: the stream may repeat it, never lose one
  if (names[0] === 'taskStart:v1') names.shift();
  expect(names).toEqual(['taskFinish:v1', 'taskStart:n2', 'taskFinish:n2', 'jobComplete']);
  expect(frames.at(-1)).toMatchObject({
    data: { jobId, name: 'sse-manual', status: 'complete', finishState: 'complete', timestamp: expect.any(Number), seq: 6 },
  });
  // the id of each event is its seq in the job's stream: increasing, each once
  const ids = frames.slice(1).map((f) => Number(f.id));
  expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
  expect(ids.at(-1)).toBe(6);
});

it('ends at once for a job that already ended, and answers errors as JSON before streaming', async () => {
  const unauth = await fetch(`${platform.url}/operations-manager/jobs/abc/events`);
  expect(unauth.status).toBe(401);
  const missing = await fetch(`${platform.url}/operations-manager/jobs/ffffffffffffffffffffffff/events`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(missing.status).toBe(404);
  expect(await missing.json()).toMatchObject({ code: 'JOB_NOT_FOUND' });
  const jobs = (await platform.http('GET', '/operations-manager/jobs?equals[status]=complete&limit=1', { token })).body as {
    items: JobDocument[];
  };
  const done = jobs.items[0] as JobDocument;
  const res = await fetch(`${platform.url}/operations-manager/jobs/${done._id}/events`, { headers: { authorization: `Bearer ${token}` } });
  const frames: Frame[] = [];
  await readEvents(res, (f) => void frames.push(f));
  expect(frames).toHaveLength(1);
  expect(frames[0]).toMatchObject({ event: 'snapshot', data: { _id: done._id, status: 'complete' } });
});

it('masks secrets wherever a job is returned or streamed: job variables, a manual task finished with a secret', async () => {
  const secret = 'hunter2-never-shown';
  const started = await platform.http('POST', '/workflow_engine/startJobWithOptions/sse-manual', {
    token,
    body: { options: { variables: { device_password: secret, api_token: secret, site: 'ams' } } },
  });
  expect(started.status).toBe(200);
  expect(JSON.stringify(started.body)).not.toContain(secret);
  const jobId = (started.body as JobDocument)._id;
  expect((started.body as JobDocument).variables).toMatchObject({ device_password: '********', api_token: '********', site: 'ams' });
  await v1Running(jobId);
  const res = await fetch(`${platform.url}/operations-manager/jobs/${jobId}/events`, { headers: { authorization: `Bearer ${token}` } });
  const frames: Frame[] = [];
  const reading = readEvents(res, (frame) => {
    frames.push(frame);
    if (frames.length === 1)
      void platform.http('POST', `/operations-manager/jobs/${jobId}/tasks/v1/finish`, { token, body: { variables: { password: secret } } });
  });
  await reading;
  expect(frames.at(-1)?.event).toBe('jobComplete');
  expect(JSON.stringify(frames)).not.toContain(secret);
  for (const route of [
    `/operations-manager/jobs/${jobId}`,
    `/workflow_engine/getJobShallow/${jobId}`,
    '/operations-manager/jobs?limit=50',
    `/operations-manager/tasks?equals[job._id]=${jobId}`,
  ]) {
    const answer = await platform.http('GET', route, { token });
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.body)).not.toContain(secret);
  }
});

it('masks the variables a workflow inputSchema declares secret (format password, writeOnly), and every copy of their values', async () => {
  // names the secret policy does not know: only the schema says they are secrets
  const key = 'k3y-only-the-schema-knows';
  const pin = 'pin-4711-in-a-list';
  const created = await platform.http('POST', '/automation-studio/automations', {
    token,
    body: {
      automation: {
        ...workflowDocument(
          'declared-secrets',
          {
            // a manual task keeps the values it was given (its resolved incoming): the key, the pins
            v1: task(
              'ViewData',
              { header: 'h', message: 'm', body: '$var.job.adminKey', variables: '$var.job.vault', btn_success: 'ok', btn_failure: '' },
              {},
              { type: 'manual' },
            ),
            n2: task('stringConcat', { str: 'key=', stringN: '$var.job.adminKey' }, { combinedStrings: '$var.job.line' }),
          },
          [
            ['workflow_start', 'v1'],
            ['v1', 'n2'],
            ['n2', 'workflow_end'],
          ],
        ),
        inputSchema: {
          type: 'object',
          properties: {
            adminKey: { type: 'string', format: 'password' },
            vault: {
              type: 'object',
              properties: { pins: { type: 'array', items: { type: 'string', writeOnly: true } }, site: { type: 'string' } },
            },
          },
        },
      },
    },
  });
  expect(created.status).toBe(200);
  const started = await platform.http('POST', '/workflow_engine/startJobWithOptions/declared-secrets', {
    token,
    body: { options: { variables: { adminKey: key, vault: { pins: [pin, 'ab'], site: 'ams' } } } },
  });
  expect(started.status).toBe(200);
  const jobId = (started.body as JobDocument)._id;
  // a short value (under 4 characters) is masked where it is declared, and not searched for elsewhere
  expect((started.body as JobDocument).variables).toMatchObject({
    adminKey: '********',
    vault: { pins: ['********', '********'], site: 'ams' },
  });
  expect((started.body as JobDocument & { secretInputs?: unknown }).secretInputs).toBeUndefined();
  await v1Running(jobId);
  const shown = async (): Promise<unknown[]> => {
    const answers: unknown[] = [];
    for (const route of [
      `/operations-manager/jobs/${jobId}`,
      `/workflow_engine/getJobShallow/${jobId}`,
      `/operations-manager/jobs?equals[_id]=${jobId}`,
      `/operations-manager/jobs?equals[_id]=${jobId}&include=tasks`,
      `/operations-manager/jobs?equals[_id]=${jobId}&include=variables.vault`,
      `/operations-manager/tasks?equals[job._id]=${jobId}`,
    ]) {
      const answer = await platform.http('GET', route, { token });
      expect(answer.status).toBe(200);
      answers.push(answer.body);
    }
    const list = await platform.http('POST', '/workflow_engine/getJobList/all', { token, body: { options: { filter: { _id: jobId } } } });
    expect(list.status).toBe(200);
    return [...answers, list.body];
  };
  const running = await shown();
  // the manual task was given the key and the pins: shown masked in its resolved incoming
  const resolved = (running[0] as { data: JobDocument }).data.tasks.v1?.variables as { resolved?: Record<string, unknown> };
  expect(resolved.resolved).toMatchObject({ body: '********', variables: { pins: ['********', 'ab'], site: 'ams' } });
  const res = await fetch(`${platform.url}/operations-manager/jobs/${jobId}/events`, { headers: { authorization: `Bearer ${token}` } });
  const frames: Frame[] = [];
  const reading = readEvents(res, (frame) => {
    frames.push(frame);
    if (frames.length === 1)
      void platform.http('POST', `/operations-manager/jobs/${jobId}/tasks/v1/finish`, { token, body: { variables: {} } });
  });
  await reading;
  expect(frames.at(-1)?.event).toBe('jobComplete');
  const ended = await shown();
  for (const value of [running, ended, frames]) {
    const text = JSON.stringify(value);
    expect(text).not.toContain(key);
    expect(text).not.toContain(pin);
  }
  // the job ran with the real values: the concatenation copied the key, and is shown masked
  expect(((ended[0] as { data: JobDocument }).data.variables as Record<string, unknown>).line).toBe('key=********');
  // the list's items and tasks carry nothing of the bookkeeping
  expect(JSON.stringify(ended)).not.toContain('secretInputs');
});
