import { task, workflowDocument } from '@nap/testing';
import { buildJobQuery } from '../src/domain/job-query';
import type { JobRecord } from '../src/domain/job-model';
import type { EngineHarness } from './support/harness';
import { startEngineHarness } from './support/harness';

/**
 * Job control asked for what it must refuse: a retry of the workflow's start or end marker (the end
 * would end a failed job complete), of a task that never ran, or of a task id that is a member of
 * every object (`constructor`, `toString`, `__proto__`); a manual task finish naming such an id;
 * a job query naming a `__proto__` field.
 */

let h: EngineHarness;

beforeAll(async () => {
  h = await startEngineHarness();
});

afterAll(async () => {
  await h.stop();
});

/** s1 ends in error (a stub), so s2 never runs and the job ends in error at s1. */
const failing = workflowDocument(
  'fails-at-s1',
  {
    s1: task('stub', { type: 'error', response: 'the device refused' }, { response: null }),
    s2: task('newVariable', { name: 'after', value: 1 }),
  },
  [
    ['workflow_start', 's1'],
    ['s1', 's2'],
    ['s2', 'workflow_end'],
  ],
);

async function failedJob(): Promise<JobRecord> {
  const started = await h.run(failing);
  return h.waitFor(started._id, ['complete', 'error', 'canceled']);
}

describe('retryTask', () => {
  it('refuses the start and end markers: the failed job stays in error with its error', async () => {
    const failed = await failedJob();
    expect(failed.status).toBe('error');
    for (const marker of ['workflow_end', 'workflow_start']) {
      await expect(h.engine.retryTask(failed._id, marker, {}, 'olga')).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        message: expect.stringContaining(marker),
        details: [{ member: 'body.taskId' }],
      });
    }
    const after = await h.engine.deps.jobs.findOne({ _id: failed._id });
    expect(after).toMatchObject({
      status: 'error',
      error: failed.error,
      tasks: { s1: { status: 'error' }, workflow_end: { status: 'incomplete' } },
    });
  });

  it('refuses a task that never ran: it would skip the task that failed', async () => {
    const failed = await failedJob();
    expect(failed.tasks.s2?.status).toBe('incomplete');
    await expect(h.engine.retryTask(failed._id, 's2', {}, 'olga')).rejects.toMatchObject({
      code: 'JOB_STATE_CONFLICT',
      message: expect.stringContaining('never ran'),
    });
    expect((await h.engine.deps.jobs.findOne({ _id: failed._id }))?.status).toBe('error');
  });

  it('finds no task named after a member of every object, and adds none to the job', async () => {
    const failed = await failedJob();
    for (const taskId of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
      await expect(h.engine.retryTask(failed._id, taskId, {}, 'olga')).rejects.toMatchObject({ code: 'TASK_NOT_FOUND' });
    }
    const after = await h.engine.deps.jobs.findOne({ _id: failed._id });
    expect(Object.keys(after?.tasks ?? {}).sort()).toEqual(['s1', 's2', 'workflow_end', 'workflow_start']);
    expect(after?.status).toBe('error');
  });

  it('retries once when asked at once, and tells the others what the job is now (not to try again)', async () => {
    const failed = await failedJob();
    const outcomes = await Promise.allSettled([1, 2, 3].map(() => h.engine.retryTask(failed._id, 's1', {}, 'olga')));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes)
      if (o.status === 'rejected') {
        expect(o.reason).toMatchObject({ code: 'JOB_STATE_CONFLICT', message: expect.stringMatching(/is (running|error)/) });
        expect((o.reason as Error).message).not.toContain('try again');
      }
    expect((await h.waitFor(failed._id, ['error'])).tasks.s1?.retries).toHaveLength(1);
  });

  it('still retries the task that failed', async () => {
    const failed = await failedJob();
    const restarted = await h.engine.retryTask(failed._id, 's1', { type: { value: 'success' } }, 'olga');
    expect(restarted.status).toBe('running');
    expect(await h.waitFor(failed._id, ['complete', 'error'])).toMatchObject({ status: 'complete', variables: { after: 1 } });
  });
});

describe('finishTask', () => {
  it('finds no task named after a member of every object (404, not "not a manual task")', async () => {
    const wf = workflowDocument('waits-for-a-person', { m1: task('ViewData', { header: 'h', body: 'b' }, {}, { type: 'manual' }) }, [
      ['workflow_start', 'm1'],
      ['m1', 'workflow_end'],
    ]);
    const started = await h.run(wf);
    const waiting = await h.waitUntil(started._id, (j) => j.tasks.m1?.status === 'running', 'm1 waiting');
    for (const taskId of ['constructor', 'toString', '__proto__']) {
      await expect(h.engine.finishTask(waiting, taskId, {}, 'olga')).rejects.toMatchObject({ code: 'TASK_NOT_FOUND' });
    }
    // a finish_state that is no answer is refused naming the member, in details as every refused member is
    for (const finishState of ['error', null, 5]) {
      await expect(h.engine.finishTask(waiting, 'm1', { finish_state: finishState }, 'olga')).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ member: 'body.variables.finish_state', message: 'must be success or failure' }],
      });
    }
    // two answers at once: one is taken, the other is told who answered (not that a waiting task is not waiting)
    const answers = await Promise.allSettled([
      h.engine.finishTask(waiting, 'm1', {}, 'olga'),
      h.engine.finishTask(waiting, 'm1', {}, 'ravi'),
    ]);
    expect(answers.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
    const refused = answers.find((a) => a.status === 'rejected');
    expect(refused?.status === 'rejected' ? refused.reason : undefined).toMatchObject({
      code: 'JOB_STATE_CONFLICT',
      message: expect.stringMatching(/^Task "m1" of job "\w+" was already answered by "(olga|ravi)"$/),
    });
    const done = await h.waitFor(started._id, ['complete', 'error']);
    expect(done.status).toBe('complete');
    await expect(h.engine.finishTask(done, 'm1', {}, 'olga')).rejects.toMatchObject({
      message: expect.stringContaining(`was already answered by "${String(done.tasks.m1?.metrics?.user)}"`),
    });
  });
});

describe('job query', () => {
  it('refuses a __proto__ field wherever a field is named, with JOB_QUERY_INVALID naming it', () => {
    const queries = [
      { sort: '__proto__' },
      { sort: 'variables.__proto__' },
      { include: '__proto__' },
      { exclude: 'name,__proto__' },
      { q: '{"equals":{"__proto__":1}}' },
      { q: '{"or":[{"equals":{"status":"running"}},{"equals":{"a.__proto__.b":1}}]}' },
    ];
    for (const query of queries) {
      expect(() => buildJobQuery(query)).toThrow(
        expect.objectContaining({ code: 'JOB_QUERY_INVALID', message: expect.stringContaining('__proto__') }),
      );
    }
    // names that are only members of Object.prototype are fields like any other
    expect(buildJobQuery({ sort: 'constructor' }).sort).toEqual({ constructor: -1, 'metrics.start_time': -1, _id: -1 });
  });
});
