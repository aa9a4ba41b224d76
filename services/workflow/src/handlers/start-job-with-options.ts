import { assertJsonDepth } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import { assertMayRun, toPublicJob } from '../domain/job-model';
import type { WorkflowHandlerContext } from './context';

/** Operation 17: starts a job of the named workflow; answers the job as it starts (status running). */
export function startJobWithOptions(c: WorkflowHandlerContext): Handler<'workflow.startJobWithOptions'> {
  return async (input, ctx) => {
    const workflow = await ctx.call('studio.getWorkflow', { body: { name: input.params.workflow } });
    assertMayRun(workflow, ctx.caller);
    const { options } = input.body;
    // job variables are walked by the engine (references, templates, JSON queries) for the job's life
    assertJsonDepth(options.variables, 'options.variables');
    const job = await c.engine.startJob({
      workflow,
      caller: ctx.caller,
      ...(options.variables !== undefined ? { variables: options.variables } : {}),
      ...(options.description !== undefined ? { description: options.description } : {}),
      ...(options.type !== undefined ? { type: options.type } : {}),
      ...(options.groups !== undefined ? { groups: options.groups } : {}),
      ...(options.pinned !== undefined ? { pinned: options.pinned } : {}),
    });
    return toPublicJob(job);
  };
}
