import { SYSTEM_CALLER, isRetryable } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import { errorMessage } from '@nap/util';
import { duesToFire, occasionJobId } from '../domain/trigger-model';
import type { TriggerRecord } from '../domain/trigger-model';
import type { TriggerRepository } from '../store/trigger-repository';
import { Ticker } from './ticker';
import type { TriggerStarter } from './trigger-starter';

/** Timing of the schedule runner, in milliseconds. */
export interface ScheduleTiming {
  /** A claim on a due time that was not released for this long may be taken by another replica (the engine's lease). */
  leaseMs: number;
  /** How often the store is asked for due schedules. */
  tickMs: number;
  /** A due time later than this when it is fired was missed (no replica could fire it): `processMissedRuns` decides. */
  graceMs: number;
}

/**
 * Fires schedule triggers, exactly once per due time across every engine replica. Each tick a
 * replica looks for schedules that are due and claims one at a time (a conditional update: server
 * id and claim time, the same lease the engine uses for jobs). The holder starts the jobs of the due
 * times to fire, each with an id derived from trigger and due time, so that a replica that takes
 * over a claim whose holder died before moving the schedule on creates no second job; then it moves
 * the schedule to its next due time and releases the claim in one conditional update. The due
 * times live in the store, so schedules survive restarts.
 */
export class ScheduleRunner {
  private readonly ticker: Ticker;

  constructor(
    private readonly triggers: TriggerRepository,
    private readonly starter: TriggerStarter,
    private readonly serverId: string,
    private readonly timing: ScheduleTiming,
    /** False while the job worker is deactivated: nothing is fired (due times wait, then count as missed). */
    private readonly claimsJobs: () => boolean,
    private readonly log: Logger,
  ) {
    this.ticker = new Ticker({
      everyMs: timing.tickMs,
      work: () => this.fireDue(),
      onError: (err) => log.warn({ err }, 'Firing due schedules failed'),
      ready: claimsJobs,
    });
  }

  start(): void {
    this.ticker.start();
  }

  stop(): Promise<void> {
    return this.ticker.stop();
  }

  /** One look for due schedules (ticks do not overlap). */
  tick(): Promise<void> {
    return this.ticker.tick();
  }

  private async fireDue(): Promise<void> {
    const now = Date.now();
    for (const id of await this.triggers.dueSchedules(now, now - this.timing.leaseMs)) {
      if (this.ticker.stopped || !this.claimsJobs()) return;
      const claimed = await this.triggers.claimDue(id, this.serverId, Date.now(), this.timing.leaseMs);
      if (claimed !== null) await this.fireClaimed(claimed);
    }
  }

  /** Fires the due times of a schedule this replica holds, then moves it on and releases it. */
  private async fireClaimed(trigger: TriggerRecord): Promise<void> {
    const from = trigger.nextRunAt;
    if (from === null || from === undefined) {
      await this.triggers.release(trigger._id, this.serverId);
      return;
    }
    const { fire, next } = duesToFire(trigger, from, Date.now(), this.timing.graceMs);
    let renewedAt = Date.now();
    for (const due of fire) {
      if (Date.now() - renewedAt > this.timing.leaseMs / 3) {
        if (!(await this.triggers.renewClaim(trigger._id, this.serverId, Date.now()))) return;
        renewedAt = Date.now();
      }
      const caller = trigger.runAs ?? SYSTEM_CALLER;
      const jobId = occasionJobId(trigger._id, `due:${due}`, due);
      try {
        const job = await this.starter.start(trigger, { ...(trigger.formData ?? {}) }, caller, { jobId, due });
        // before the schedule moves on: a record that could not be kept fires the due time again (kept once)
        await this.starter.recordStart('schedule', trigger, caller, jobId);
        this.log.info({ triggerId: trigger._id, due, jobId: job?._id, alreadyFired: job === undefined }, 'Schedule fired');
      } catch (err) {
        if (isRetryable(err)) {
          // the owning service is away for a moment: the due time stays, and is fired again on a later tick
          this.log.warn({ err, triggerId: trigger._id, due }, 'A schedule could not fire now; it is tried again');
          await this.triggers.release(trigger._id, this.serverId);
          return;
        }
        // a job that cannot start (automation or workflow gone, variables refused) would fail every time
        await this.starter
          .recordStart('schedule', trigger, caller, jobId, err)
          .catch((recordErr: unknown) =>
            this.log.warn({ err: recordErr, triggerId: trigger._id, due }, 'The failed start of a schedule could not be audited'),
          );
        this.log.error(
          { triggerId: trigger._id, due, reason: errorMessage(err) },
          'A schedule could not start its automation; this due time is skipped',
        );
      }
    }
    const lastFired = fire.length > 0 ? (fire[fire.length - 1] as number) : null;
    if (!(await this.triggers.advance(trigger._id, this.serverId, from, next, lastFired))) {
      this.log.info({ triggerId: trigger._id }, 'A schedule changed while it fired; its new timing applies');
    }
  }
}
