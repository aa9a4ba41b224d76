import type { Handler, HandlerContext, HandlerMap } from '@nap/bus';
import { AppError, hasCode } from '@nap/contracts';
import type { JobDocument, JobEnvelope, Task } from '@nap/contracts';
import { reply } from '@nap/bus';
import { diffConfigView, incomingOf, reviewSummaryView, templateResultsView, templatesDiffView } from '../domain/manual-tasks';
import { listInventory } from './devices';

type TaskQuery = { query: { jobId: string; taskId: string; download?: boolean } };

/** The job and task a manual-task route is about, read from the workflow engine over the bus. */
async function loadTask(ctx: HandlerContext, jobId: string, taskId: string): Promise<{ job: JobDocument; task: Task }> {
  let envelope: JobEnvelope;
  try {
    envelope = await ctx.call<JobEnvelope>('workflow.getJob', { params: { jobId } });
  } catch (err) {
    if (hasCode(err, 'NOT_IMPLEMENTED')) {
      throw new AppError('NOT_IMPLEMENTED', 'The workflow engine does not offer workflow.getJob yet, so the manual task cannot be shown', { cause: err });
    }
    if (hasCode(err, 'SERVICE_UNAVAILABLE') || hasCode(err, 'TIMEOUT')) {
      throw new AppError('SERVICE_UNAVAILABLE', 'The workflow engine does not answer; the manual task cannot be shown now, try again', { cause: err });
    }
    throw err;
  }
  const job = envelope.data;
  const task = job.tasks[taskId];
  if (task === undefined) throw new AppError('TASK_NOT_FOUND', `Job "${jobId}" has no task "${taskId}"`);
  return { job, task };
}

function finish(jobId: string, taskId: string): { method: string; path: string } {
  return { method: 'POST', path: `/operations-manager/jobs/${encodeURIComponent(jobId)}/tasks/${encodeURIComponent(taskId)}/finish` };
}

function manual(name: string, view: (job: JobDocument, task: Task, incoming: Record<string, unknown>, ctx: HandlerContext) => Promise<Record<string, unknown>> | Record<string, unknown>): Handler {
  return (async (input: TaskQuery, ctx) => {
    const { jobId, taskId } = input.query;
    const { job, task } = await loadTask(ctx, jobId, taskId);
    const incoming = incomingOf(job, task);
    if (name === 'reviewSummary' && input.query.download === true) {
      return reply(200, JSON.stringify(job, null, 2), 'application/json');
    }
    return { jobId, taskId, task: name, status: task.status ?? null, view: await view(job, task, incoming, ctx), finish: finish(jobId, taskId) };
  }) as Handler;
}

/** The seven manual-task routes `GET /mop/task/<name>?jobId&taskId`. */
export function manualTaskHandlers(): HandlerMap {
  return {
    chooseDevice: manual('chooseDevice', async (_job, _task, incoming, ctx) => {
      const offered = Array.isArray(incoming.devices) ? incoming.devices.map(String) : undefined;
      const devices = offered ?? (await listInventory(ctx)).map((d) => d.name);
      return { devices, incoming, decide: 'Finish the task with variables { device: <one of devices> }' };
    }),
    diffConfig: manual('diffConfig', (_job, _task, incoming) => ({ ...diffConfigView(incoming), decide: 'Finish the task to accept the change, or with { approved: false } to refuse it' })),
    reloadFailed: manual('reloadFailed', (job, task, incoming) => ({
      incoming,
      error: task.variables?.error ?? null,
      jobErrors: job.error ?? [],
      options: ['retry', 'continue', 'abort'],
      decide: 'Finish the task with variables { action: "retry" | "continue" | "abort" }',
    })),
    reviewSummary: manual('reviewSummary', (job) => ({ ...reviewSummaryView(job), decide: 'Finish the task once reviewed; add download=true to this route for the job data as JSON' })),
    runTemplatesDiff: manual('runTemplatesDiff', (_job, _task, incoming) => ({ ...templatesDiffView(incoming.pre, incoming.post), decide: 'Finish the task to accept the differences' })),
    verifyConfig: manual('verifyConfig', (_job, _task, incoming) => ({
      incoming,
      config: Object.values(incoming).find((v) => typeof v === 'string') ?? null,
      decide: 'Finish the task with { verified: true } to apply the configuration, or { verified: false }',
    })),
    viewTemplateResults: manual('viewTemplateResults', (_job, _task, incoming) => ({
      ...templateResultsView(incoming.mop_template_results ?? incoming.results ?? incoming.result),
      decide: 'Finish the task once reviewed',
    })),
  };
}
