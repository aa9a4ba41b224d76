import { JOB_EVENTS, SYSTEM_CALLER, getEvent, validateEvent } from '@nap/contracts';
import type { WorkflowDocument, WorkflowTask } from '@nap/contracts';
import { eventually, task, workflowDocument } from '@nap/testing';
import { sleep } from '@nap/util';
import type { JobRecord } from '../src/domain/job-model';
import type { EngineHarness } from './support/harness';
import { startEngineHarness } from './support/harness';
import { parentOf } from './support/child-job';

let h: EngineHarness;

beforeAll(async () => {
  h = await startEngineHarness();
});

afterAll(async () => {
  await h.stop();
});

const done = (id: string) => h.waitFor(id, ['complete', 'error', 'canceled']);

describe('graph semantics', () => {
  it('follows a failure transition', async () => {
    const wf = workflowDocument(
      'failure-branch',
      {
        e1: task(
          'evaluation',
          {
            all_true_flag: false,
            evaluation_groups: [
              {
                all_true_flag: false,
                evaluations: [
                  { query: '', operand_1: { task: 'job', variable: 'n' }, operator: '>', operand_2: { task: 'static', variable: 10 } },
                ],
              },
            ],
          },
          { return_value: null },
        ),
        s2: task('newVariable', { name: 'branch', value: 'big' }),
        f3: task('newVariable', { name: 'branch', value: 'small' }),
      },
      [
        ['workflow_start', 'e1'],
        ['e1', 's2', 'success'],
        ['e1', 'f3', 'failure'],
        ['s2', 'workflow_end'],
        ['f3', 'workflow_end'],
      ],
    );
    const job = await done((await h.run(wf, { n: 3 }))._id);
    expect(job.status).toBe('complete');
    expect(job.variables.branch).toBe('small');
    expect(job.tasks.e1).toMatchObject({ status: 'complete', metrics: { finish_state: 'failure' } });
    // an evaluation whose condition is not met outputs undefined (Itential's evaluation reference)
    expect(job.tasks.e1?.variables?.outgoing?.return_value).toBeUndefined();
    expect(job.tasks.s2?.status).toBe('incomplete');
  });

  it('loops back on a revert transition until the evaluation holds', async () => {
    const wf = workflowDocument(
      'revert-loop',
      {
        p1: task('push', { job_variable: 'seen', item_to_push: 'x' }, { job_variable_value: null }),
        l2: task('arrayLength', { arr: '$var.job.seen' }, { length: null }),
        e3: task(
          'evaluation',
          {
            all_true_flag: true,
            evaluation_groups: [
              {
                all_true_flag: true,
                evaluations: [
                  { query: '', operand_1: { task: 'l2', variable: 'length' }, operator: '>=', operand_2: { task: 'static', variable: 3 } },
                ],
              },
            ],
          },
          { return_value: null },
        ),
      },
      [
        ['workflow_start', 'p1'],
        ['p1', 'l2'],
        ['l2', 'e3'],
        ['e3', 'workflow_end', 'success'],
        ['e3', 'p1', 'failure', 'revert'],
      ],
    );
    const job = await done((await h.run(wf))._id);
    expect(job.status).toBe('complete');
    expect(job.variables.seen).toEqual(['x', 'x', 'x']);
  });

  it('runs the body of a forEach once per item, then follows success', async () => {
    const wf = workflowDocument(
      'for-each',
      {
        fe: task('forEach', { data_array: '$var.job.items' }, { current_item: '$var.job.item' }, { type: 'operation' }),
        q1: task('query', { pass_on_null: false, query: 'name', obj: '$var.fe.current_item' }, { return_data: null }),
        p2: task('push', { job_variable: 'names', item_to_push: '$var.q1.return_data' }, { job_variable_value: null }),
        z9: task('newVariable', { name: 'after', value: 'loop done' }),
      },
      [
        ['workflow_start', 'fe'],
        ['fe', 'q1', 'loop'],
        ['fe', 'z9', 'success'],
        ['q1', 'p2'],
        ['z9', 'workflow_end'],
      ],
    );
    const job = await done((await h.run(wf, { items: [{ name: 'r1' }, { name: 'r2' }, { name: 'r3' }] }))._id);
    expect(job.status).toBe('complete');
    expect(job.variables.names).toEqual(['r1', 'r2', 'r3']);
    expect(job.variables.item).toEqual({ name: 'r3' });
    expect(job.variables.after).toBe('loop done');
    expect(job.tasks.fe?.iterations).toEqual(['0', '1', '2']);
  });

  it('retries a task automatically by its retrySettings and records the count', async () => {
    let calls = 0;
    h.services.set('mop.RunCommandTemplate', async () => {
      calls += 1;
      if (calls < 3) throw new Error('device busy');
      return { result: 'ok' };
    });
    const wf = workflowDocument(
      'auto-retry',
      {
        r1: {
          name: 'RunCommandTemplate',
          app: 'MOP',
          type: 'automatic',
          variables: { incoming: { template: 't' }, outgoing: { result: null } },
          retrySettings: { autoRetry: true, limit: 3, delay: 20, state: ['error'] },
        },
      },
      [
        ['workflow_start', 'r1'],
        ['r1', 'workflow_end'],
      ],
    );
    const job = await done((await h.run(wf))._id);
    expect(job.status).toBe('complete');
    expect(calls).toBe(3);
    expect(job.tasks.r1).toMatchObject({
      status: 'complete',
      retrySettings: { count: 2, limit: 3 },
      variables: { outgoing: { result: 'ok' } },
    });
  });
});

describe('branches that end without a transition', () => {
  const check = (id: string, value: string) =>
    task(
      'evaluation',
      {
        all_true_flag: true,
        evaluation_groups: [
          {
            all_true_flag: true,
            evaluations: [
              { query: '', operand_1: { task: 'job', variable: 'pick' }, operator: '==', operand_2: { task: 'static', variable: value } },
            ],
          },
        ],
      },
      { return_value: null },
      { summary: id },
    );

  it('ends a branch whose evaluation fails with no failure transition, while the branch that holds goes on to workflow_end', async () => {
    // the fan-out of the fixtures' Command Template Runner: several checks, one holds, the others end their branch
    const wf = workflowDocument(
      'fan-out',
      {
        a1: check('a1', 'a'),
        b2: check('b2', 'b'),
        c3: check('c3', 'c'),
        s4: task('newVariable', { name: 'picked', value: '$var.job.pick' }, { value: null }),
      },
      [
        ['workflow_start', 'a1'],
        ['workflow_start', 'b2'],
        ['workflow_start', 'c3'],
        ['a1', 's4', 'success'],
        ['b2', 's4', 'success'],
        ['c3', 's4', 'success'],
        ['s4', 'workflow_end'],
      ],
    );
    const job = await done((await h.run(wf, { pick: 'b' }))._id);
    expect(job.status).toBe('complete');
    expect(job.error).toEqual([]);
    expect(job.variables.picked).toBe('b');
    expect(job.tasks.a1).toMatchObject({ status: 'complete', metrics: { finish_state: 'failure' } });

    // when no branch holds, the job fails naming every branch that ended
    const none = await done((await h.run(wf, { pick: 'z' }))._id);
    expect(none.status).toBe('error');
    expect(none.error.map((e) => [e.task, e.message]).sort()).toEqual([
      ['a1', 'No transition available from the completed tasks'],
      ['b2', 'No transition available from the completed tasks'],
      ['c3', 'No transition available from the completed tasks'],
    ]);
  });

  it('fails the job when a task ends in error with no error transition, even while another branch could go on', async () => {
    const wf = workflowDocument(
      'unhandled-error',
      {
        e1: task('arrayLength', { arr: '$var.job.nothing' }, { length: null }),
        d2: task('delay', { time: 1 }),
        s3: task('newVariable', { name: 'reached', value: true }),
      },
      [
        ['workflow_start', 'e1'],
        ['workflow_start', 'd2'],
        ['e1', 'workflow_end'],
        ['d2', 's3'],
        ['s3', 'workflow_end'],
      ],
    );
    const job = await done((await h.run(wf))._id);
    expect(job.status).toBe('error');
    expect(job.error[0]).toMatchObject({ task: 'e1', message: 'No transition available from the completed tasks' });
    expect(job.variables.reached).toBeUndefined();
  });
});

describe('child jobs', () => {
  const child = workflowDocument(
    'child',
    { c1: task('stringConcat', { str: '$var.job.prefix', stringN: '$var.job.item' }, { combinedStrings: '$var.job.out' }) },
    [
      ['workflow_start', 'c1'],
      ['c1', 'workflow_end'],
    ],
  );

  it('runs a single child job and returns its details; the child names its parent as ancestor', async () => {
    h.workflows.set('child', child);
    const wf = parentOf('parent-single', 'child', { prefix: { task: 'static', value: 'p-' }, item: { task: 'job', value: 'x' } });
    const job = await done((await h.run(wf, { x: '1' }))._id);
    expect(job.status).toBe('complete');
    const details = job.tasks.cj?.variables?.outgoing?.job_details as { _id: string; status: string; variables: Record<string, unknown> };
    expect(details).toMatchObject({ status: 'complete', variables: { out: 'p-1' } });
    const childJob = (await h.store.collection<JobRecord>('jobs').findOne({ _id: details._id })) as JobRecord;
    expect(childJob.ancestors).toEqual([job._id]);
    expect(job.tasks.cj?.childJobs).toEqual([{ _id: details._id, name: 'child', iteration: 0 }]);
  });

  it("runs the calling project's member for a plain child workflow name, at every depth, and the plain workflow from outside any project", async () => {
    const says = (
      name: string,
      value: string,
      extra: Record<string, WorkflowTask> = {},
      edges: [string, string][] = [['n1', 'workflow_end']],
    ) =>
      workflowDocument(name, { n1: task('newVariable', { name: 'said', value }, { value: null }), ...extra }, [
        ['workflow_start', 'n1'],
        ...edges,
      ]);
    const callsOf = (named: string) => ({
      cj: task(
        'childJob',
        { task: '', workflow: named, variables: {}, data_array: '', transformation: '', loopType: '' },
        { job_details: '$var.job.child' },
      ),
    });
    // p1's runner runs "leaf" in turn, by its plain name too
    for (const wf of [
      says('@p1: runner', 'p1 runner', callsOf('leaf'), [
        ['n1', 'cj'],
        ['cj', 'workflow_end'],
      ]),
      says('@p1: leaf', 'p1 leaf'),
      says('runner', 'plain runner'),
      says('leaf', 'plain leaf'),
    ])
      h.workflows.set(wf.name, wf);
    const parent = (name: string, named: string) =>
      workflowDocument(name, callsOf(named), [
        ['workflow_start', 'cj'],
        ['cj', 'workflow_end'],
      ]);

    const inP1 = await done((await h.run(parent('@p1: Port Turn Up', 'runner')))._id);
    expect(inP1.status).toBe('complete');
    const runner = inP1.variables.child as {
      name: string;
      variables: { said: string; child: { name: string; variables: { said: string } } };
    };
    expect(runner).toMatchObject({
      name: '@p1: runner',
      variables: { said: 'p1 runner', child: { name: '@p1: leaf', variables: { said: 'p1 leaf' } } },
    });

    // a project without a member of the name, and a workflow outside any project, run the plain one
    for (const name of ['@p2: Port Turn Up', 'Port Turn Up']) {
      const job = await done((await h.run(parent(name, 'runner')))._id);
      expect(job.variables.child).toMatchObject({ name: 'runner', variables: { said: 'plain runner' } });
    }
    // a full member name is taken as it is, from anywhere
    const full = await done((await h.run(parent('@p2: Port Turn Up', '@p1: leaf')))._id);
    expect(full.variables.child).toMatchObject({ name: '@p1: leaf', variables: { said: 'p1 leaf' } });
  });

  it.each(['sequential', 'parallel'])('runs one child per item of data_array (%s)', async (loopType) => {
    h.workflows.set('child', child);
    const wf = workflowDocument(
      `parent-${loopType}`,
      {
        cj: task(
          'childJob',
          {
            task: '',
            workflow: 'child',
            variables: { prefix: { task: 'static', value: 'n' } },
            data_array: '$var.job.list',
            transformation: '',
            loopType,
          },
          { job_details: '$var.job.details' },
          { type: 'operation' },
        ),
      },
      [
        ['workflow_start', 'cj'],
        ['cj', 'workflow_end'],
      ],
    );
    const job = await done((await h.run(wf, { list: [{ item: 'a' }, { item: 'b' }, { item: 'c' }] }))._id);
    expect(job.status).toBe('complete');
    const details = job.variables.details as { status: string; variables: { out: string } }[];
    expect(details.map((d) => [d.status, d.variables.out])).toEqual([
      ['complete', 'na'],
      ['complete', 'nb'],
      ['complete', 'nc'],
    ]);
  });

  it('ends the job, naming the workflow, when the child workflow does not exist: a missing asset, not for the error path', async () => {
    const wf = workflowDocument(
      'parent-missing',
      {
        cj: task(
          'childJob',
          { task: '', workflow: 'nope', variables: {}, data_array: '', transformation: '', loopType: '' },
          { job_details: null },
        ),
        e2: task('newVariable', { name: 'handled', value: true }),
      },
      [
        ['workflow_start', 'cj'],
        ['cj', 'workflow_end'],
        ['cj', 'e2', 'error'],
        ['e2', 'workflow_end'],
      ],
    );
    const job = await done((await h.run(wf))._id);
    expect(job.status).toBe('error');
    expect(job.error[0]).toMatchObject({ task: 'cj', message: 'WORKFLOW_NOT_FOUND: No workflow named "nope"' });
    expect(job.tasks.e2?.status).toBe('incomplete');
    expect(job.variables.handled).toBeUndefined();
  });

  it("runs a child job with the variables its parent gives, which the child's inputSchema does not check (a caller's start does)", async () => {
    h.workflows.set('strict-child', {
      ...child,
      name: 'strict-child',
      inputSchema: {
        type: 'object',
        properties: { prefix: { type: 'string' }, retries: { type: 'integer' } },
        required: ['prefix', 'retries', 'item'],
      },
    });
    const wf = workflowDocument(
      'parent-of-strict',
      {
        cj: task(
          'childJob',
          {
            task: '',
            workflow: 'strict-child',
            variables: {
              prefix: { task: 'static', value: 's-' },
              item: { task: 'static', value: '1' },
              retries: { task: 'static', value: null },
            },
            data_array: '',
            transformation: '',
            loopType: '',
          },
          { job_details: null },
        ),
      },
      [
        ['workflow_start', 'cj'],
        ['cj', 'workflow_end'],
      ],
    );
    const job = await done((await h.run(wf))._id);
    expect(job.status).toBe('complete');
    expect((job.tasks.cj?.variables?.outgoing?.job_details as { variables: Record<string, unknown> }).variables).toMatchObject({
      retries: null,
      out: 's-1',
    });
    await expect(
      h.run(h.workflows.get('strict-child') as WorkflowDocument, { prefix: 's-', item: '1', retries: null }),
    ).rejects.toMatchObject({ code: 'JOB_VARIABLES_INVALID' });
  });

  it("counts the platform's own _id and initiator for an inputSchema that requires them, as the fixtures' Command Template Runners do", async () => {
    const needsId = {
      ...child,
      name: 'needs-id',
      inputSchema: {
        type: 'object',
        properties: { _id: { type: 'string' }, initiator: { type: 'string' }, prefix: { type: 'string' }, item: { type: 'string' } },
        required: ['_id', 'initiator', 'prefix', 'item'],
      },
    };
    const job = await done((await h.run(needsId, { prefix: 'id-', item: '7' }))._id);
    expect(job.status).toBe('complete');
    expect(job.variables).toMatchObject({ _id: job._id, initiator: 'system', out: 'id-7' });
  });

  it('takes a childJob variable from `value` when the editor left `variable` empty beside it', async () => {
    h.workflows.set('child', child);
    const wf = workflowDocument(
      'parent-empty-variable',
      {
        n1: task('newVariable', { name: 'unused', value: 'x' }, { value: null }),
        cj: task(
          'childJob',
          {
            task: '',
            workflow: 'child',
            variables: { prefix: { task: 'static', value: 'v-' }, item: { variable: '', task: 'n1', value: 'value' } },
            data_array: '',
            transformation: '',
            loopType: '',
          },
          { job_details: null },
        ),
      },
      [
        ['workflow_start', 'n1'],
        ['n1', 'cj'],
        ['cj', 'workflow_end'],
      ],
    );
    const job = await done((await h.run(wf))._id);
    expect(job.status).toBe('complete');
    expect((job.tasks.cj?.variables?.outgoing?.job_details as { variables: Record<string, unknown> }).variables.out).toBe('v-x');
  });
});

describe('transformation task', () => {
  it('resolves the references in variableMap and sends each JST incoming its value', async () => {
    const received: unknown[] = [];
    h.services.set('studio.runTransformation', async (input) => {
      received.push(input);
      return { vpcId: 'vpc-1', tags: null };
    });
    const wf = workflowDocument(
      'jst-variable-map',
      {
        a1: task('newVariable', { name: 'created', value: { response: { id: 'vpc-1' } } }, { value: null }),
        t2: task(
          'transformation',
          {
            tr_id: 'jst-1',
            variableMap: { createVpcResponse: '$var.a1.value', vpcName: '$var.job.name', fixed: 'as is', count: 3 },
            options: { validateIncoming: true },
          },
          { vpcId: '$var.job.vpcId', tags: null },
        ),
      },
      [
        ['workflow_start', 'a1'],
        ['a1', 't2'],
        ['t2', 'workflow_end'],
      ],
    );
    const job = await done((await h.run(wf, { name: 'prod' }))._id);
    expect(job.status).toBe('complete');
    expect(received).toEqual([
      {
        params: { transformationId: 'jst-1' },
        body: {
          incoming: { createVpcResponse: { response: { id: 'vpc-1' } }, vpcName: 'prod', fixed: 'as is', count: 3 },
          options: { validateIncoming: true, extractOutput: false },
        },
      },
    ]);
    expect(job.variables.vpcId).toBe('vpc-1');
  });
});

describe('manual tasks, retry, cancel, pause', () => {
  const viewData = (id: string): WorkflowDocument =>
    workflowDocument(
      id,
      {
        v1: {
          name: 'ViewData',
          app: 'WorkFlowEngine',
          type: 'manual',
          variables: {
            incoming: {
              header: 'Check',
              message: 'Go on?',
              body: '$var.job.payload',
              variables: '',
              btn_success: 'Yes',
              btn_failure: 'No',
            },
            outgoing: {},
          },
        },
        y2: task('newVariable', { name: 'answer', value: 'yes' }),
        n3: task('newVariable', { name: 'answer', value: 'no' }),
      },
      [
        ['workflow_start', 'v1'],
        ['v1', 'y2', 'success'],
        ['v1', 'n3', 'failure'],
        ['y2', 'workflow_end'],
        ['n3', 'workflow_end'],
      ],
    );

  it('waits on a manual task and follows the finish state a person chose', async () => {
    for (const [state, answer] of [
      ['success', 'yes'],
      ['failure', 'no'],
    ] as const) {
      const started = await h.run(viewData(`manual-${state}`), { payload: { a: 1 } });
      const waiting = await h.waitUntil(started._id, (j) => j.tasks.v1?.status === 'running', 'v1 waiting');
      expect(waiting.tasks.v1?.variables?.resolved).toMatchObject({ body: { a: 1 }, header: 'Check' });
      await h.engine.finishTask(waiting, 'v1', { finish_state: state, note: 'checked' }, 'tester');
      const job = await done(started._id);
      expect(job.status).toBe('complete');
      expect(job.variables.answer).toBe(answer);
      expect(job.tasks.v1).toMatchObject({
        status: 'complete',
        metrics: { finish_state: state },
        variables: { outgoing: { note: 'checked' } },
      });
    }
  });

  it('cancels a waiting job and pauses and resumes another', async () => {
    const a = await h.run(viewData('to-cancel'), { payload: 1 });
    await h.waitUntil(a._id, (j) => j.tasks.v1?.status === 'running', 'v1 waiting');
    expect(await h.engine.cancelJob(a._id, 'tester')).toBe(true);
    const canceled = await done(a._id);
    expect(canceled).toMatchObject({ status: 'canceled', metrics: { finish_state: 'canceled' }, tasks: { v1: { status: 'canceled' } } });
    expect(await h.engine.cancelJob(a._id, 'tester')).toBe(false);

    const b = await h.run(viewData('to-pause'), { payload: 2 });
    const waiting = await h.waitUntil(b._id, (j) => j.tasks.v1?.status === 'running', 'v1 waiting');
    await h.engine.pauseJob(b._id, 'tester');
    await h.engine.finishTask(waiting, 'v1', {}, 'tester');
    const paused = await h.waitUntil(b._id, (j) => j.tasks.v1?.status === 'complete', 'v1 complete while paused');
    expect(paused.status).toBe('paused');
    expect(paused.tasks.y2?.status).toBe('pending');
    await h.engine.resumeJob(b._id, 'tester');
    const resumed = await done(b._id);
    expect(resumed.status).toBe('complete');
    // events follow the store writes they describe: wait (bounded) until the job's end is on the bus
    const namesOf = async () => {
      await h.engine.flushEvents();
      return h.events.filter((e) => e.subject.startsWith(`nap.evt.workflow.job.${b._id}.`)).map((e) => e.subject.split('.').pop());
    };
    const names = await eventually(
      `jobComplete of job ${b._id} on the bus`,
      async () => {
        const published = await namesOf();
        return published.includes('jobComplete') ? published : undefined;
      },
      { timeoutMs: 5_000 },
    );
    expect(names).toEqual(expect.arrayContaining(['jobStart', 'taskStart', 'taskFinish', 'jobPause', 'jobResume', 'jobComplete']));
  });

  it('retries a task of a job in error with replacement variables and goes on from there', async () => {
    const wf = workflowDocument(
      'retry-by-hand',
      { q1: task('query', { pass_on_null: false, query: 'missing', obj: { present: 1 } }, { return_data: '$var.job.found' }) },
      [
        ['workflow_start', 'q1'],
        ['q1', 'workflow_end', 'success'],
      ],
    );
    const failed = await done((await h.run(wf))._id);
    expect(failed.status).toBe('error');
    const restarted = await h.engine.retryTask(failed._id, 'q1', { query: { value: 'present' } }, 'tester');
    expect(restarted.status).toBe('running');
    const job = await done(failed._id);
    expect(job).toMatchObject({
      status: 'complete',
      error: [],
      variables: { found: 1 },
      tasks: { q1: { status: 'complete', variables: { incoming: { query: 'present' } } } },
    });
  });
});

describe('events', () => {
  it('publishes every job event with a payload that matches its schema in contracts, in order per job', async () => {
    // An event follows the store write it describes, so a job that the store shows ended may not
    // have published its last event yet: wait (bounded) until every ended job has.
    const terminal = new Set(['jobComplete', 'jobError', 'jobCancel']);
    const jobsWithoutTheirEnd = async (): Promise<string[]> => {
      await h.engine.flushEvents();
      const ended = await h.engine.deps.jobs.find({ status: { $in: ['complete', 'error', 'canceled'] } }, { projection: { _id: 1 } });
      const last = new Map<string, string>();
      for (const { payload, subject } of h.events) last.set(String(payload.jobId), subject.split('.').pop() as string);
      return ended.map((j) => j._id).filter((id) => last.has(id) && !terminal.has(last.get(id) as string));
    };
    await eventually('the last event of every ended job on the bus', async () => (await jobsWithoutTheirEnd()).length === 0, {
      timeoutMs: 5_000,
    });
    const seen = new Set<string>();
    for (const { subject, payload } of h.events) {
      const name = subject.split('.').pop() as string;
      seen.add(name);
      expect(subject).toBe(`nap.evt.workflow.job.${String(payload.jobId)}.${name}`);
      expect(validateEvent(getEvent('workflow', 'job', name), payload)).toEqual([]);
    }
    expect([...seen].sort()).toEqual([...JOB_EVENTS].sort());
    const perJob = new Map<string, string[]>();
    for (const { payload, subject } of h.events)
      perJob.set(String(payload.jobId), [...(perJob.get(String(payload.jobId)) ?? []), subject.split('.').pop() as string]);
    for (const [jobId, names] of perJob) {
      expect(names[0]).toBe('jobStart');
      // a job that ended says so last (a retried job may end in error, resume and end again)
      if (names.some((n) => terminal.has(n)) && !terminal.has(names.at(-1) as string)) {
        throw new Error(`Job ${jobId} published after its end: ${names.join(', ')}`);
      }
    }
  });
});

describe('durability', () => {
  it('resumes a job left running by an engine that died, running its in-flight task again', async () => {
    const wf = workflowDocument(
      'orphan',
      { a1: task('newVariable', { name: 'a', value: 1 }), b2: task('newVariable', { name: 'b', value: 2 }) },
      [
        ['workflow_start', 'a1'],
        ['a1', 'b2'],
        ['b2', 'workflow_end'],
      ],
    );
    // what a dead engine leaves: a1 done, b2 in flight, its heartbeat no longer moving
    const jobs = h.store.collection<JobRecord>('jobs');
    const started = await h.run(wf);
    await done(started._id);
    const stored = (await jobs.findOne({ _id: started._id })) as JobRecord;
    await h.store
      .collection('engines')
      .insertOne({ _id: 'dead-engine', instance: 'gone', beat: 7, at: 1, started: 1, host: 'elsewhere', pid: 1, leaseMs: 3000 });
    const orphan: JobRecord = {
      ...stored,
      _id: 'aaaaaaaaaaaaaaaaaaaaaaaa',
      status: 'running',
      error: [],
      variables: { a: 1 },
      lease: 'dead-engine',
      outbox: [],
      eventsPublished: 0,
      metrics: { ...stored.metrics, server_id: 'dead-engine', claim_time: 1, end_time: undefined, finish_state: undefined },
      tasks: {
        ...stored.tasks,
        b2: { ...stored.tasks.b2, status: 'running' },
        workflow_end: { ...stored.tasks.workflow_end, status: 'incomplete' },
      },
    };
    await jobs.insertOne(orphan);
    // taken over once the dead engine's heartbeat has stood still for a lease (the engine scans on its own)
    const job = await done(orphan._id);
    expect(job).toMatchObject({ status: 'complete', variables: { a: 1, b: 2 }, metrics: { server_id: h.engine.serverId } });
  });

  it('two engines on one store share jobs and never run a task twice', async () => {
    const second = await startEngineHarness(
      {},
      {
        store: h.store,
        workflows: h.workflows,
        wake: (id) => {
          h.engine.wake(id);
          second.engine.wake(id);
        },
      },
    );
    const runs = new Map<string, number>();
    const count = async (input: { body?: unknown }) => {
      const key = JSON.stringify(input.body);
      runs.set(key, (runs.get(key) ?? 0) + 1);
      // the service takes a moment, so that both engines have calls in flight at once
      await sleep(5);
      return { result: key };
    };
    h.services.set('mop.RunCommandTemplate', count);
    second.services.set('mop.RunCommandTemplate', count);
    const wf = workflowDocument(
      'shared',
      {
        m1: {
          name: 'RunCommandTemplate',
          app: 'MOP',
          type: 'automatic',
          variables: { incoming: { template: '$var.job.n', step: 1 }, outgoing: { result: null } },
        },
        m2: {
          name: 'RunCommandTemplate',
          app: 'MOP',
          type: 'automatic',
          variables: { incoming: { template: '$var.job.n', step: 2 }, outgoing: { result: null } },
        },
      },
      [
        ['workflow_start', 'm1'],
        ['m1', 'm2'],
        ['m2', 'workflow_end'],
      ],
    );
    h.workflows.set('shared', wf);
    const started = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? h : second).engine.startJob({ workflow: wf, variables: { n: `job-${i}` }, caller: SYSTEM_CALLER }),
      ),
    );
    // both scan all the time: nothing may be adopted twice while its owner lives
    await Promise.all([h.engine.scan(), second.engine.scan()]);
    const finished = await Promise.all(started.map((j) => done(j._id)));
    expect(finished.every((j) => j.status === 'complete')).toBe(true);
    expect(runs.size).toBe(20);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    // a replica that stops hands its jobs back and the other resumes them
    const slow = workflowDocument('slow', { d1: task('delay', { time: 0.3 }, { time_in_milliseconds: null }) }, [
      ['workflow_start', 'd1'],
      ['d1', 'workflow_end'],
    ]);
    const handed = await second.engine.startJob({ workflow: slow, caller: SYSTEM_CALLER });
    await second.waitUntil(handed._id, (j) => j.tasks.d1?.status === 'running', 'd1 running');
    await second.stop();
    await h.engine.scan();
    const resumed = await done(handed._id);
    expect(resumed).toMatchObject({ status: 'complete', metrics: { server_id: h.engine.serverId } });
  });
});
