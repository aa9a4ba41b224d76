import { SYSTEM_CALLER } from '@nap/contracts';
import { task, workflowDocument } from '@nap/testing';
import { NO_TRANSITION_MESSAGE } from '../src';
import { MAX_CACHED_WORKFLOW_BYTES } from '../src/engine/workflow-cache';
import type { EngineHarness } from './support/harness';
import { startEngineHarness } from './support/harness';

let h: EngineHarness;

beforeAll(async () => {
  h = await startEngineHarness();
});

afterAll(async () => {
  await h.stop();
});

describe('job engine', () => {
  it('runs a linear workflow, writing outgoing values to job variables', async () => {
    const wf = workflowDocument(
      'linear',
      {
        a1: task('newVariable', { name: 'greeting', value: 'hello' }, { value: null }),
        b2: task('stringConcat', { str: '$var.job.greeting', stringN: ' world' }, { combinedStrings: '$var.job.sentence' }),
      },
      [
        ['workflow_start', 'a1'],
        ['a1', 'b2'],
        ['b2', 'workflow_end'],
      ],
    );
    const started = await h.run(wf, { who: 'me' });
    expect(started.status).toBe('running');
    const job = await h.waitFor(started._id, ['complete', 'error']);
    expect(job.status).toBe('complete');
    expect(job.variables).toMatchObject({ who: 'me', greeting: 'hello', sentence: 'hello world', _id: job._id, initiator: 'system' });
    expect(job.tasks.b2).toMatchObject({
      status: 'complete',
      metrics: { finish_state: 'success' },
      variables: { outgoing: { combinedStrings: 'hello world' } },
    });
    expect(job.metrics).toMatchObject({ finish_state: 'complete' });
    expect(job.error).toEqual([]);
  });

  it('ends in error naming the task when no transition can be taken', async () => {
    const wf = workflowDocument(
      'dead-end',
      { c3: task('query', { pass_on_null: false, query: 'missing', obj: {} }, { return_data: null }) },
      [
        ['workflow_start', 'c3'],
        ['c3', 'workflow_end'],
      ],
    );
    const job = await h.waitFor((await h.run(wf))._id, ['complete', 'error']);
    expect(job.status).toBe('error');
    expect(job.tasks.c3).toMatchObject({ status: 'complete', metrics: { finish_state: 'failure' } });
    expect(job.error).toEqual([{ task: 'c3', message: NO_TRANSITION_MESSAGE, timestamp: expect.any(Number) }]);
  });

  /** arrayLength of `arr` (a reference), whose error transition sets the job variable `handled`. */
  function arrayLengthWithErrorPath(name: string, arr: string) {
    return workflowDocument(
      name,
      {
        d4: task('arrayLength', { arr }, { length: null }),
        e5: task('newVariable', { name: 'handled', value: true }),
      },
      [
        ['workflow_start', 'd4'],
        ['d4', 'workflow_end'],
        ['d4', 'e5', 'error'],
        ['e5', 'workflow_end'],
      ],
    );
  }

  it('gives a built-in an unset job variable as absent: the task refuses it by its own check, naming the incoming, and the error transition is followed', async () => {
    const wf = arrayLengthWithErrorPath('unset-variable', '$var.job.nothing');
    const job = await h.waitFor((await h.run(wf))._id, ['complete', 'error']);
    expect(job.status).toBe('complete');
    expect(job.tasks.d4).toMatchObject({
      status: 'error',
      metrics: { finish_state: 'error' },
      // the record keeps the reference as written: what the task was given is readable from it and the job's variables
      variables: { incoming: { arr: '$var.job.nothing' }, error: 'Incoming "arr" must be an array, not nothing' },
    });
    expect(Object.hasOwn(job.variables, 'nothing')).toBe(false);
    expect(job.variables.handled).toBe(true);
  });

  it('fails a task whose reference names a task the workflow does not have, naming it, and follows the error transition', async () => {
    const wf = arrayLengthWithErrorPath('unknown-task', '$var.zz9.result');
    const job = await h.waitFor((await h.run(wf))._id, ['complete', 'error']);
    expect(job.status).toBe('complete');
    expect(job.tasks.d4).toMatchObject({
      status: 'error',
      variables: { error: 'Reference $var.zz9.result is not resolved: the workflow has no task "zz9"' },
    });
    expect(job.variables.handled).toBe(true);
  });

  it('parses a workflow reply once per text, frozen, and runs jobs of it at once, each with values of its own', async () => {
    const wf = workflowDocument(
      'shared',
      {
        a1: task('newVariable', { name: 'copy', value: '$var.job.seed' }, { value: null }),
        b2: task('stringConcat', { str: '$var.job.copy', stringN: '!' }, { combinedStrings: '$var.job.said' }),
      },
      [
        ['workflow_start', 'a1'],
        ['a1', 'b2'],
        ['b2', 'workflow_end'],
      ],
    );
    const text = JSON.stringify(wf);
    const workflow = h.engine.workflows.parse('shared', Buffer.from(text));
    expect(workflow).toEqual(wf);
    expect(Object.isFrozen(workflow.tasks?.a1?.variables?.incoming)).toBe(true);
    // the same bytes (another buffer) answer the same object; other bytes under the name, another
    expect(h.engine.workflows.parse('shared', new Uint8Array(Buffer.from(text)))).toBe(workflow);
    const saved = h.engine.workflows.parse('shared', Buffer.from(JSON.stringify({ ...wf, description: 'saved again' })));
    expect(saved).not.toBe(workflow);
    expect(saved.description).toBe('saved again');
    // a reply past the size kept is parsed at each start, frozen all the same, and forgets what the name held
    const large = Buffer.from(JSON.stringify({ ...wf, description: 'x'.repeat(MAX_CACHED_WORKFLOW_BYTES) }));
    const first = h.engine.workflows.parse('shared', large);
    expect(Object.isFrozen(first.tasks?.a1)).toBe(true);
    expect(h.engine.workflows.parse('shared', large)).not.toBe(first);
    expect(h.engine.workflows.parse('shared', Buffer.from(JSON.stringify({ ...wf, description: 'saved again' })))).not.toBe(saved);
    const ids = await Promise.all(
      ['x', 'y'].map((seed) => h.engine.startJobAs({ workflow: saved, variables: { seed }, caller: SYSTEM_CALLER }, (job) => job._id)),
    );
    const jobs = await Promise.all(ids.map((id) => h.waitFor(id, ['complete', 'error'])));
    expect(jobs.map((job) => [job.status, job.variables.said, job.tasks.b2?.variables?.outgoing])).toEqual([
      ['complete', 'x!', { combinedStrings: 'x!' }],
      ['complete', 'y!', { combinedStrings: 'y!' }],
    ]);
  });

  it('runs parallel branches concurrently and joins when every branch arrived', async () => {
    const wf = workflowDocument(
      'fork-join',
      {
        f1: task('delay', { time: 0.2 }, { time_in_milliseconds: null }),
        f2: task('delay', { time: 0.2 }, { time_in_milliseconds: null }),
        j3: task('newVariable', { name: 'joined', value: 'yes' }),
      },
      [
        ['workflow_start', 'f1'],
        ['workflow_start', 'f2'],
        ['f1', 'j3'],
        ['f2', 'j3'],
        ['j3', 'workflow_end'],
      ],
    );
    const job = await h.waitFor((await h.run(wf))._id, ['complete', 'error']);
    expect(job.status).toBe('complete');
    const f1 = job.tasks.f1?.metrics;
    const f2 = job.tasks.f2?.metrics;
    const j3 = job.tasks.j3?.metrics;
    // both branches were in flight at once, and the join started after both ended
    expect(Math.max(f1?.start_time ?? 0, f2?.start_time ?? 0)).toBeLessThan(Math.min(f1?.end_time ?? 0, f2?.end_time ?? 0));
    expect(j3?.start_time).toBeGreaterThanOrEqual(Math.max(f1?.end_time ?? 0, f2?.end_time ?? 0));
  });
});
