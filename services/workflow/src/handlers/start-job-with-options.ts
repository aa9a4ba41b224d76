import { assertJsonDepth } from '@nap/contracts';
import type { Handler, HandlerContext } from '@nap/bus';
import type { StartJobWithOptionsBody } from '@nap/contracts';
import { assertMayRun, toPublicJob } from '../domain/job-model';
import type { JobRecord } from '../domain/job-model';
import type { WorkflowHandlerContext } from './context';

/** Starts a job of the named workflow with the options of startJobWithOptions, as the caller. */
export async function startWithOptions(
  c: WorkflowHandlerContext,
  ctx: HandlerContext,
  workflowName: string,
  options: StartJobWithOptionsBody['options'],
): Promise<JobRecord> {
  const workflow = await ctx.call('studio.getWorkflow', { body: { name: workflowName } });
  assertMayRun(workflow, ctx.caller);
  // job variables are walked by the engine (references, templates, JSON queries) for the job's life
  assertJsonDepth(options.variables, 'options.variables');
  return c.engine.startJob({
    workflow,
    caller: ctx.caller,
    ...(options.variables !== undefined ? { variables: options.variables } : {}),
    ...(options.description !== undefined ? { description: options.description } : {}),
    ...(options.type !== undefined ? { type: options.type } : {}),
    ...(options.groups !== undefined ? { groups: options.groups } : {}),
    ...(options.pinned !== undefined ? { pinned: options.pinned } : {}),
  });
}

/** Operation 17: starts a job of the named workflow; answers the job as it starts (status running). */
export function startJobWithOptions(c: WorkflowHandlerContext): Handler<'workflow.startJobWithOptions'> {
  return async (input, ctx) => toPublicJob(await startWithOptions(c, ctx, input.params.workflow, input.body.options));
}
