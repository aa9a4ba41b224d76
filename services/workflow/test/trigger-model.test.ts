import { SYSTEM_CALLER } from '@nap/contracts';
import { duesToFire, MAX_FIRES_PER_CLAIM, nextDue, occasionJobId, toTriggerRecord } from '../src/domain/trigger-model';

const HOUR = 3_600_000;
const hourly = { repeatUnit: 'hour' as const, repeatFrequency: 1 };

describe('schedule due times', () => {
  it('repeats by fixed units, and by calendar months', () => {
    expect(nextDue(hourly, 0)).toBe(HOUR);
    expect(nextDue({ repeatUnit: 'week', repeatFrequency: 2 }, 0)).toBe(14 * 24 * HOUR);
    expect(new Date(nextDue({ repeatUnit: 'month', repeatFrequency: 1 }, Date.UTC(2026, 0, 31)) ?? 0).toISOString()).toBe(
      '2026-03-03T00:00:00.000Z',
    );
    expect(nextDue({ repeatUnit: null }, 5)).toBeNull();
  });

  it('fires the due times on time, and the missed ones as processMissedRuns says', () => {
    const now = 10 * HOUR + 1_000;
    // due at 0, 1h, … 10h; 10h is on time (within the grace), the others were missed
    expect(duesToFire({ ...hourly, processMissedRuns: 'none' }, 0, now, 60_000)).toEqual({ fire: [10 * HOUR], next: 11 * HOUR });
    expect(duesToFire({ ...hourly, processMissedRuns: 'last' }, 0, now, 60_000)).toEqual({ fire: [10 * HOUR], next: 11 * HOUR });
    expect(duesToFire({ ...hourly, processMissedRuns: 'all' }, 0, now, 60_000).fire).toHaveLength(11);
    // nothing on time: last fires the latest missed one, none fires nothing
    const later = 10 * HOUR + 30 * 60_000;
    expect(duesToFire({ ...hourly, processMissedRuns: 'last' }, 0, later, 60_000)).toEqual({ fire: [10 * HOUR], next: 11 * HOUR });
    expect(duesToFire({ ...hourly, processMissedRuns: 'none' }, 0, later, 60_000)).toEqual({ fire: [], next: 11 * HOUR });
    // all fires at most a batch at a time; the rest follow from where it stopped
    const many = duesToFire({ repeatUnit: 'second', repeatFrequency: 1, processMissedRuns: 'all' }, 0, 1_000_000, 1);
    expect(many.fire).toHaveLength(MAX_FIRES_PER_CLAIM);
    expect(many.next).toBe(MAX_FIRES_PER_CLAIM * 1_000);
    // a single run that was missed
    expect(duesToFire({ repeatUnit: null, processMissedRuns: 'none' }, 0, HOUR, 60_000)).toEqual({ fire: [], next: null });
  });

  it('derives one job id per trigger and occasion, sorting by time like other job ids', () => {
    const a = occasionJobId('t1', 'due:1000', 1_700_000_000_000);
    expect(a).toMatch(/^[0-9a-f]{24}$/);
    expect(occasionJobId('t1', 'due:1000', 1_700_000_000_000)).toBe(a);
    expect(occasionJobId('t2', 'due:1000', 1_700_000_000_000)).not.toBe(a);
    expect(occasionJobId('t1', 'due:2000', 1_700_000_000_000)).not.toBe(a);
    expect(occasionJobId('t1', 'x', 1_800_000_000_000) > a).toBe(true);
  });

  it('starts a long-past first run at the next due time still ahead, and keeps the due time when only the name changes', () => {
    const now = 100 * HOUR + 5;
    const record = toTriggerRecord(
      { name: 's', type: 'schedule', actionId: 'a', firstRunAt: 0, repeatUnit: 'hour' },
      'body',
      SYSTEM_CALLER,
      now,
      { newId: () => 'id1' },
    );
    expect(record).toMatchObject({
      nextRunAt: 101 * HOUR,
      repeatInterval: HOUR,
      repeatFrequency: 1,
      processMissedRuns: 'none',
      enabled: true,
    });
    const renamed = toTriggerRecord({ name: 'renamed' }, 'body', SYSTEM_CALLER, now + HOUR, {
      existing: { ...record, nextRunAt: 102 * HOUR, lastRunAt: 101 * HOUR },
      newId: () => 'id2',
    });
    expect(renamed).toMatchObject({ _id: 'id1', name: 'renamed', nextRunAt: 102 * HOUR, lastRunAt: 101 * HOUR });
    expect(() => toTriggerRecord({ type: 'manual' }, 'body', SYSTEM_CALLER, now, { existing: record, newId: () => 'x' })).toThrow(
      /cannot change from schedule to manual/,
    );
  });

  it('skips the due times that came while a schedule was disabled: enabled again, it resumes at its next due time from now', () => {
    const update = (submitted: Record<string, unknown>, existing: ReturnType<typeof toTriggerRecord>, now: number) =>
      toTriggerRecord(submitted, 'body', SYSTEM_CALLER, now, { existing, newId: () => 'x' });
    const hourlyFrom0 = toTriggerRecord(
      { name: 's', type: 'schedule', actionId: 'a', firstRunAt: 0, repeatUnit: 'hour', processMissedRuns: 'all' },
      'body',
      SYSTEM_CALLER,
      0,
      { newId: () => 'id1' },
    );
    // disabled at 3h30 with 4h next; enabled at 7h15: 4h … 7h are skipped, whatever processMissedRuns says
    const disabled = update({ enabled: false }, { ...hourlyFrom0, nextRunAt: 4 * HOUR, lastRunAt: 3 * HOUR }, 3.5 * HOUR);
    expect(disabled).toMatchObject({ enabled: false, nextRunAt: 4 * HOUR, lastRunAt: 3 * HOUR });
    expect(update({ enabled: true }, disabled, 7.25 * HOUR)).toMatchObject({ enabled: true, nextRunAt: 8 * HOUR, lastRunAt: 3 * HOUR });
    // enabled again before its next due time came: nothing was skipped
    expect(update({ enabled: true }, disabled, 3.75 * HOUR)).toMatchObject({ nextRunAt: 4 * HOUR });
    // exactly at a due time: that one fires
    expect(update({ enabled: true }, disabled, 6 * HOUR)).toMatchObject({ nextRunAt: 6 * HOUR });
    // another change of a disabled schedule keeps its due time (it is not enabled by it)
    expect(update({ description: 'freeze' }, disabled, 7.25 * HOUR)).toMatchObject({ enabled: false, nextRunAt: 4 * HOUR });
    // calendar months count from the skipped due time
    const monthly = { ...hourlyFrom0, repeatUnit: 'month' as const, enabled: false, nextRunAt: Date.UTC(2026, 0, 31) };
    expect(new Date(update({ enabled: true }, monthly, Date.UTC(2026, 2, 10)).nextRunAt ?? 0).toISOString()).toBe(
      '2026-04-03T00:00:00.000Z',
    );
    // a single run whose time came while disabled does not run
    const once = toTriggerRecord(
      { name: 'o', type: 'schedule', actionId: 'a', firstRunAt: HOUR, enabled: false },
      'body',
      SYSTEM_CALLER,
      0,
      {
        newId: () => 'id3',
      },
    );
    expect(once).toMatchObject({ enabled: false, nextRunAt: HOUR, repeatUnit: null });
    expect(update({ enabled: true }, once, 2 * HOUR)).toMatchObject({ enabled: true, nextRunAt: null });
  });
});
