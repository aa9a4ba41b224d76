import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JobDocument, WorkflowDocument } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { task, workflowDocument } from '@nap/testing';
import type { Edge } from '@nap/testing';
import { jobReaching } from '../support/automation';

/**
 * The conformance set of workflows, run through the HTTP interface of the whole platform: each
 * workflow is created with POST /automation-studio/automations, started with
 * POST /workflow_engine/startJobWithOptions/:workflow, driven through the operations-manager routes
 * where a person would act, and its final job document read with GET /operations-manager/jobs/:jobId.
 */

let platform: TestPlatform;
let token: string;
let upstream: http.Server;
let upstreamUrl: string;
const upstreamHits = new Map<string, number>();

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
  // an HTTP system for restCall: /flaky answers 503 twice per key, then 200
  upstream = http.createServer((req, res) => {
    const key = req.url ?? '';
    const hits = (upstreamHits.get(key) ?? 0) + 1;
    upstreamHits.set(key, hits);
    const ok = !key.startsWith('/flaky') || hits > 2;
    res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ hits, ok }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => upstream.close(resolve));
  await platform.stop();
});

async function create(doc: WorkflowDocument): Promise<void> {
  const res = await platform.http('POST', '/automation-studio/automations', { token, body: { automation: doc } });
  if (res.status !== 200) throw new Error(`Creating workflow ${doc.name} failed: ${res.status} ${JSON.stringify(res.body)}`);
}

async function start(name: string, variables: Record<string, unknown> = {}): Promise<JobDocument> {
  const res = await platform.http('POST', `/workflow_engine/startJobWithOptions/${encodeURIComponent(name)}`, {
    token,
    body: { options: { description: 'conformance', type: 'automation', variables } },
  });
  expect(res.status).toBe(200);
  const job = res.body as JobDocument;
  expect(job).toMatchObject({ _id: expect.stringMatching(/^[0-9a-f]{24}$/), name, status: 'running' });
  return job;
}

async function getJob(id: string): Promise<JobDocument> {
  const res = await platform.http('GET', `/operations-manager/jobs/${id}`, { token });
  expect(res.status).toBe(200);
  const body = res.body as { message: string; data: JobDocument; metadata: Record<string, unknown> };
  expect(body.message).toBe('Successfully retrieved item');
  expect(body.metadata).toEqual({});
  return body.data;
}

/** Reads the job until `check` holds (bounded); a timeout shows the job as last read. */
function until(id: string, check: (job: JobDocument) => boolean, what: string, timeoutMs = 15_000): Promise<JobDocument> {
  return jobReaching(`Job ${id} reaching ${what}`, () => getJob(id), check, { timeoutMs });
}

const ended = (job: JobDocument) => ['complete', 'error', 'canceled'].includes(job.status);

async function runToEnd(name: string, variables: Record<string, unknown> = {}): Promise<JobDocument> {
  return until((await start(name, variables))._id, ended, 'an end');
}

const evaluation = (operand1: Record<string, unknown>, operator: string, operand2: Record<string, unknown>) =>
  task(
    'evaluation',
    {
      all_true_flag: true,
      evaluation_groups: [
        { all_true_flag: true, evaluations: [{ query: '', operand_1: operand1, operator, operand_2: operand2, rightQuery: '' }] },
      ],
    },
    { return_value: null },
    { type: 'operation' },
  );

describe('conformance workflows through HTTP', () => {
  it('linear', async () => {
    await create(
      workflowDocument(
        'cf-linear',
        {
          a1: task('newVariable', { name: 'site', value: '$var.job.siteName' }, { value: null }, { type: 'operation' }),
          b2: task(
            'makeData',
            { input: 'site-<!name!>', outputType: 'string', variables: '$var.c3.merged_object' },
            { output: '$var.job.label' },
          ),
          c3: task(
            'merge',
            { data_to_merge: [{ key: 'name', value: { task: 'job', variable: 'site' } }] },
            { merged_object: null },
            { type: 'operation' },
          ),
        },
        [
          ['workflow_start', 'a1'],
          ['a1', 'c3'],
          ['c3', 'b2'],
          ['b2', 'workflow_end'],
        ],
        { inputSchema: { type: 'object', properties: { siteName: { type: 'string' } }, required: ['siteName'] } },
      ),
    );
    const started = await start('cf-linear', { siteName: 'ams1' });
    // the answer is the job as it started, though its built-ins all ran in the engine's first step, before it was sent
    expect(started.tasks).toMatchObject({
      workflow_start: { status: 'pending' },
      a1: { status: 'incomplete', variables: { outgoing: { value: null } } },
      c3: { status: 'incomplete' },
      b2: { status: 'incomplete' },
      workflow_end: { status: 'incomplete' },
    });
    expect(started.variables).toEqual({ siteName: 'ams1', _id: started._id, initiator: 'admin' });
    const job = await until(started._id, ended, 'an end');
    expect(job).toMatchObject({
      status: 'complete',
      error: [],
      variables: { siteName: 'ams1', site: 'ams1', label: 'site-ams1', initiator: 'admin', _id: job._id },
      metrics: { finish_state: 'complete', owner: 'admin' },
      tasks: {
        workflow_start: { status: 'complete' },
        a1: { status: 'complete', metrics: { finish_state: 'success' }, variables: { outgoing: { value: 'ams1' } } },
        c3: { status: 'complete', variables: { outgoing: { merged_object: { name: 'ams1' } } } },
        b2: { status: 'complete', variables: { outgoing: { output: 'site-ams1' } } },
        workflow_end: { status: 'complete' },
      },
    });
  });

  it('refuses variables that do not match the inputSchema, naming the problem', async () => {
    const res = await platform.http('POST', '/workflow_engine/startJobWithOptions/cf-linear', {
      token,
      body: { options: { variables: { siteName: 7 } } },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'JOB_VARIABLES_INVALID', message: expect.stringContaining('siteName') });
    const missing = await platform.http('POST', '/workflow_engine/startJobWithOptions/cf-linear', {
      token,
      body: { options: { variables: {} } },
    });
    expect(missing.status).toBe(400);
    expect((missing.body as { message: string }).message).toContain("required property 'siteName'");
    const unknown = await platform.http('POST', '/workflow_engine/startJobWithOptions/no-such-workflow', { token, body: { options: {} } });
    expect(unknown.status).toBe(404);

    // an option misspelled would do nothing: refused, naming it and the option meant, on both start routes
    const misspelled = await platform.http('POST', '/workflow_engine/startJobWithOptions/cf-linear', {
      token,
      body: { options: { varibles: { siteName: 'ams1' }, groupz: [], Description: 'typo' } },
    });
    expect(misspelled.status).toBe(400);
    expect(misspelled.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [
        { member: 'body.options.varibles', message: expect.stringContaining("did you mean 'variables'?") },
        { member: 'body.options.groupz', message: expect.stringContaining("did you mean 'groups'?") },
        { member: 'body.options.Description', message: expect.stringContaining("did you mean 'description'?") },
      ],
    });
    const byName = await platform.http('POST', '/operations-manager/jobs/start', {
      token,
      body: { workflow: 'cf-linear', options: { variable: { siteName: 'ams1' } } },
    });
    expect(byName.status).toBe(400);
    expect(byName.body).toMatchObject({ details: [{ member: 'body.options.variable' }] });
    // a member no option resembles is ignored, as clients of the original platform may send members NAP does not read
    await start('cf-linear', { siteName: 'ams1' });
    const other = await platform.http('POST', '/workflow_engine/startJobWithOptions/cf-linear', {
      token,
      body: { options: { variables: { siteName: 'ams1' }, origin: 'itential-client' } },
    });
    expect(other.status).toBe(200);
  });

  it('parallel fork and join', async () => {
    await create(
      workflowDocument(
        'cf-fork-join',
        {
          f1: task('delay', { time: 0.2 }, { time_in_milliseconds: null }, { type: 'operation' }),
          f2: task('delay', { time: 0.2 }, { time_in_milliseconds: null }, { type: 'operation' }),
          j3: task('newVariable', { name: 'joined', value: true }, { value: null }, { type: 'operation' }),
        },
        [
          ['workflow_start', 'f1'],
          ['workflow_start', 'f2'],
          ['f1', 'j3'],
          ['f2', 'j3'],
          ['j3', 'workflow_end'],
        ],
      ),
    );
    const job = await runToEnd('cf-fork-join');
    expect(job).toMatchObject({
      status: 'complete',
      variables: { joined: true },
      tasks: { f1: { status: 'complete' }, f2: { status: 'complete' }, j3: { status: 'complete' } },
    });
    const [f1, f2, j3] = ['f1', 'f2', 'j3'].map((id) => job.tasks[id]?.metrics ?? {});
    expect(Math.max(f1?.start_time ?? 0, f2?.start_time ?? 0)).toBeLessThan(Math.min(f1?.end_time ?? 0, f2?.end_time ?? 0));
    expect(j3?.start_time).toBeGreaterThanOrEqual(Math.max(f1?.end_time ?? 0, f2?.end_time ?? 0));
  });

  it('error branch', async () => {
    await create(
      workflowDocument(
        'cf-error-branch',
        {
          e1: task(
            'stub',
            { type: 'error', delay: '', response: 'upstream down' },
            { response: null },
            {
              variables: {
                incoming: { type: 'error', delay: '', response: 'upstream down' },
                outgoing: { response: null },
                error: '$var.job.why',
              },
            },
          ),
          h2: task('newVariable', { name: 'handled', value: 'yes' }, { value: null }, { type: 'operation' }),
        },
        [
          ['workflow_start', 'e1'],
          ['e1', 'workflow_end'],
          ['e1', 'h2', 'error'],
          ['h2', 'workflow_end'],
        ],
      ),
    );
    const job = await runToEnd('cf-error-branch');
    expect(job).toMatchObject({
      status: 'complete',
      variables: { handled: 'yes', why: 'upstream down' },
      tasks: { e1: { status: 'error', metrics: { finish_state: 'error' }, variables: { error: 'upstream down' } } },
    });
  });

  it('failure branch', async () => {
    await create(
      workflowDocument(
        'cf-failure-branch',
        {
          e1: evaluation({ task: 'job', variable: 'count' }, '>', { task: 'static', variable: 5 }),
          s2: task('newVariable', { name: 'path', value: 'many' }, { value: null }, { type: 'operation' }),
          f3: task('newVariable', { name: 'path', value: 'few' }, { value: null }, { type: 'operation' }),
        },
        [
          ['workflow_start', 'e1'],
          ['e1', 's2', 'success'],
          ['e1', 'f3', 'failure'],
          ['s2', 'workflow_end'],
          ['f3', 'workflow_end'],
        ],
      ),
    );
    const job = await runToEnd('cf-failure-branch', { count: 2 });
    expect(job).toMatchObject({
      status: 'complete',
      variables: { path: 'few' },
      tasks: {
        e1: { status: 'complete', metrics: { finish_state: 'failure' } },
        s2: { status: 'incomplete' },
        f3: { status: 'complete' },
      },
    });
    // an evaluation whose condition is not met outputs undefined (Itential's evaluation reference)
    expect(job.tasks.e1?.variables?.outgoing).not.toHaveProperty('return_value');
  });

  it('revert loop', async () => {
    await create(
      workflowDocument(
        'cf-revert',
        {
          p1: task('push', { job_variable: 'attempts', item_to_push: 'try' }, { job_variable_value: null }, { type: 'operation' }),
          l2: task('arrayLength', { arr: '$var.job.attempts' }, { length: '$var.job.n' }),
          e3: evaluation({ task: 'l2', variable: 'length' }, '>=', { task: 'static', variable: 3 }),
        },
        [
          ['workflow_start', 'p1'],
          ['p1', 'l2'],
          ['l2', 'e3'],
          ['e3', 'workflow_end', 'success'],
          ['e3', 'p1', 'failure', 'revert'],
        ],
      ),
    );
    const job = await runToEnd('cf-revert');
    expect(job).toMatchObject({
      status: 'complete',
      variables: { attempts: ['try', 'try', 'try'], n: 3 },
      tasks: { e3: { status: 'complete', metrics: { finish_state: 'success' } } },
    });
  });

  it('forEach', async () => {
    await create(
      workflowDocument(
        'cf-foreach',
        {
          fe: task('forEach', { data_array: '$var.job.devices' }, { current_item: '$var.job.device' }, { type: 'operation' }),
          q1: task(
            'query',
            { pass_on_null: false, query: 'host', obj: '$var.fe.current_item' },
            { return_data: null },
            { type: 'operation' },
          ),
          p2: task(
            'push',
            { job_variable: 'hosts', item_to_push: '$var.q1.return_data' },
            { job_variable_value: null },
            { type: 'operation' },
          ),
          z3: task('arrayLength', { arr: '$var.job.hosts' }, { length: '$var.job.total' }),
        },
        [
          ['workflow_start', 'fe'],
          ['fe', 'q1', 'loop'],
          ['q1', 'p2'],
          ['fe', 'z3', 'success'],
          ['z3', 'workflow_end'],
        ],
      ),
    );
    const job = await runToEnd('cf-foreach', { devices: [{ host: 'r1' }, { host: 'r2' }] });
    expect(job).toMatchObject({
      status: 'complete',
      variables: { hosts: ['r1', 'r2'], total: 2, device: { host: 'r2' } },
      tasks: { fe: { status: 'complete', iterations: ['0', '1'] } },
    });
  });

  it('child job, single and looped', async () => {
    await create(
      workflowDocument(
        'cf-child',
        { c1: task('stringConcat', { str: 'vlan-', stringN: '$var.job.vlan' }, { combinedStrings: '$var.job.name' }) },
        [
          ['workflow_start', 'c1'],
          ['c1', 'workflow_end'],
        ],
      ),
    );
    await create(
      workflowDocument(
        'cf-parent',
        {
          s1: task(
            'childJob',
            {
              task: '',
              workflow: 'cf-child',
              variables: { vlan: { task: 'job', value: 'first' } },
              data_array: '',
              transformation: '',
              loopType: '',
            },
            { job_details: '$var.job.single' },
            { type: 'operation' },
          ),
          l2: task(
            'childJob',
            { task: '', workflow: 'cf-child', variables: {}, data_array: '$var.job.vlans', transformation: '', loopType: 'parallel' },
            { job_details: '$var.job.looped' },
            { type: 'operation' },
          ),
        },
        [
          ['workflow_start', 's1'],
          ['s1', 'l2'],
          ['l2', 'workflow_end'],
        ],
      ),
    );
    const job = await runToEnd('cf-parent', { first: '10', vlans: [{ vlan: '20' }, { vlan: '30' }] });
    expect(job.status).toBe('complete');
    const single = job.variables as {
      single: { _id: string; status: string; variables: { name: string } };
      looped: { status: string; variables: { name: string } }[];
    };
    expect(single.single).toMatchObject({ status: 'complete', variables: { name: 'vlan-10' } });
    expect(single.looped.map((d) => d.variables.name)).toEqual(['vlan-20', 'vlan-30']);
    const child = await getJob(single.single._id);
    expect(child).toMatchObject({ name: 'cf-child', status: 'complete', ancestors: [job._id] });
    expect(job.tasks.l2?.childJobs).toHaveLength(2);
  });

  it("child job named by a plain name from a project member: that project's member first, then the workflow outside any project", async () => {
    const setter = (value: string) => ({ s1: task('newVariable', { name: 'from', value }, { value: null }, { type: 'operation' }) });
    const linear: Edge[] = [
      ['workflow_start', 's1'],
      ['s1', 'workflow_end'],
    ];
    await create(workflowDocument('@aaa111: cf-runner', setter('member of aaa111'), linear));
    await create(workflowDocument('@bbb222: cf-runner', setter('member of bbb222'), linear));
    await create(workflowDocument('cf-runner', setter('outside any project'), linear));
    const parent = (name: string, child: string) =>
      create(
        workflowDocument(
          name,
          {
            c1: task(
              'childJob',
              { task: '', workflow: child, variables: {}, data_array: '', transformation: '', loopType: '' },
              { job_details: '$var.job.child' },
              { type: 'operation' },
            ),
          },
          [
            ['workflow_start', 'c1'],
            ['c1', 'workflow_end'],
          ],
        ),
      );
    await parent('@aaa111: cf-parent', 'cf-runner');
    await parent('@ccc333: cf-parent', 'cf-runner');
    await parent('cf-parent-outside', 'cf-runner');
    await parent('cf-parent-full-name', '@bbb222: cf-runner');
    for (const [name, expected] of [
      ['@aaa111: cf-parent', 'member of aaa111'],
      ['@ccc333: cf-parent', 'outside any project'],
      ['cf-parent-outside', 'outside any project'],
      ['cf-parent-full-name', 'member of bbb222'],
    ] as const) {
      const job = await runToEnd(name);
      expect(job.status).toBe('complete');
      expect((job.variables as { child: { variables: { from: string } } }).child.variables.from).toBe(expected);
    }

    // a name that resolves nowhere is a missing asset: the job ends naming every name tried
    await parent('@aaa111: cf-parent-missing', 'cf-nowhere');
    const missing = await runToEnd('@aaa111: cf-parent-missing');
    expect(missing.status).toBe('error');
    expect(missing.error?.[0]).toMatchObject({
      task: 'c1',
      message: 'WORKFLOW_NOT_FOUND: No workflow with name "@aaa111: cf-nowhere" or "cf-nowhere"',
    });
  });

  it('manual task', async () => {
    await create(
      workflowDocument(
        'cf-manual',
        {
          v1: {
            name: 'ViewData',
            app: 'WorkFlowEngine',
            type: 'manual',
            groups: [],
            variables: {
              incoming: {
                header: 'Approve',
                message: 'Deploy?',
                body: '$var.job.change',
                variables: '',
                btn_success: 'Yes',
                btn_failure: 'No',
              },
              outgoing: {},
            },
            view: '/workflow_engine/task/ViewData',
          },
          y2: task('newVariable', { name: 'decision', value: 'approved' }, { value: null }, { type: 'operation' }),
          n3: task('newVariable', { name: 'decision', value: 'rejected' }, { value: null }, { type: 'operation' }),
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
    const started = await start('cf-manual', { change: { id: 'CHG1' } });
    const waiting = await until(started._id, (j) => j.tasks.v1?.status === 'running', 'v1 waiting');
    expect(waiting.status).toBe('running');
    const wrongTask = await platform.http('POST', `/operations-manager/jobs/${started._id}/tasks/y2/finish`, {
      token,
      body: { variables: {} },
    });
    expect(wrongTask.status).toBe(409);
    const finish = await platform.http('POST', `/operations-manager/jobs/${started._id}/tasks/v1/finish`, {
      token,
      body: { variables: { finish_state: 'failure', reason: 'not now' } },
    });
    expect(finish.status).toBe(200);
    const job = await until(started._id, ended, 'an end');
    expect(job).toMatchObject({
      status: 'complete',
      variables: { decision: 'rejected' },
      tasks: {
        v1: { status: 'complete', metrics: { finish_state: 'failure' }, variables: { outgoing: { reason: 'not now' } } },
        y2: { status: 'incomplete' },
      },
    });
  });

  it('auto-retry', async () => {
    await create(
      workflowDocument(
        'cf-auto-retry',
        {
          r1: task(
            'restCall',
            { uri: '$var.job.url', verb: 'GET' },
            { response: '$var.job.answer' },
            { retrySettings: { autoRetry: true, limit: 3, delay: 50, state: ['failure'] } },
          ),
        },
        [
          ['workflow_start', 'r1'],
          ['r1', 'workflow_end'],
        ],
      ),
    );
    const job = await runToEnd('cf-auto-retry', { url: `${upstreamUrl}/flaky/auto` });
    expect(job).toMatchObject({
      status: 'complete',
      variables: { answer: { status: 200, body: { hits: 3, ok: true } } },
      tasks: { r1: { status: 'complete', retrySettings: { count: 2, limit: 3 } } },
    });
  });

  it('retryTask', async () => {
    await create(
      workflowDocument('cf-retry-task', { g1: task('restCall', { uri: '$var.job.url', verb: 'GET' }, { response: '$var.job.answer' }) }, [
        ['workflow_start', 'g1'],
        ['g1', 'workflow_end'],
      ]),
    );
    const failed = await runToEnd('cf-retry-task', { url: `${upstreamUrl}/flaky/manual` });
    expect(failed).toMatchObject({
      status: 'error',
      error: [{ task: 'g1', message: 'No transition available from the completed tasks', timestamp: expect.any(Number) }],
      tasks: { g1: { metrics: { finish_state: 'failure' } } },
    });
    const res = await platform.http('POST', `/workflow_engine/jobs/${failed._id}/retryTask`, {
      token,
      body: { taskId: 'g1', variables: { uri: { value: `${upstreamUrl}/steady` } } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: failed._id, status: 'running' });
    const job = await until(failed._id, ended, 'an end');
    expect(job).toMatchObject({
      status: 'complete',
      error: [],
      variables: { answer: { status: 200 } },
      tasks: { g1: { status: 'complete', variables: { incoming: { uri: `${upstreamUrl}/steady` } } } },
    });
    const again = await platform.http('POST', `/workflow_engine/jobs/${failed._id}/retryTask`, {
      token,
      body: { taskId: 'g1', variables: {} },
    });
    expect(again.status).toBe(409);
  });

  it('cancel', async () => {
    await create(
      workflowDocument('cf-cancel', { d1: task('delay', { time: 30 }, { time_in_milliseconds: null }, { type: 'operation' }) }, [
        ['workflow_start', 'd1'],
        ['d1', 'workflow_end'],
      ]),
    );
    const started = await start('cf-cancel');
    await until(started._id, (j) => j.tasks.d1?.status === 'running', 'd1 running');
    const res = await platform.http('POST', '/operations-manager/jobs/cancel', {
      token,
      body: { jobIds: [started._id, 'ffffffffffffffffffffffff'] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      results: [
        { jobId: started._id, success: true, message: expect.any(String) },
        { jobId: 'ffffffffffffffffffffffff', success: false, message: expect.stringContaining('No job') },
      ],
    });
    const job = await until(started._id, ended, 'an end');
    expect(job).toMatchObject({
      status: 'canceled',
      metrics: { finish_state: 'canceled' },
      tasks: { d1: { status: 'canceled', metrics: { finish_state: 'canceled' } } },
    });
  });

  it('pause and resume', async () => {
    await create(
      workflowDocument(
        'cf-pause',
        {
          d1: task('delay', { time: 0.3 }, { time_in_milliseconds: null }, { type: 'operation' }),
          n2: task('newVariable', { name: 'after', value: 'resumed' }, { value: null }, { type: 'operation' }),
        },
        [
          ['workflow_start', 'd1'],
          ['d1', 'n2'],
          ['n2', 'workflow_end'],
        ],
      ),
    );
    const started = await start('cf-pause');
    const paused = await platform.http('POST', `/operations-manager/jobs/${started._id}/pause`, { token });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ status: 'paused' });
    // the delay in flight finishes, the next task waits
    const held = await until(started._id, (j) => j.tasks.d1?.status === 'complete', 'd1 complete while paused');
    expect(held).toMatchObject({ status: 'paused', tasks: { n2: { status: 'pending' } } });
    const twice = await platform.http('POST', `/operations-manager/jobs/${started._id}/pause`, { token });
    expect(twice.status).toBe(409);
    const resumed = await platform.http('POST', `/operations-manager/jobs/${started._id}/resume`, { token });
    expect(resumed.status).toBe(200);
    const job = await until(started._id, ended, 'an end');
    expect(job).toMatchObject({ status: 'complete', variables: { after: 'resumed' } });
  });

  it('missing transition', async () => {
    await create(
      workflowDocument(
        'cf-missing-transition',
        { q1: task('query', { pass_on_null: false, query: 'absent', obj: '$var.job.data' }, { return_data: null }, { type: 'operation' }) },
        [
          ['workflow_start', 'q1'],
          ['q1', 'workflow_end', 'success'],
        ],
      ),
    );
    const job = await runToEnd('cf-missing-transition', { data: { present: true } });
    expect(job).toMatchObject({
      status: 'error',
      metrics: { finish_state: 'error' },
      error: [{ task: 'q1', message: 'No transition available from the completed tasks', timestamp: expect.any(Number) }],
      tasks: { q1: { status: 'complete', metrics: { finish_state: 'failure' } }, workflow_end: { status: 'incomplete' } },
    });
  });

  it('getJobShallow leaves out app, incoming, outgoing and error of every task', async () => {
    const job = await runToEnd('cf-error-branch');
    const res = await platform.http('GET', `/workflow_engine/getJobShallow/${job._id}`, { token });
    expect(res.status).toBe(200);
    const shallow = res.body as JobDocument;
    expect(shallow._id).toBe(job._id);
    for (const t of Object.values(shallow.tasks)) {
      expect(t.app).toBeUndefined();
      expect(t.variables?.incoming).toBeUndefined();
      expect(t.variables?.outgoing).toBeUndefined();
      expect(t.variables?.error).toBeUndefined();
    }
    expect(shallow.tasks.e1).toMatchObject({ status: 'error', name: 'stub' });
  });
});
