import type { Handler } from '@nap/bus';
import { assertMayRun, toPublicJob } from '../domain/job-model';
import type { WorkflowHandlerContext } from './context';

/** `POST /operations-manager/jobs/start`: starts a job of the named workflow; the job in the envelope. */
export function startJob(c: WorkflowHandlerContext): Handler<'workflow.startJob'> {
  return async (input, ctx) => {
    const workflow = await ctx.call('studio.getWorkflow', { body: { name: input.body.workflow } });
    assertMayRun(workflow, ctx.caller);
    const options = input.body.options ?? {};
    const job = await c.engine.startJob({
      workflow,
      caller: ctx.caller,
      ...(options.variables !== undefined ? { variables: options.variables } : {}),
      ...(options.description !== undefined ? { description: options.description } : {}),
      ...(options.type !== undefined ? { type: options.type } : {}),
      ...(options.groups !== undefined ? { groups: options.groups } : {}),
    });
    return { message: 'Successfully created the requested item', data: toPublicJob(job), metadata: {} };
  };
}
