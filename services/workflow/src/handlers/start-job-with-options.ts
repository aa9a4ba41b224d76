import { jsonTextReply } from '@nap/bus';
import type { Handler } from '@nap/bus';
import type { JobDocument } from '@nap/contracts';
import { startWithOptions } from '../context';
import type { WorkflowContext } from '../context';
import { toPublicJobJson } from '../domain/job-model';

/** `POST /workflow_engine/startJobWithOptions/:workflow`: starts a job of the named workflow; answers the job as it starts (status running). */
export function startJobWithOptions(svc: WorkflowContext): Handler<'workflow.startJobWithOptions'> {
  return async (input, ctx) =>
    jsonTextReply<JobDocument>(await startWithOptions(svc, ctx, input.params.workflow, input.body.options, toPublicJobJson));
}
