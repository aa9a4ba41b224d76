import { MAX_TASK_RETRIES_KEPT, MAX_TASK_RETRY_ERROR_CHARS, getEvent, validateEvent } from '@nap/contracts';
import type { WorkflowDocument } from '@nap/contracts';
import { eventually, task, workflowDocument } from '@nap/testing';
import { NO_TRANSITION_MESSAGE, toPublicJob, toShallowJob } from '../src/domain/job-model';
import type { JobRecord, JobTask } from '../src/domain/job-model';
import { retryEntry, withRetry } from '../src/domain/task-retries';
import type { EngineHarness } from './support/harness';
import { sharedWith, startEngineHarness, stoppedAfterEach } from './support/harness';

/**
 * What a job keeps of the people who acted on its tasks: who answered a manual task, when, and
 * which answer (`metrics.user`, `end_time`, `finish_state`), whichever engine applies the answer;
 * and a short history of the retries by hand of a task (`retries`), bounded, with no secret value.
 */

const harnesses = stoppedAfterEach();

async function engine(options: Parameters<typeof startEngineHarness>[0] = {}): Promise<EngineHarness> {
  const h = await startEngineHarness(options);
  harnesses.push(h);
  return h;
}

const done = (h: EngineHarness, id: string) => h.waitFor(id, ['complete', 'error', 'canceled']);

/** A ViewData approval: success goes on to `y2` ("Approve"), failure to `n3` ("Reject"). */
const approval = (name: string): WorkflowDocument =>
  workflowDocument(
    name,
    {
      v1: {
        name: 'ViewData',
        app: 'WorkFlowEngine',
        type: 'manual',
        groups: [],
        variables: {
          incoming: {
            header: 'Change',
            message: 'Apply it?',
            body: '$var.job.plan',
            variables: '',
            btn_success: 'Approve',
            btn_failure: 'Reject',
          },
          outgoing: {},
        },
      },
      y2: task('newVariable', { name: 'answer', value: 'approved' }),
      n3: task('newVariable', { name: 'answer', value: 'rejected' }),
    },
    [
      ['workflow_start', 'v1'],
      ['v1', 'y2', 'success'],
      ['v1', 'n3', 'failure'],
      ['y2', 'workflow_end'],
      ['n3', 'workflow_end'],
    ],
  );

/** A task that logs in to a device (mop.RunCommandTemplate, answered by the test) with a password. */
const login = workflowDocument(
  'history-login',
  {
    m1: {
      name: 'RunCommandTemplate',
      app: 'MOP',
      type: 'automatic',
      variables: { incoming: { template: 'show version', device: 'core-1', password: 'old-pass-4821' }, outgoing: { result: null } },
    },
  },
  [
    ['workflow_start', 'm1'],
    ['m1', 'workflow_end'],
  ],
);

/** The device refuses every login it is not given `good-pass-9907` for, and says which password it refused (as some do). */
function device(h: EngineHarness): void {
  h.services.set('mop.RunCommandTemplate', async (input) => {
    const body = input.body as { password: string; template: string };
    if (body.password !== 'good-pass-9907') throw new Error(`Device core-1 refused the login with password "${body.password}"`);
    return { result: `ran ${body.template}` };
  });
}

/** The events of a job published so far, once its last event is out (bounded). */
async function eventsOf(h: EngineHarness, jobId: string, last: string): Promise<{ name: string; payload: Record<string, unknown> }[]> {
  return eventually(
    `${last} of job ${jobId} on the bus`,
    async () => {
      await h.engine.flushEvents();
      const events = h.events
        .filter((e) => e.subject.startsWith(`nap.evt.workflow.job.${jobId}.`))
        .map((e) => ({ name: e.subject.split('.').pop() as string, payload: e.payload }));
      return events.some((e) => e.name === last) ? events : undefined;
    },
    { timeoutMs: 5_000 },
  );
}

describe('a manual task a person answered', () => {
  it('says who answered, when, and which answer, in the job and in its taskFinish event', async () => {
    const h = await engine();
    for (const [state, answer, person] of [
      ['success', 'approved', 'olga'],
      ['failure', 'rejected', 'ravi'],
    ] as const) {
      const started = await h.run(approval(`history-approval-${state}`), { plan: 'reload core-1' });
      const waiting = await h.waitUntil(started._id, (j) => j.tasks.v1?.status === 'running', 'v1 waiting');
      const before = Date.now();
      await h.engine.finishTask(waiting, 'v1', { finish_state: state, note: 'window ok' }, person);
      const after = Date.now();
      const job = await done(h, started._id);
      expect(job).toMatchObject({ status: 'complete', variables: { answer } });
      const v1 = job.tasks.v1;
      expect(v1).toMatchObject({
        status: 'complete',
        metrics: { finish_state: state, user: person },
        variables: { outgoing: { note: 'window ok' } },
      });
      // it ended when the person answered
      expect(v1?.metrics?.end_time).toBeGreaterThanOrEqual(before);
      expect(v1?.metrics?.end_time).toBeLessThanOrEqual(after);
      expect(v1?.metrics?.run_time).toBe((v1?.metrics?.end_time ?? 0) - (v1?.metrics?.start_time ?? 0));
      // the task that ran on its own names no person
      expect(job.tasks[state === 'success' ? 'y2' : 'n3']?.metrics?.user).toBeUndefined();
      // as the interface shows it (the job, and its shallow data)
      expect(toPublicJob(job).tasks.v1?.metrics).toMatchObject({ user: person, finish_state: state });
      expect(toShallowJob(job).tasks.v1?.metrics).toMatchObject({ user: person, finish_state: state });

      const events = await eventsOf(h, started._id, 'jobComplete');
      const finished = events.filter((e) => e.name === 'taskFinish' && e.payload.taskId === 'v1');
      expect(finished).toHaveLength(1);
      expect(finished[0]?.payload).toMatchObject({ finishState: state, by: person, timestamp: v1?.metrics?.end_time });
      expect(validateEvent(getEvent('workflow', 'job', 'taskFinish'), finished[0]?.payload)).toEqual([]);
      for (const e of events.filter((x) => x.name === 'taskFinish' && x.payload.taskId !== 'v1')) expect(e.payload.by).toBeUndefined();
    }
  });

  it('keeps who answered and when after the job changes hands: another engine applies the answer', async () => {
    // the engine the answer reaches holds the store; it claims nothing until the answer is stored
    const keeper = await engine({ serverId: 'answer-keeper', leaseMs: 300 });
    keeper.engine.setWorkers({ jobWorker: false, taskWorker: true });
    const driver = await startEngineHarness({ serverId: 'answer-driver', leaseMs: 300 }, sharedWith(keeper));
    const started = await driver.run(approval('history-handover'), { plan: 'swap line cards' });
    const waiting = await driver.waitUntil(started._id, (j) => j.tasks.v1?.status === 'running', 'v1 waiting');
    expect(waiting.metrics?.server_id).toBe('answer-driver');
    // the engine that drove the job stops; the person answers through the other one
    await driver.stop();
    await keeper.engine.finishTask(waiting, 'v1', { finish_state: 'failure' }, 'night-shift');
    const asked = await keeper.waitUntil(started._id, (j) => j.tasks.v1?.finishRequest !== undefined, 'the answer stored');
    const answeredAt = asked.tasks.v1?.finishRequest?.at;
    expect(asked.tasks.v1?.finishRequest).toMatchObject({ by: 'night-shift', finishState: 'failure' });
    expect(asked.tasks.v1?.status).toBe('running');

    keeper.engine.setWorkers({ jobWorker: true, taskWorker: true });
    const job = await done(keeper, started._id);
    expect(job).toMatchObject({ status: 'complete', variables: { answer: 'rejected' }, metrics: { server_id: 'answer-keeper' } });
    expect(job.tasks.v1?.finishRequest).toBeUndefined();
    expect(job.tasks.v1?.metrics).toMatchObject({
      user: 'night-shift',
      finish_state: 'failure',
      end_time: answeredAt,
      server_id: 'answer-keeper',
    });
  });
});

describe('a task retried by hand', () => {
  it('keeps who retried it, when, how it had failed and which variables changed, with no secret value', async () => {
    const h = await engine();
    device(h);
    const failed = await done(h, (await h.run(login))._id);
    expect(failed).toMatchObject({ status: 'error', tasks: { m1: { status: 'error', metrics: { finish_state: 'error' } } } });
    expect(failed.tasks.m1?.retries).toBeUndefined();

    // a wrong password again, then the right one (and the template as it was)
    const before = Date.now();
    await h.engine.retryTask(failed._id, 'm1', { password: { value: 'new-pass-3310' }, template: { value: 'show version' } }, 'olga');
    const again = await h.waitUntil(
      failed._id,
      (j) => j.status === 'error' && (j.tasks.m1?.retries?.length ?? 0) === 1,
      'the first retry failed',
    );
    await h.engine.retryTask(again._id, 'm1', { password: { value: 'good-pass-9907' } }, 'ravi');
    const job = await done(h, failed._id);
    expect(job.status).toBe('complete');

    const retries = job.tasks.m1?.retries ?? [];
    expect(retries).toEqual([
      {
        number: 1,
        by: 'olga',
        at: expect.any(Number),
        finish_state: 'error',
        error: 'Device core-1 refused the login with password "********"',
        // the template was given the value it had: not a change
        variables: ['password'],
      },
      {
        number: 2,
        by: 'ravi',
        at: expect.any(Number),
        finish_state: 'error',
        error: 'Device core-1 refused the login with password "********"',
        variables: ['password'],
      },
    ]);
    expect(retries[0]?.at).toBeGreaterThanOrEqual(before);
    expect(retries[1]?.at).toBeGreaterThanOrEqual(retries[0]?.at ?? 0);
    // no password, old or new, anywhere in the job as stored or as shown
    for (const secret of ['old-pass-4821', 'new-pass-3310', 'good-pass-9907']) {
      expect(JSON.stringify(retries)).not.toContain(secret);
      expect(JSON.stringify(toPublicJob(job))).not.toContain(secret);
    }
    // the shallow data leaves error information out: who and when stay
    expect(toShallowJob(job).tasks.m1?.retries).toEqual([
      { number: 1, by: 'olga', at: retries[0]?.at, finish_state: 'error', variables: ['password'] },
      { number: 2, by: 'ravi', at: retries[1]?.at, finish_state: 'error', variables: ['password'] },
    ]);
    // each retry's jobResume names the task, and says who
    const resumes = (await eventsOf(h, failed._id, 'jobComplete')).filter((e) => e.name === 'jobResume');
    expect(resumes.map((e) => [e.payload.by, e.payload.taskId])).toEqual([
      ['olga', 'm1'],
      ['ravi', 'm1'],
    ]);
    for (const e of resumes) expect(validateEvent(getEvent('workflow', 'job', 'jobResume'), e.payload)).toEqual([]);
  });

  it('keeps the job error entry of a task that failed without an error of its own', async () => {
    const h = await engine();
    const wf = workflowDocument(
      'history-no-transition',
      { q1: task('query', { pass_on_null: false, query: 'missing', obj: { present: 1 } }, { return_data: '$var.job.found' }) },
      [
        ['workflow_start', 'q1'],
        ['q1', 'workflow_end', 'success'],
      ],
    );
    const failed = await done(h, (await h.run(wf))._id);
    expect(failed).toMatchObject({ status: 'error', error: [{ task: 'q1', message: NO_TRANSITION_MESSAGE }] });
    expect(failed.tasks.q1).toMatchObject({ metrics: { finish_state: 'failure' }, variables: { error: '' } });
    await h.engine.retryTask(failed._id, 'q1', { query: { value: 'present' } }, 'olga');
    const job = await done(h, failed._id);
    // the retry cleared the job's errors: the task says why it had stopped the job
    expect(job).toMatchObject({ status: 'complete', error: [] });
    expect(job.tasks.q1?.retries).toEqual([
      { number: 1, by: 'olga', at: expect.any(Number), finish_state: 'failure', error: NO_TRANSITION_MESSAGE, variables: ['query'] },
    ]);
  });

  it(`keeps the last ${MAX_TASK_RETRIES_KEPT} retries, numbered among all of them`, async () => {
    const h = await engine();
    device(h);
    const total = MAX_TASK_RETRIES_KEPT + 3;
    let job: JobRecord = await done(h, (await h.run(login))._id);
    for (let n = 1; n <= total; n += 1) {
      await h.engine.retryTask(job._id, 'm1', { password: { value: `wrong-pass-${n}000` } }, `person-${n}`);
      job = await h.waitUntil(job._id, (j) => j.status === 'error' && j.tasks.m1?.retries?.at(-1)?.number === n, `retry ${n} failed`);
    }
    const retries = job.tasks.m1?.retries ?? [];
    expect(retries).toHaveLength(MAX_TASK_RETRIES_KEPT);
    expect(retries.map((r) => r.number)).toEqual(
      Array.from({ length: MAX_TASK_RETRIES_KEPT }, (_, i) => total - MAX_TASK_RETRIES_KEPT + 1 + i),
    );
    expect(retries.map((r) => r.by)).toEqual(retries.map((r) => `person-${r.number}`));
    expect(JSON.stringify(retries)).not.toMatch(/wrong-pass-\d+/);
  });
});

describe('a retry entry', () => {
  const failedTask = (error: string, incoming: Record<string, unknown>): JobTask => ({
    name: 'RunCommandTemplate',
    status: 'error',
    metrics: { finish_state: 'error' },
    variables: { incoming, outgoing: {}, error },
  });

  it('shortens a long error to its bound, masking secrets before the cut', () => {
    const secret = 'k3y-'.repeat(40);
    // unmasked, the cut would fall inside the secret and leave a piece of it
    const long = `${'a'.repeat(MAX_TASK_RETRY_ERROR_CHARS - 20)} token ${secret} refused`;
    const entry = retryEntry({
      task: failedTask(long, { api_token: secret }),
      taskId: 'm1',
      jobErrors: [],
      replacements: { api_token: 'other' },
      by: 'olga',
      at: 1,
    });
    expect(Array.from(entry.error ?? '')).toHaveLength(MAX_TASK_RETRY_ERROR_CHARS);
    expect(entry.error?.endsWith('…')).toBe(true);
    expect(entry.error).not.toContain('k3y-');
    expect(entry.error).toContain('********');
  });

  it('names a variable the task did not have as changed, and counts on from the last kept entry', () => {
    const task = { ...failedTask('boom', { a: 1, b: { c: [1, 2] } }), retries: [{ number: 7, by: 'x', at: 1, variables: [] }] };
    const entry = retryEntry({ task, taskId: 'm1', jobErrors: [], replacements: { a: 1, b: { c: [1, 2] }, extra: 'new' }, by: 'y', at: 2 });
    expect(entry).toEqual({ number: 8, by: 'y', at: 2, finish_state: 'error', error: 'boom', variables: ['extra'] });
    expect(withRetry(task.retries, entry).map((r) => r.number)).toEqual([7, 8]);
  });
});
