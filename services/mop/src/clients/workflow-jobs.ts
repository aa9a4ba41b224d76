import type { HandlerContext } from '@nap/bus';
import { AppError, hasCode } from '@nap/contracts';
import type { JobDocument, Task } from '@nap/contracts';

/** The job and task a manual-task route is about. */
export interface LoadedTask {
  job: JobDocument;
  task: Task;
}

/**
 * The job and task a manual-task route is about, read from the workflow engine over the bus as the
 * caller (`workflow.getJob`); 404 TASK_NOT_FOUND when the job has no such task.
 */
export async function loadTask(ctx: HandlerContext, ids: { jobId: string; taskId: string }): Promise<LoadedTask> {
  const { jobId, taskId } = ids;
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
  // own members only: a task id such as constructor or __proto__ names no task of the job
  const task = Object.hasOwn(job.tasks, taskId) ? job.tasks[taskId] : undefined;
  if (task === undefined) throw new AppError('TASK_NOT_FOUND', `Job "${jobId}" has no task "${taskId}"`);
  return { job, task };
}
