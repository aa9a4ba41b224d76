import type { Doc } from '@nap/store';
import { isRecord } from '@nap/util';

/**
 * The tasks of jobs as the task list shows them: one item per task (entry and exit left out), with
 * its job's id, name and status, and `_id` `<jobId>:<taskId>`. The engine's bookkeeping on a task
 * (pending answers, loop and child-run state) stays inside.
 */
export function flattenTasks(jobs: readonly Record<string, unknown>[]): Doc[] {
  const out: Doc[] = [];
  for (const job of jobs) {
    if (!isRecord(job.tasks) || typeof job._id !== 'string') continue;
    const summary = { _id: job._id, name: String(job.name ?? ''), status: String(job.status ?? '') };
    for (const [id, task] of Object.entries(job.tasks)) {
      if (!isRecord(task) || id === 'workflow_start' || id === 'workflow_end') continue;
      const { finishRequest: _f, loop: _l, childRun: _c, writes: _w, retryAt: _r, ...shown } = task;
      out.push({ ...shown, _id: `${job._id}:${id}`, id, job: summary });
    }
  }
  return out;
}
