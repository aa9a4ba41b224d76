import type { Handler } from '@nap/bus';
import { startWithOptions } from '../context';
import type { WorkflowContext } from '../context';
import { toPublicJob } from '../domain/job-model';

/** `POST /workflow_engine/startJobWithOptions/:workflow`: starts a job of the named workflow; answers the job as it starts (status running). */
export function startJobWithOptions(svc: WorkflowContext): Handler<'workflow.startJobWithOptions'> {
  return async (input, ctx) => startWithOptions(svc, ctx, input.params.workflow, input.body.options, toPublicJob);
}
