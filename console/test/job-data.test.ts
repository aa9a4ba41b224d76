import { formatDuration, isCancelable, isTicking, jobDurationMs, toJobSummary } from '../src/api/job-data';
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
