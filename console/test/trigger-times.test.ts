import type { Trigger } from '../src/api/nap';
import { comingUp, disabledText, refetchIntervalMs, relativeTime, repeatText } from '../src/pages/automations/trigger-times';

/** The Automations page's times: a schedule's next run, the last job a trigger started, the runs coming up. */

const NOW = Date.UTC(2026, 11, 3, 18, 0, 0);
const MIN = 60_000;

function schedule(name: string, nextRunAt: number | null, enabled = true): Trigger {
  return {
    _id: name.toLowerCase().replace(/\W+/g, '-'),
    name,
    type: 'schedule',
    enabled,
    actionType: 'automations',
    actionId: 'automation-1',
    created: '2026-12-01T00:00:00.000Z',
    createdBy: 'admin',
    lastUpdated: '2026-12-01T00:00:00.000Z',
    lastUpdatedBy: 'admin',
    firstRunAt: NOW,
    repeatUnit: 'hour',
    repeatFrequency: 1,
    nextRunAt,
  };
}

describe('the Automations page’s times', () => {
  it('say how far a moment is with the console’s durations, ahead or past', () => {
    expect(relativeTime(NOW + 2 * 60 * MIN + 4 * MIN, NOW)).toBe('in 2 h 04 min');
    expect(relativeTime(NOW - 5 * MIN - 3000, NOW)).toBe('5 min 03 s ago');
    expect(relativeTime(NOW + 12_500, NOW)).toBe('in 12 s');
    expect(relativeTime(NOW - 400, NOW)).toBe('now');
  });

  it('say a schedule’s repeat in words', () => {
    expect(repeatText({ repeatUnit: 'hour', repeatFrequency: 1 })).toBe('every hour');
    expect(repeatText({ repeatUnit: 'day', repeatFrequency: 2 })).toBe('every 2 days');
    expect(repeatText({ repeatUnit: null })).toBe('once');
    expect(repeatText({})).toBe('once');
  });

  it('list the next runs of the enabled schedules soonest first, at most ten, never a disabled one’s stored next run', () => {
    const triggers = [
      schedule('Later', NOW + 90 * MIN),
      schedule('Frozen', NOW - 30 * MIN, false),
      schedule('Soon', NOW + 5 * MIN),
      schedule('Done', null),
      { ...schedule('Manual', null), type: 'manual' as const },
    ];
    expect(comingUp(triggers).map((t) => t.name)).toEqual(['Soon', 'Later']);
    const many = Array.from({ length: 14 }, (_, i) => schedule(`Every ${i}`, NOW + (14 - i) * MIN));
    expect(comingUp(many).map((t) => t.name)).toEqual([
      'Every 13',
      'Every 12',
      'Every 11',
      'Every 10',
      'Every 9',
      'Every 8',
      'Every 7',
      'Every 6',
      'Every 5',
      'Every 4',
    ]);
  });

  it('read the triggers again every 30 s, every 5 s while a coming run is due and not yet moved on', () => {
    expect(refetchIntervalMs(undefined, NOW)).toBe(30_000);
    expect(refetchIntervalMs([schedule('Soon', NOW + MIN), schedule('Frozen', NOW - MIN, false)], NOW)).toBe(30_000);
    expect(refetchIntervalMs([schedule('Due', NOW - 200)], NOW)).toBe(5_000);
  });

  it('say what a disabled trigger does not do', () => {
    expect(disabledText('schedule')).toBe('its runs are skipped while disabled');
    expect(disabledText('endpoint')).toBe('calls to its route are refused');
    expect(disabledText('eventSystem')).toBe('its events start no job');
    expect(disabledText('manual')).toBe('it cannot be run');
  });
});
