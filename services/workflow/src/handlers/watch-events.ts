import { AppError, JOB_EVENTS, seesEveryJob } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import type { WorkflowContext } from '../context';

function list(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * `GET /operations-manager/events` over the bus: checks the filter and answers it normalized (the
 * gateway streams the events); `allJobs` tells the gateway whether it must ask which jobs the caller may see.
 */
export function watchEvents(_svc: WorkflowContext): Handler<'workflow.watchEvents'> {
  return async (input, ctx) => {
    const events = list(input.query.event);
    const unknown = events.filter((e) => !(JOB_EVENTS as readonly string[]).includes(e));
    if (unknown.length > 0) {
      throw new AppError(
        'VALIDATION_FAILED',
        `query.event names ${unknown.map((e) => `"${e}"`).join(', ')}, which ${unknown.length === 1 ? 'is not a job event' : 'are not job events'}; use ${JOB_EVENTS.join(', ')}`,
        {
          details: [{ member: 'query.event', message: `must list job events: ${JOB_EVENTS.join(', ')}` }],
        },
      );
    }
    return { workflows: list(input.query.workflow), events, allJobs: seesEveryJob(ctx.caller) };
  };
}
