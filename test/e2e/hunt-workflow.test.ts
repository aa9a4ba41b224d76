import type { CancelJobsResult, JobDocument } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually, task, workflowDocument } from '@nap/testing';

/**
 * Job control through the HTTP interface when requests conflict or name what they must not:
 * cancels of one job at once, retries of the workflow's markers and of members of every object,
 * and a job query naming a `__proto__` field.
 */

let platform: TestPlatform;
let admin: string;

async function call(method: string, route: string, body?: unknown) {
  return platform.http(method, route, { token: admin, ...(body !== undefined ? { body } : {}) });
}

async function start(name: string): Promise<string> {
  const res = await call('POST', `/workflow_engine/startJobWithOptions/${name}`, { options: {} });
  expect(res.status).toBe(200);
  return (res.body as JobDocument)._id;
}

async function statusOf(id: string): Promise<string> {
  return ((await call('GET', `/operations-manager/jobs/${id}`)).body as { data: JobDocument }).data.status as string;
}

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
  const waits = workflowDocument('hunt-waits', { d1: task('delay', { time: 600 }) }, [
    ['workflow_start', 'd1'],
    ['d1', 'workflow_end'],
  ]);
  const fails = workflowDocument(
    'hunt-fails',
    { s1: task('stub', { type: 'error', response: 'the device refused' }, { response: null }) },
    [
      ['workflow_start', 's1'],
      ['s1', 'workflow_end'],
    ],
  );
  for (const automation of [waits, fails]) expect((await call('POST', '/automation-studio/automations', { automation })).status).toBe(200);
}, 90_000);

afterAll(async () => {
  await platform?.stop();
});

describe('starting with variables the inputSchema refuses', () => {
  it('names each refused variable as the request gave it (options.variables.<name>)', async () => {
    const automation = workflowDocument('hunt-schema', { a1: task('newVariable', { name: 'x', value: '$var.job.device' }) }, [
      ['workflow_start', 'a1'],
      ['a1', 'workflow_end'],
    ]);
    automation.inputSchema = {
      type: 'object',
      properties: { device: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
      required: ['device'],
    };
    expect((await call('POST', '/automation-studio/automations', { automation })).status).toBe(200);
    for (const [route, body] of [
      ['/workflow_engine/startJobWithOptions/hunt-schema', { options: { variables: { device: 5, count: 0 } } }],
      ['/operations-manager/jobs/start', { workflow: 'hunt-schema', options: { variables: { device: 5, count: 0 } } }],
    ] as const) {
      const res = await call('POST', route, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'JOB_VARIABLES_INVALID',
        details: [{ member: 'options.variables.device' }, { member: 'options.variables.count' }],
      });
    }
  });
});

describe('POST /operations-manager/jobs/cancel', () => {
  it('cancels a job once when asked at once, and the others say it is canceled (not running)', async () => {
    const id = await start('hunt-waits');
    const answers = await Promise.all(Array.from({ length: 6 }, () => call('POST', '/operations-manager/jobs/cancel', { jobIds: [id] })));
    const results = answers.map((res) => {
      expect(res.status).toBe(200);
      return (res.body as CancelJobsResult).results[0];
    });
    expect(results.filter((r) => r?.success)).toHaveLength(1);
    for (const r of results.filter((r) => !r?.success))
      expect(r?.message).toBe(`Job "${id}" is canceled; only running or paused jobs can be canceled`);
    expect(await statusOf(id)).toBe('canceled');
  });
});

describe('POST /workflow_engine/jobs/:jobId/retryTask', () => {
  let failed: string;

  beforeAll(async () => {
    failed = await start('hunt-fails');
    await eventually('the job in error', async () => (await statusOf(failed)) === 'error');
  });

  it('refuses workflow_end: the job stays in error instead of ending complete', async () => {
    const res = await call('POST', `/workflow_engine/jobs/${failed}/retryTask`, { taskId: 'workflow_end', variables: {} });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.taskId' }] });
    const job = ((await call('GET', `/operations-manager/jobs/${failed}`)).body as { data: JobDocument }).data;
    expect(job).toMatchObject({ status: 'error', error: [{ task: 's1' }] });
  });

  it('answers 404 for a task id that only Object.prototype has, and adds no task', async () => {
    for (const taskId of ['constructor', 'toString', '__proto__']) {
      const res = await call('POST', `/workflow_engine/jobs/${failed}/retryTask`, { taskId, variables: {} });
      expect({ taskId, status: res.status, code: (res.body as { code?: string }).code }).toEqual({
        taskId,
        status: 404,
        code: 'TASK_NOT_FOUND',
      });
    }
    const job = ((await call('GET', `/operations-manager/jobs/${failed}`)).body as { data: JobDocument }).data;
    expect(Object.keys(job.tasks).sort()).toEqual(['s1', 'workflow_end', 'workflow_start']);
  });
});

describe('GET /operations-manager/jobs', () => {
  it("refuses a __proto__ field with JOB_QUERY_INVALID, not the store's error, and never drops the condition", async () => {
    for (const query of ['sort=__proto__', 'include=__proto__', `q=${encodeURIComponent('{"equals":{"__proto__":1}}')}`]) {
      const res = await call('GET', `/operations-manager/jobs?${query}`);
      expect({ query, status: res.status, code: (res.body as { code?: string }).code }).toEqual({
        query,
        status: 400,
        code: 'JOB_QUERY_INVALID',
      });
    }
  });
});

describe('GET /operations-manager/tasks', () => {
  it('shows the job summary whole when a member of it is included, and keeps _id', async () => {
    await start('hunt-fails');
    for (const include of ['job.name', 'job._id', 'job.status,name']) {
      const res = await call('GET', `/operations-manager/tasks?include=${include}&limit=5`);
      expect({ include, status: res.status }).toEqual({ include, status: 200 });
      const items = (res.body as { data: Record<string, unknown>[] }).data;
      expect(items.length).toBeGreaterThan(0);
      for (const item of items)
        expect(item).toMatchObject({
          _id: expect.any(String),
          job: { _id: expect.any(String), name: expect.any(String), status: expect.any(String) },
        });
    }
  });

  it('gives no advice about job indexes for a sort of tasks (every task sort is made in memory)', async () => {
    for (const sort of ['id', 'job.name', 'metrics.end_time']) {
      const res = await call('GET', `/operations-manager/tasks?sort=${sort}&limit=1`);
      expect(res.status).toBe(200);
      expect((res.body as { metadata: { hints: string[] } }).metadata.hints).toEqual([]);
    }
    // the job list still says when its sort is not served by an index
    const jobs = await call('GET', '/operations-manager/jobs?sort=description&limit=1');
    expect((jobs.body as { hints: string[] }).hints).toEqual([expect.stringContaining('is not served by an index')]);
  });

  it('refuses to exclude _id or a part of the job summary, naming it (not a failure of its own answer)', async () => {
    for (const exclude of ['_id', 'job.name', 'status,job._id']) {
      const res = await call('GET', `/operations-manager/tasks?exclude=${exclude}`);
      expect({ exclude, status: res.status, code: (res.body as { code?: string }).code }).toEqual({
        exclude,
        status: 400,
        code: 'JOB_QUERY_INVALID',
      });
      expect((res.body as { message: string }).message).toContain(exclude.split(',').pop());
    }
    const whole = await call('GET', '/operations-manager/tasks?exclude=job,variables&limit=1');
    expect(whole.status).toBe(200);
    expect((whole.body as { data: Record<string, unknown>[] }).data[0]).not.toHaveProperty('job');
  });
});
