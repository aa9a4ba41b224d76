import { formatDuration } from '../../api/job-data';
import type { Trigger } from '../../api/nap';

/**
 * When triggers start jobs, as the Automations page says it: a schedule's next run, the last time a
 * trigger started a job, and the schedules coming up. Pure rules (no React): the page and its tests
 * read the same ones.
 */

/** At most this many runs in the Coming up card. */
export const COMING_UP_LIMIT = 10;

/**
 * How far a moment is from now, with the console's durations: `in 2 h 04 min`, `5 min 03 s ago`,
 * `now` within a second either way.
 */
export function relativeTime(at: number, now: number): string {
  const ms = at - now;
  if (Math.abs(ms) < 1000) return 'now';
  // whole units, as a clock counts down (and up)
  return ms > 0 ? `in ${formatDuration(ms, 'floor')}` : `${formatDuration(-ms, 'floor')} ago`;
}

/** A schedule's repeat in words: `every hour`, `every 2 days`, `once`. */
export function repeatText(trigger: Pick<Trigger, 'repeatUnit' | 'repeatFrequency'>): string {
  const unit = trigger.repeatUnit ?? null;
  if (unit === null) return 'once';
  const frequency = trigger.repeatFrequency ?? 1;
  return frequency === 1 ? `every ${unit}` : `every ${frequency} ${unit}s`;
}

/** True for a schedule whose next run is a coming one: enabled, and with a next due time (a disabled one's may be long past). */
export function hasComingRun(trigger: Trigger): trigger is Trigger & { nextRunAt: number } {
  return trigger.type === 'schedule' && trigger.enabled !== false && typeof trigger.nextRunAt === 'number';
}

/** The next runs of the enabled schedules, soonest first, at most {@link COMING_UP_LIMIT}. */
export function comingUp(triggers: readonly Trigger[], limit = COMING_UP_LIMIT): (Trigger & { nextRunAt: number })[] {
  return triggers
    .filter(hasComingRun)
    .sort((a, b) => a.nextRunAt - b.nextRunAt || a.name.localeCompare(b.name))
    .slice(0, limit);
}

/** What a disabled trigger does not do, in a few words. */
export function disabledText(type: Trigger['type']): string {
  switch (type) {
    case 'schedule':
      return 'its runs are skipped while disabled';
    case 'endpoint':
      return 'calls to its route are refused';
    case 'eventSystem':
      return 'its events start no job';
    default:
      return 'it cannot be run';
  }
}

/**
 * How often the triggers are read again: every 30 s (a fired schedule moves on, another person's
 * change shows), every 5 s while a coming run is due and the platform has not moved it on yet.
 */
export function refetchIntervalMs(triggers: readonly Trigger[] | undefined, now: number): number {
  return (triggers ?? []).some((t) => hasComingRun(t) && t.nextRunAt <= now) ? 5_000 : 30_000;
}
