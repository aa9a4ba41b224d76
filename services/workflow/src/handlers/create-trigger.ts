import type { Handler } from '@nap/bus';
import { saveTrigger } from '../context';
import type { WorkflowContext } from '../context';
import { toPublicTrigger, unwrapTrigger } from '../domain/trigger-model';

/** `POST /operations-manager/triggers`: the body is the trigger (or `{ trigger }`). */
export function createTrigger(svc: WorkflowContext): Handler<'workflow.createTrigger'> {
  return async (input, ctx) => {
    const { input: submitted, member } = unwrapTrigger(input.body);
    return {
      message: 'Successfully created the requested item',
      data: toPublicTrigger(await saveTrigger(svc, submitted, member, ctx.caller, false)),
      metadata: {},
    };
  };
}
