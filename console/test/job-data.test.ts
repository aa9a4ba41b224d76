import type { JobDocument, Task } from '@nap/contracts';
import {
  formatDuration,
  formatTime,
  isCancelable,
  isTicking,
  jobDurationMs,
  manualAnswerText,
  retryHistory,
  retryText,
  toJobSummary,
  whereItLeads,
} from '../src/api/job-data';
import { jobAfterEvent } from '../src/live/job-events';
import { emptyRange, readParams, toJobQuery, writeParams } from '../src/pages/jobs/job-list-params';

/** How the jobs list and a job's page read a job: its duration, whether it may be canceled, the list's URL. */

describe('a job’s duration', () => {
  it('is rounded to the unit shown, never cut down', () => {
    expect(formatDuration(undefined)).toBe('—');
    expect(formatDuration(4)).toBe('4 ms');
    expect(formatDuration(999.4)).toBe('999 ms');
    expect(formatDuration(999.6)).toBe('1 s');
    // a task whose run_time is 2,999 ms ran 3 s
    expect(formatDuration(2999)).toBe('3 s');
    expect(formatDuration(2400)).toBe('2 s');
    expect(formatDuration(59_600)).toBe('1 min 00 s');
    expect(formatDuration(185_500)).toBe('3 min 06 s');
    expect(formatDuration(3_599_600)).toBe('1 h 00 min');
    expect(formatDuration(2 * 3_600_000 + 4 * 60_000 + 40_000)).toBe('2 h 05 min');
    expect(formatDuration(50 * 3_600_000 + 40 * 60_000)).toBe('2 d 3 h');
    // a countdown says the whole units left
    expect(formatDuration(12_500, 'floor')).toBe('12 s');
    expect(formatDuration(3 * 3_600_000 + 40_000, 'floor')).toBe('3 h 00 min');
  });

  it('counts on while the job runs or is paused, the same in the list, on its page and after a reload', () => {
    const start = 1_000_000;
    const now = start + 15_000;
    expect(jobDurationMs({ status: 'running', startTime: start }, now)).toBe(15_000);
    // paused: no end time yet, and the job is not over
    expect(jobDurationMs({ status: 'paused', startTime: start }, now)).toBe(15_000);
    expect(jobDurationMs({ status: 'paused', startTime: start }, now + 12_000)).toBe(27_000);
    expect(jobDurationMs({ status: 'complete', startTime: start, endTime: start + 2000 }, now)).toBe(2000);
    expect(jobDurationMs({ status: 'canceled', startTime: start }, now)).toBeUndefined();
    expect(jobDurationMs({ status: 'running' }, now)).toBeUndefined();
    expect(['running', 'paused', 'complete', 'error', 'canceled'].filter(isTicking)).toEqual(['running', 'paused']);
  });
});

describe('a job in the list', () => {
  it('may be canceled only while running or paused', () => {
    expect(['running', 'paused', 'complete', 'error', 'canceled', ''].filter(isCancelable)).toEqual(['running', 'paused']);
  });

  it('carries the description its starter wrote', () => {
    expect(toJobSummary({ _id: 'j1', name: 'Change approval', status: 'running', description: '  CHG-1042 ✓ ' }).description).toBe(
      'CHG-1042 ✓',
    );
    expect(toJobSummary({ _id: 'j2', name: 'x', status: 'running' }).description).toBe('');
  });
});

describe('the jobs list’s URL', () => {
  it('drops a status the platform does not have, so that the Status field and the list agree', () => {
    const params = readParams(new URLSearchParams('status=bogus&page=3'));
    expect(params.status).toBe('');
    expect(toJobQuery(params).equals).toBeUndefined();
    expect(writeParams(params).toString()).toBe('page=3');
    expect(readParams(new URLSearchParams('status=paused')).status).toBe('paused');
  });

  it('tells an empty range of start times', () => {
    expect(emptyRange({ after: '2027-01-01T00:00', before: '2026-01-01T00:00' })).toBe(true);
    expect(emptyRange({ after: '2026-01-01T00:00', before: '2027-01-01T00:00' })).toBe(false);
    expect(emptyRange({ after: '2027-01-01T00:00', before: '' })).toBe(false);
  });
});

describe('a task people acted on', () => {
  const at = new Date(2026, 0, 12, 1, 34, 15).getTime();
  const approval = (finish: 'success' | 'failure', metrics: Task['metrics'] = {}): Task => ({
    name: 'ViewData',
    app: 'WorkFlowEngine',
    type: 'manual',
    status: 'complete',
    metrics: { start_time: at - 60_000, end_time: at, finish_state: finish, ...metrics },
    variables: { incoming: { btn_success: '$var.job.yes' }, resolved: { btn_success: 'Approve', btn_failure: 'Reject' }, outgoing: {} },
  });

  it('says which answer a manual task was given, by whom and when', () => {
    expect(manualAnswerText(approval('success', { user: 'admin' }))).toBe(
      'Answered “Approve” by admin at 2026-01-12 01:34:15: took its success path.',
    );
    expect(manualAnswerText(approval('failure', { user: 'olga' }))).toBe(
      'Answered “Reject” by olga at 2026-01-12 01:34:15: took its failure path.',
    );
    // a job from before the platform kept who answered
    expect(manualAnswerText(approval('success'))).toBe('Answered “Approve” at 2026-01-12 01:34:15: took its success path.');
    // a manual task that names no choice (a MOP review)
    const review: Task = {
      name: 'reviewSummary',
      app: 'MOP',
      type: 'manual',
      status: 'complete',
      metrics: { finish_state: 'failure', user: 'olga', end_time: at },
    };
    expect(manualAnswerText(review)).toBe('Finished as failure by olga at 2026-01-12 01:34:15.');
    // nothing to say of a task still waiting, of one canceled, or of one no person answers
    expect(manualAnswerText({ ...approval('success', { user: 'admin' }), status: 'running' })).toBeUndefined();
    expect(manualAnswerText({ ...approval('success'), status: 'canceled', metrics: { finish_state: 'canceled' } })).toBeUndefined();
    expect(
      manualAnswerText({
        name: 'query',
        app: 'WorkFlowEngine',
        type: 'automatic',
        status: 'complete',
        metrics: { finish_state: 'success' },
      }),
    ).toBeUndefined();
    expect(manualAnswerText(undefined)).toBeUndefined();
  });

  it('says who retried a task, when, how it had failed and what they changed', () => {
    expect(
      retryText({
        number: 1,
        by: 'admin',
        at,
        finish_state: 'error',
        error: 'TASK_APP_UNKNOWN: No integration answers to app "Panorama"',
        variables: ['type'],
      }),
    ).toBe(
      'Retried by admin at 2026-01-12 01:34:15 (failed before: TASK_APP_UNKNOWN: No integration answers to app "Panorama"); changed type.',
    );
    expect(retryText({ number: 2, by: 'olga', at, finish_state: 'failure', variables: ['device', 'password'] })).toBe(
      'Retried by olga at 2026-01-12 01:34:15 (finished as failure before); changed device, password.',
    );
    expect(retryText({ number: 3, by: 'olga', at, variables: [] })).toBe(`Retried by olga at ${formatTime(at)}; no variable changed.`);
  });

  it('lists the retries the platform kept, and says how many earlier ones it no longer keeps', () => {
    expect(retryHistory({})).toEqual({ lines: [], earlier: 0 });
    expect(retryHistory({ retries: [{ number: 1, by: 'a', at, variables: [] }] })).toEqual({
      lines: [`Retried by a at ${formatTime(at)}; no variable changed.`],
      earlier: 0,
    });
    const kept = Array.from({ length: 10 }, (_, i) => ({ number: i + 4, by: `p${i + 4}`, at, variables: ['x'] }));
    const history = retryHistory({ retries: kept });
    expect(history.earlier).toBe(3);
    expect(history.lines).toHaveLength(10);
    expect(history.lines[0]).toBe(`Retried by p4 at ${formatTime(at)}; changed x.`);
  });

  it('shows who answered as soon as the taskFinish event arrives', () => {
    const job: JobDocument = {
      _id: 'j1',
      name: 'Change',
      status: 'running',
      tasks: { v1: { ...approval('success'), status: 'running', metrics: { start_time: at - 5_000 } } },
    };
    const after = jobAfterEvent(job, {
      name: 'taskFinish',
      payload: {
        jobId: 'j1',
        name: 'Change',
        status: 'running',
        timestamp: at,
        seq: 4,
        taskId: 'v1',
        taskName: 'ViewData',
        taskStatus: 'complete',
        finishState: 'success',
        by: 'admin',
      },
    });
    expect(after.tasks.v1?.metrics).toEqual({ start_time: at - 5_000, end_time: at, finish_state: 'success', user: 'admin' });
    expect(manualAnswerText(after.tasks.v1)).toBe('Answered “Approve” by admin at 2026-01-12 01:34:15: took its success path.');
  });
});

describe('where a choice of a waiting task leads', () => {
  // Command Template Runner's review task: success ends the job, failure goes back to the check (a revert)
  const job: Pick<JobDocument, 'tasks' | 'transitions'> = {
    tasks: {
      run: { name: 'RunCommandTemplate', summary: 'Run a Command Template against a device' },
      review: { name: 'viewTemplateResults' },
      note: { name: 'stub' },
    },
    transitions: {
      review: { run: { type: 'revert', state: 'failure' }, workflow_end: { type: 'standard', state: 'success' } },
      note: { review: { type: 'standard', state: 'success' }, workflow_end: { type: 'standard', state: 'success' } },
    },
  };

  it('names the end of the job, the next tasks, and a task that runs again', () => {
    expect(whereItLeads(job, 'review', 'success')).toBe('to the end of the job');
    expect(whereItLeads(job, 'review', 'failure')).toBe('back to “Run a Command Template against a device”, which runs again');
    expect(whereItLeads(job, 'note', 'success')).toBe('to “viewTemplateResults” and to the end of the job');
  });

  it('says nothing of a state the workflow leaves the task by no transition of', () => {
    expect(whereItLeads(job, 'note', 'failure')).toBeUndefined();
    expect(whereItLeads(job, 'run', 'success')).toBeUndefined();
  });
});
