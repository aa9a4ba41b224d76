import type { JobDocument, WorkflowDocument } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually, task, workflowDocument } from '@nap/testing';

/**
 * Through the HTTP interface of the whole platform: a manual task answered by a named person says
 * who, when and which answer in GET /operations-manager/jobs/:jobId (and the shallow data), and a
 * task retried with POST /workflow_engine/jobs/:jobId/retryTask keeps its retry, with no secret.
 */

let platform: TestPlatform;
let admin: string;
let olga: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
  const group = await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name: 'history-operators' } } });
  expect(group.status).toBe(200);
  const groupId = (group.body as { data: { _id: string } }).data._id;
  expect(
    (await platform.http('PUT', `/user-management/groups/${groupId}/roles`, { token: admin, body: { roles: ['operations'] } })).status,
  ).toBe(200);
  const password = 'olga-password-1234';
  const account = await platform.http('POST', '/user-management/accounts', {
    token: admin,
    body: { account: { username: 'olga', password, groups: [groupId] } },
  });
  expect(account.status).toBe(200);
  olga = await platform.login('olga', password);
}, 90_000);

afterAll(async () => {
  await platform?.stop();
});

async function create(doc: ReturnType<typeof workflowDocument>): Promise<WorkflowDocument> {
  const res = await platform.http('POST', '/automation-studio/automations', { token: admin, body: { automation: doc } });
  if (res.status !== 200) throw new Error(`Creating workflow ${doc.name} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { data: WorkflowDocument }).data;
}

async function start(name: string, variables: Record<string, unknown> = {}): Promise<string> {
  const res = await platform.http('POST', `/workflow_engine/startJobWithOptions/${encodeURIComponent(name)}`, {
    token: admin,
    body: { options: { variables } },
  });
  expect(res.status).toBe(200);
  return (res.body as JobDocument)._id;
}

async function getJob(id: string): Promise<JobDocument> {
  const res = await platform.http('GET', `/operations-manager/jobs/${id}`, { token: admin });
  expect(res.status).toBe(200);
  return (res.body as { data: JobDocument }).data;
}

function until(id: string, check: (job: JobDocument) => boolean, what: string): Promise<JobDocument> {
  return eventually(
    `job ${id} reaching ${what}`,
    async () => {
      const job = await getJob(id);
      return check(job) ? job : undefined;
    },
    { timeoutMs: 15_000 },
  );
}

const ended = (job: JobDocument) => ['complete', 'error', 'canceled'].includes(job.status);

describe('a manual task answered through HTTP', () => {
  it('names the person who answered, when, and the answer', async () => {
    await create(
      workflowDocument(
        'history-http-approval',
        {
          v1: {
            name: 'ViewData',
            app: 'WorkFlowEngine',
            type: 'manual',
            groups: [],
            variables: {
              incoming: { header: 'Change', message: 'Apply?', body: '', variables: '', btn_success: 'Approve', btn_failure: 'Reject' },
              outgoing: {},
            },
          },
          y2: task('newVariable', { name: 'decision', value: 'approved' }, {}, { type: 'operation' }),
          n3: task('newVariable', { name: 'decision', value: 'rejected' }, {}, { type: 'operation' }),
        },
        [
          ['workflow_start', 'v1'],
          ['v1', 'y2', 'success'],
          ['v1', 'n3', 'failure'],
          ['y2', 'workflow_end'],
          ['n3', 'workflow_end'],
        ],
      ),
    );
    const id = await start('history-http-approval');
    const waiting = await until(id, (j) => j.tasks.v1?.status === 'running', 'v1 waiting');
    expect(waiting.tasks.v1?.metrics?.user).toBeUndefined();
    const before = Date.now();
    const answered = await platform.http('POST', `/operations-manager/jobs/${id}/tasks/v1/finish`, {
      token: olga,
      body: { variables: { finish_state: 'failure', reason: 'freeze window' } },
    });
    expect(answered.status).toBe(200);
    const job = await until(id, ended, 'an end');
    expect(job).toMatchObject({
      status: 'complete',
      variables: { decision: 'rejected' },
      tasks: {
        v1: {
          status: 'complete',
          metrics: { finish_state: 'failure', user: 'olga' },
          variables: { outgoing: { reason: 'freeze window' } },
        },
      },
    });
    expect(job.tasks.v1?.metrics?.end_time).toBeGreaterThanOrEqual(before);
    const shallow = await platform.http('GET', `/workflow_engine/getJobShallow/${id}`, { token: admin });
    expect(shallow.status).toBe(200);
    expect((shallow.body as JobDocument).tasks.v1?.metrics).toMatchObject({ finish_state: 'failure', user: 'olga' });
  });
});

describe('a task retried through HTTP', () => {
  it('keeps who retried it, when, how it had failed and the names of the variables changed, never their values', async () => {
    await create(
      workflowDocument(
        'history-http-retry',
        {
          q1: task(
            'query',
            { pass_on_null: false, query: 'missing', obj: { present: 1 }, api_token: 'tok-abcdef-1234' },
            { return_data: '$var.job.found' },
          ),
        },
        [
          ['workflow_start', 'q1'],
          ['q1', 'workflow_end', 'success'],
        ],
      ),
    );
    const id = await start('history-http-retry');
    const failed = await until(id, ended, 'an end');
    expect(failed).toMatchObject({ status: 'error', tasks: { q1: { metrics: { finish_state: 'failure' } } } });
    const reason = failed.error?.[0]?.message;
    expect(typeof reason).toBe('string');

    const before = Date.now();
    const retried = await platform.http('POST', `/workflow_engine/jobs/${id}/retryTask`, {
      token: olga,
      body: { taskId: 'q1', variables: { query: { value: 'present' }, api_token: { value: 'tok-new-5678' } } },
    });
    expect(retried.status).toBe(200);
    const entry = {
      number: 1,
      by: 'olga',
      at: expect.any(Number),
      finish_state: 'failure',
      error: reason,
      variables: ['query', 'api_token'],
    };
    expect((retried.body as JobDocument).tasks.q1?.retries).toEqual([entry]);

    const job = await until(id, ended, 'an end after the retry');
    expect(job).toMatchObject({ status: 'complete', error: [], variables: { found: 1 }, tasks: { q1: { status: 'complete' } } });
    expect(job.tasks.q1?.retries).toEqual([entry]);
    expect(job.tasks.q1?.retries?.[0]?.at).toBeGreaterThanOrEqual(before);
    const answer = JSON.stringify(await platform.http('GET', `/operations-manager/jobs/${id}`, { token: admin }));
    expect(answer).not.toContain('tok-abcdef-1234');
    expect(answer).not.toContain('tok-new-5678');

    // the shallow data keeps who and when, without the error
    const shallow = await platform.http('GET', `/workflow_engine/getJobShallow/${id}`, { token: admin });
    expect((shallow.body as JobDocument).tasks.q1?.retries).toEqual([
      { number: 1, by: 'olga', at: job.tasks.q1?.retries?.[0]?.at, finish_state: 'failure', variables: ['query', 'api_token'] },
    ]);
  });
});

describe('a workflow started again and again through HTTP', () => {
  it('counts the automatic retries of each job on its own, and runs the workflow as last saved', async () => {
    const retried = (query: string) =>
      workflowDocument(
        'history-http-auto-retry',
        {
          q1: task(
            'query',
            { pass_on_null: false, query, obj: { present: 1 } },
            { return_data: '$var.job.found' },
            { retrySettings: { autoRetry: true, limit: 2, delay: 0, state: ['failure'] } },
          ),
        },
        [
          ['workflow_start', 'q1'],
          ['q1', 'workflow_end', 'success'],
        ],
      );
    const saved = await create(retried('missing'));
    // the starts read the same workflow: each job counts its own retries
    for (const id of [await start('history-http-auto-retry'), await start('history-http-auto-retry')]) {
      const job = await until(id, ended, 'an end');
      expect(job).toMatchObject({
        status: 'error',
        tasks: { q1: { metrics: { finish_state: 'failure' }, retrySettings: { count: 2, limit: 2 } } },
      });
    }
    const put = await platform.http('PUT', `/automation-studio/automations/${saved._id}`, {
      token: admin,
      body: { update: retried('present') },
    });
    expect(put.status).toBe(200);
    const job = await until(await start('history-http-auto-retry'), ended, 'an end');
    expect(job).toMatchObject({ status: 'complete', variables: { found: 1 }, tasks: { q1: { status: 'complete' } } });
    expect(job.tasks.q1?.retrySettings?.count).toBeUndefined();
  });
});
