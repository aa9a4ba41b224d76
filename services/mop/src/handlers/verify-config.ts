import type { Handler } from '@nap/bus';
import { loadTask } from '../clients/workflow-jobs';
import { incomingOf, manualTaskAnswer } from '../domain/manual-tasks';

/** `GET /mop/task/verifyConfig`: the configuration to verify before it is applied. */
export function verifyConfig(): Handler<'mop.verifyConfig'> {
  return async (input, ctx) => {
    const { job, task } = await loadTask(ctx, input.query);
    const incoming = incomingOf(job, task);
    return manualTaskAnswer('verifyConfig', input.query, task, {
      incoming,
      config: Object.values(incoming).find((v) => typeof v === 'string') ?? null,
      decide: 'Finish the task with { verified: true } to apply the configuration, or { verified: false }',
    });
  };
}
