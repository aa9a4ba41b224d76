import { JOB_EVENTS, SYSTEM_CALLER, getEvent, validateEvent } from '@nap/contracts';
import type { WorkflowDocument } from '@nap/contracts';
import type { JobRecord } from '../src/domain/job-model';
import type { EngineHarness } from './support/harness';
import { builtin, startEngineHarness, workflow } from './support/harness';

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
    const wf = workflow(
      'failure-branch',
      {
        e1: builtin('evaluation', { all_true_flag: false, evaluation_groups: [{ all_true_flag: false, evaluations: [{ query: '', operand_1: { task: 'job', variable: 'n' }, operator: '>', operand_2: { task: 'static', variable: 10 } }] }] }, { return_value: null }),
        s2: builtin('newVariable', { name: 'branch', value: 'big' }),
        f3: builtin('newVariable', { name: 'branch', value: 'small' }),
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
    expect(job.tasks.e1).toMatchObject({ status: 'complete', metrics: { finish_state: 'failure' }, variables: { outgoing: { return_value: false } } });
    expect(job.tasks.s2?.status).toBe('incomplete');
  });

  it('loops back on a revert transition until the evaluation holds', async () => {
    const wf = workflow(
      'revert-loop',
      {
        p1: builtin('push', { job_variable: 'seen', item_to_push: 'x' }, { job_variable_value: null }),
        l2: builtin('arrayLength', { arr: '$var.job.seen' }, { length: null }),
        e3: builtin('evaluation', { all_true_flag: true, evaluation_groups: [{ all_true_flag: true, evaluations: [{ query: '', operand_1: { task: 'l2', variable: 'length' }, operator: '>=', operand_2: { task: 'static', variable: 3 } }] }] }, { return_value: null }),
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
    const wf = workflow(
      'for-each',
      {
        fe: builtin('forEach', { data_array: '$var.job.items' }, { current_item: '$var.job.item' }, { type: 'operation' }),
        q1: builtin('query', { pass_on_null: false, query: 'name', obj: '$var.fe.current_item' }, { return_data: null }),
        p2: builtin('push', { job_variable: 'names', item_to_push: '$var.q1.return_data' }, { job_variable_value: null }),
        z9: builtin('newVariable', { name: 'after', value: 'loop done' }),
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
    const wf = workflow(
      'auto-retry',
      { r1: { name: 'RunCommandTemplate', app: 'MOP', type: 'automatic', variables: { incoming: { template: 't' }, outgoing: { result: null } }, retrySettings: { autoRetry: true, limit: 3, delay: 20, state: ['error'] } } },
      [
        ['workflow_start', 'r1'],
        ['r1', 'workflow_end'],
      ],
    );
    const job = await done((await h.run(wf))._id);
    expect(job.status).toBe('complete');
    expect(calls).toBe(3);
    expect(job.tasks.r1).toMatchObject({ status: 'complete', retrySettings: { count: 2, limit: 3 }, variables: { outgoing: { result: 'ok' } } });
  });
});

describe('child jobs', () => {
  const child = workflow(
    'child',
    { c1: builtin('stringConcat', { str: '$var.job.prefix', stringN: '$var.job.item' }, { combinedStrings: '$var.job.out' }) },
    [
      ['workflow_start', 'c1'],
      ['c1', 'workflow_end'],
    ],
  );

  it('runs a single child job and returns its details; the child names its parent as ancestor', async () => {
    h.workflows.set('child', child);
    const wf = workflow('parent-single', { cj: builtin('childJob', { task: '', workflow: 'child', variables: { prefix: { task: 'static', value: 'p-' }, item: { task: 'job', value: 'x' } }, data_array: '', transformation: '', loopType: '' }, { job_details: null }, { type: 'operation' }) }, [
      ['workflow_start', 'cj'],
      ['cj', 'workflow_end'],
    ]);
    const job = await done((await h.run(wf, { x: '1' }))._id);
    expect(job.status).toBe('complete');
    const details = job.tasks.cj?.variables?.outgoing?.job_details as { _id: string; status: string; variables: Record<string, unknown> };
    expect(details).toMatchObject({ status: 'complete', variables: { out: 'p-1' } });
    const childJob = (await h.store.collection<JobRecord>('jobs').findOne({ _id: details._id })) as JobRecord;
    expect(childJob.ancestors).toEqual([job._id]);
    expect(job.tasks.cj?.childJobs).toEqual([{ _id: details._id, name: 'child', iteration: 0 }]);
  });

  it.each(['sequential', 'parallel'])('runs one child per item of data_array (%s)', async (loopType) => {
    h.workflows.set('child', child);
    const wf = workflow(`parent-${loopType}`, { cj: builtin('childJob', { task: '', workflow: 'child', variables: { prefix: { task: 'static', value: 'n' } }, data_array: '$var.job.list', transformation: '', loopType }, { job_details: '$var.job.details' }, { type: 'operation' }) }, [
      ['workflow_start', 'cj'],
      ['cj', 'workflow_end'],
    ]);
    const job = await done((await h.run(wf, { list: [{ item: 'a' }, { item: 'b' }, { item: 'c' }] }))._id);
    expect(job.status).toBe('complete');
    const details = job.variables.details as { status: string; variables: { out: string } }[];
    expect(details.map((d) => [d.status, d.variables.out])).toEqual([
      ['complete', 'na'],
      ['complete', 'nb'],
      ['complete', 'nc'],
    ]);
  });

  it('fails the childJob task when the workflow does not exist', async () => {
    const wf = workflow('parent-missing', { cj: builtin('childJob', { task: '', workflow: 'nope', variables: {}, data_array: '', transformation: '', loopType: '' }, { job_details: null }) }, [
      ['workflow_start', 'cj'],
      ['cj', 'workflow_end'],
    ]);
    const job = await done((await h.run(wf))._id);
    expect(job.status).toBe('error');
    expect(job.tasks.cj?.variables?.error).toContain('nope');
  });
});

describe('manual tasks, retry, cancel, pause', () => {
  const viewData = (id: string): WorkflowDocument =>
    workflow(
      id,
      {
        v1: { name: 'ViewData', app: 'WorkFlowEngine', type: 'manual', variables: { incoming: { header: 'Check', message: 'Go on?', body: '$var.job.payload', variables: '', btn_success: 'Yes', btn_failure: 'No' }, outgoing: {} } },
        y2: builtin('newVariable', { name: 'answer', value: 'yes' }),
        n3: builtin('newVariable', { name: 'answer', value: 'no' }),
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
      expect(job.tasks.v1).toMatchObject({ status: 'complete', metrics: { finish_state: state }, variables: { outgoing: { note: 'checked' } } });
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
    let names = await namesOf();
    for (const until = Date.now() + 5_000; !names.includes('jobComplete') && Date.now() < until; names = await namesOf()) await new Promise((r) => setTimeout(r, 20));
    expect(names).toEqual(expect.arrayContaining(['jobStart', 'taskStart', 'taskFinish', 'jobPause', 'jobResume', 'jobComplete']));
  });

  it('retries a task of a job in error with replacement variables and goes on from there', async () => {
    const wf = workflow('retry-by-hand', { q1: builtin('query', { pass_on_null: false, query: 'missing', obj: { present: 1 } }, { return_data: '$var.job.found' }) }, [
      ['workflow_start', 'q1'],
      ['q1', 'workflow_end', 'success'],
    ]);
    const failed = await done((await h.run(wf))._id);
    expect(failed.status).toBe('error');
    const restarted = await h.engine.retryTask(failed._id, 'q1', { query: { value: 'present' } }, 'tester');
    expect(restarted.status).toBe('running');
    const job = await done(failed._id);
    expect(job).toMatchObject({ status: 'complete', error: [], variables: { found: 1 }, tasks: { q1: { status: 'complete', variables: { incoming: { query: 'present' } } } } });
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
    for (const until = Date.now() + 5_000; (await jobsWithoutTheirEnd()).length > 0 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
    const seen = new Set<string>();
    for (const { subject, payload } of h.events) {
      const name = subject.split('.').pop() as string;
      seen.add(name);
      expect(subject).toBe(`nap.evt.workflow.job.${String(payload.jobId)}.${name}`);
      expect(validateEvent(getEvent('workflow', 'job', name), payload)).toEqual([]);
    }
    expect([...seen].sort()).toEqual([...JOB_EVENTS].sort());
    const perJob = new Map<string, string[]>();
    for (const { payload, subject } of h.events) perJob.set(String(payload.jobId), [...(perJob.get(String(payload.jobId)) ?? []), subject.split('.').pop() as string]);
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
    const wf = workflow('orphan', { a1: builtin('newVariable', { name: 'a', value: 1 }), b2: builtin('newVariable', { name: 'b', value: 2 }) }, [
      ['workflow_start', 'a1'],
      ['a1', 'b2'],
      ['b2', 'workflow_end'],
    ]);
    // what a dead engine leaves: a1 done, b2 in flight, its heartbeat no longer moving
    const jobs = h.store.collection<JobRecord>('jobs');
    const started = await h.run(wf);
    await done(started._id);
    const stored = (await jobs.findOne({ _id: started._id })) as JobRecord;
    await h.store.collection('engines').insertOne({ _id: 'dead-engine', instance: 'gone', beat: 7, at: 1, started: 1, host: 'elsewhere', pid: 1, leaseMs: 3000 });
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
      tasks: { ...stored.tasks, b2: { ...stored.tasks.b2, status: 'running' }, workflow_end: { ...stored.tasks.workflow_end, status: 'incomplete' } },
    };
    await jobs.insertOne(orphan);
    // taken over once the dead engine's heartbeat has stood still for a lease (the engine scans on its own)
    const job = await done(orphan._id);
    expect(job).toMatchObject({ status: 'complete', variables: { a: 1, b: 2 }, metrics: { server_id: h.engine.serverId } });
  });

  it('two engines on one store share jobs and never run a task twice', async () => {
    const second = await startEngineHarness({}, { store: h.store, workflows: h.workflows, wake: (id) => { h.engine.wake(id); second.engine.wake(id); } });
    const runs = new Map<string, number>();
    const count = async (input: { body?: unknown }) => {
      const key = JSON.stringify(input.body);
      runs.set(key, (runs.get(key) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 5));
      return { result: key };
    };
    h.services.set('mop.RunCommandTemplate', count);
    second.services.set('mop.RunCommandTemplate', count);
    const wf = workflow('shared', { m1: { name: 'RunCommandTemplate', app: 'MOP', type: 'automatic', variables: { incoming: { template: '$var.job.n', step: 1 }, outgoing: { result: null } } }, m2: { name: 'RunCommandTemplate', app: 'MOP', type: 'automatic', variables: { incoming: { template: '$var.job.n', step: 2 }, outgoing: { result: null } } } }, [
      ['workflow_start', 'm1'],
      ['m1', 'm2'],
      ['m2', 'workflow_end'],
    ]);
    h.workflows.set('shared', wf);
    const started = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? h : second).engine.startJob({ workflow: wf, variables: { n: `job-${i}` }, caller: SYSTEM_CALLER })));
    // both scan all the time: nothing may be adopted twice while its owner lives
    await Promise.all([h.engine.scan(), second.engine.scan()]);
    const finished = await Promise.all(started.map((j) => done(j._id)));
    expect(finished.every((j) => j.status === 'complete')).toBe(true);
    expect(runs.size).toBe(20);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    // a replica that stops hands its jobs back and the other resumes them
    const slow = workflow('slow', { d1: builtin('delay', { time: 0.3 }, { time_in_milliseconds: null }) }, [
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
