import { AppError } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import { startFromTrigger } from '../context';
import type { WorkflowContext } from '../context';
import { toPublicJob } from '../domain/job-model';
import { assertEnabled } from '../domain/trigger-model';

/** `POST /operations-manager/triggers/endpoint/:routeName`: checks, transforms and starts, as the caller; the job in the envelope. */
export function runEndpointTrigger(svc: WorkflowContext): Handler<'workflow.runEndpointTrigger'> {
  return async (input, ctx) => {
    const { routeName } = input.params;
    const trigger = await svc.triggers.findEndpoint(routeName);
    if (trigger === null) throw new AppError('TRIGGER_NOT_FOUND', `No endpoint trigger has the route name "${routeName}"`);
    assertEnabled(trigger);
    const body = await svc.triggerStarter.checkBody(trigger, input.body ?? {});
    const variables = await svc.triggerStarter.variablesOf(trigger, input.body === undefined ? input.body : body, ctx.caller);
    return {
      message: 'Successfully created the requested item',
      data: toPublicJob(await startFromTrigger(svc, trigger, variables, ctx)),
      metadata: {},
    };
  };
}
