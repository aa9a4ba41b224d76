import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import type { MopContext } from '../context';

/**
 * `POST /mop/reattempt`: counts one more attempt of (job_id, attemptID), stores when it is due and
 * answers at once; 422 MOP_REATTEMPTS_EXHAUSTED past `attempts`, with nothing stored.
 */
export function reattempt(svc: MopContext): Handler<'mop.reattempt'> {
  return async (input) => {
    const { minutes } = input.body;
    const jobId = input.body.job_id ?? 'none';
    const attemptID = input.body.attemptID ?? 'default';
    const attempts = input.body.attempts ?? 0;
    // NAP_TIME_SCALE makes the wait that many times shorter; minutes stays as asked. Worked out before
    // anything is stored (the catalog bounds minutes, so it is a valid time).
    const reattemptAt = Date.now() + Math.round((minutes * 60_000) / svc.timeScale);
    const at = new Date(reattemptAt).toISOString();
    const scheduled = await svc.reattempts.schedule(jobId, attemptID, minutes, attempts, reattemptAt);
    if (scheduled === undefined) {
      throw new AppError(
        'MOP_REATTEMPTS_EXHAUSTED',
        `Step "${attemptID}" of job "${jobId}" was re-attempted ${attempts} times, as many as allowed`,
      );
    }
    svc.scheduler.schedule(scheduled);
    return {
      response: `Attempt ${scheduled.attempt}${attempts > 0 ? ` of ${attempts}` : ''} of "${attemptID}" runs again at ${at} (in ${minutes} minute${minutes === 1 ? '' : 's'})`,
      jobId,
      attemptID,
      attempt: scheduled.attempt,
      ...(attempts > 0 ? { attempts } : {}),
      minutes,
      reattemptAt: scheduled.reattemptAt,
    };
  };
}
