import { encodeJson } from '@nap/bus';
import type { Bus } from '@nap/bus';
import { eventSubject } from '@nap/contracts';
import type { Reattempt } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import type { ReattemptRepository } from '../store/reattempts';

/** setTimeout takes at most 2^31-1 ms; longer waits are chained. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Fires stored re-attempts when they are due: marks them due and publishes the `reattemptDue` event
 * of the re-attempt (`eventSubject('mop', 'reattempt', id, 'reattemptDue')`). Waiting attempts are
 * loaded again at start, so a restart resumes them (one already overdue fires at once). An attempt
 * never fires before its `reattemptAt`: a timer that wakes early (timers round to the millisecond)
 * waits again for the rest.
 */
export class ReattemptScheduler {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly repo: ReattemptRepository,
    private readonly bus: Bus,
    private readonly logger: Logger,
  ) {}

  async resume(): Promise<number> {
    const waiting = await this.repo.waiting();
    for (const attempt of waiting) this.schedule(attempt);
    return waiting.length;
  }

  schedule(attempt: Reattempt): void {
    if (this.stopped) return;
    const existing = this.timers.get(attempt._id);
    if (existing) clearTimeout(existing);
    const wait = Math.max(0, attempt.reattemptAt - Date.now());
    const timer = setTimeout(
      () => {
        this.timers.delete(attempt._id);
        // a long wait is chained, and a timer may wake a millisecond early: wait again for what is left
        if (Date.now() < attempt.reattemptAt) this.schedule(attempt);
        else void this.fire(attempt);
      },
      Math.min(wait, MAX_TIMER_MS),
    );
    timer.unref();
    this.timers.set(attempt._id, timer);
  }

  private async fire(attempt: Reattempt): Promise<void> {
    try {
      if (!(await this.repo.markDue(attempt._id, attempt.reattemptAt))) return;
      const payload = {
        jobId: attempt.jobId,
        attemptID: attempt.attemptID,
        attempt: attempt.attempt,
        attempts: attempt.attempts,
        reattemptAt: attempt.reattemptAt,
      };
      await this.bus.publishEvent(eventSubject('mop', 'reattempt', attempt._id, 'reattemptDue'), encodeJson(payload));
    } catch (err) {
      this.logger.error({ err, reattempt: attempt._id }, 'A due re-attempt could not be marked or announced');
    }
  }

  /** Number of attempts waiting in this process. */
  get pending(): number {
    return this.timers.size;
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
