import { rawReply } from '@nap/bus';
import type { HandlerContext, HandlerMap } from '@nap/bus';
import { AppError, hasCode } from '@nap/contracts';
import type { JobDocument, ResponseOf, Task } from '@nap/contracts';
import { diffConfigView, incomingOf, reviewSummaryView, templateResultsView, templatesDiffView } from '../domain/manual-tasks';
import { listInventory } from './devices';

/** The members every manual-task query has. */
interface TaskQuery {
  jobId: string;
  taskId: string;
}

/** What a manual task answers (every task answers this shape). */
type TaskAnswer = ResponseOf<'mop.chooseDevice'>;

/** The data one manual task shows, from the job, the task and its incoming variables (references resolved). */
type View = (job: JobDocument, task: Task, incoming: Record<string, unknown>) => Promise<Record<string, unknown>> | Record<string, unknown>;

/** The job and task a manual-task route is about, read from the workflow engine over the bus. */
async function loadTask(ctx: HandlerContext, jobId: string, taskId: string): Promise<{ job: JobDocument; task: Task }> {
  let job: JobDocument;
  try {
    job = (await ctx.call('workflow.getJob', { params: { jobId } })).data;
  } catch (err) {
    if (hasCode(err, 'NOT_IMPLEMENTED')) {
      throw new AppError('NOT_IMPLEMENTED', 'The workflow engine does not offer workflow.getJob yet, so the manual task cannot be shown', {
        cause: err,
      });
    }
    if (hasCode(err, 'SERVICE_UNAVAILABLE') || hasCode(err, 'TIMEOUT')) {
      throw new AppError('SERVICE_UNAVAILABLE', 'The workflow engine does not answer; the manual task cannot be shown now, try again', {
        cause: err,
      });
    }
    throw err;
  }
  const task = job.tasks[taskId];
  if (task === undefined) throw new AppError('TASK_NOT_FOUND', `Job "${jobId}" has no task "${taskId}"`);
  return { job, task };
}

function finish(jobId: string, taskId: string): { method: string; path: string } {
  return { method: 'POST', path: `/operations-manager/jobs/${encodeURIComponent(jobId)}/tasks/${encodeURIComponent(taskId)}/finish` };
}

/** The answer of manual task `name`: the task's status, what `view` shows, and how to finish the task. */
async function present(name: string, loaded: { job: JobDocument; task: Task }, query: TaskQuery, view: View): Promise<TaskAnswer> {
  const { job, task } = loaded;
  const { jobId, taskId } = query;
  return {
    jobId,
    taskId,
    task: name,
    status: task.status ?? null,
    view: await view(job, task, incomingOf(job, task)),
    finish: finish(jobId, taskId),
  };
}

/** Loads the job and task of `query` and answers what manual task `name` shows with `view`. */
async function show(name: string, query: TaskQuery, ctx: HandlerContext, view: View): Promise<TaskAnswer> {
  return present(name, await loadTask(ctx, query.jobId, query.taskId), query, view);
}

/** The seven manual-task routes `GET /mop/task/<name>?jobId&taskId`. */
export function manualTaskHandlers(): HandlerMap<'mop'> {
  return {
    chooseDevice: async (input, ctx) =>
      show('chooseDevice', input.query, ctx, async (_job, _task, incoming) => {
        const offered = Array.isArray(incoming.devices) ? incoming.devices.map(String) : undefined;
        const devices = offered ?? (await listInventory(ctx)).map((d) => d.name);
        return { devices, incoming, decide: 'Finish the task with variables { device: <one of devices> }' };
      }),
    diffConfig: async (input, ctx) =>
      show('diffConfig', input.query, ctx, (_job, _task, incoming) => ({
        ...diffConfigView(incoming),
        decide: 'Finish the task to accept the change, or with { approved: false } to refuse it',
      })),
    reloadFailed: async (input, ctx) =>
      show('reloadFailed', input.query, ctx, (job, task, incoming) => ({
        incoming,
        error: task.variables?.error ?? null,
        jobErrors: job.error ?? [],
        options: ['retry', 'continue', 'abort'],
        decide: 'Finish the task with variables { action: "retry" | "continue" | "abort" }',
      })),
    reviewSummary: async (input, ctx) => {
      const loaded = await loadTask(ctx, input.query.jobId, input.query.taskId);
      if (input.query.download === true)
        return rawReply(JSON.stringify(loaded.job, null, 2), 'application/json', { filename: `job-${loaded.job._id}.json` });
      return present('reviewSummary', loaded, input.query, (job) => ({
        ...reviewSummaryView(job),
        decide: 'Finish the task once reviewed; add download=true to this route for the job data as JSON',
      }));
    },
    runTemplatesDiff: async (input, ctx) =>
      show('runTemplatesDiff', input.query, ctx, (_job, _task, incoming) => ({
        ...templatesDiffView(incoming.pre, incoming.post),
        decide: 'Finish the task to accept the differences',
      })),
    verifyConfig: async (input, ctx) =>
      show('verifyConfig', input.query, ctx, (_job, _task, incoming) => ({
        incoming,
        config: Object.values(incoming).find((v) => typeof v === 'string') ?? null,
        decide: 'Finish the task with { verified: true } to apply the configuration, or { verified: false }',
      })),
    viewTemplateResults: async (input, ctx) =>
      show('viewTemplateResults', input.query, ctx, (_job, _task, incoming) => ({
        ...templateResultsView(incoming.mop_template_results ?? incoming.results ?? incoming.result),
        decide: 'Finish the task once reviewed',
      })),
  };
}
