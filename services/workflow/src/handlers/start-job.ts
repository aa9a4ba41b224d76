import { jsonTextReply } from '@nap/bus';
import type { Handler } from '@nap/bus';
import type { ResponseOf } from '@nap/contracts';
import { startWithOptions } from '../context';
import type { WorkflowContext } from '../context';
import { toPublicJobJson } from '../domain/job-model';

/** `POST /operations-manager/jobs/start`: starts a job of the named workflow; the job (as it starts) in the envelope. */
export function startJob(svc: WorkflowContext): Handler<'workflow.startJob'> {
  return async (input, ctx) => {
    const job = await startWithOptions(svc, ctx, input.body.workflow, input.body.options ?? {}, toPublicJobJson);
    return jsonTextReply<ResponseOf<'workflow.startJob'>>(
      `{"message":"Successfully created the requested item","data":${job},"metadata":{}}`,
    );
  };
}
