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
});
