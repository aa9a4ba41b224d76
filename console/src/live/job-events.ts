import type { JobEvent, JobEventName, TaskEvent } from '@nap/contracts';
import type { JobDocument } from '../api/nap';

/** A job event as the streams deliver it: its name and payload. */
export type LiveJobEvent = { name: JobEventName; payload: JobEvent | TaskEvent };

const JOB_EVENT_NAMES: ReadonlySet<string> = new Set<JobEventName>([
  'jobStart',
  'jobComplete',
  'jobError',
  'jobCancel',
  'jobPause',
  'jobResume',
  'taskStart',
  'taskFinish',
]);

/** Reads a job event from a stream message; undefined for anything else (comments, snapshots, unknown events). */
export function parseJobEvent(name: string, data: string): LiveJobEvent | undefined {
  if (!JOB_EVENT_NAMES.has(name)) return undefined;
  try {
    const payload = JSON.parse(data) as JobEvent | TaskEvent;
    return typeof payload.jobId === 'string' ? { name: name as JobEventName, payload } : undefined;
  } catch {
    return undefined;
  }
}

export function isTaskEvent(payload: JobEvent | TaskEvent): payload is TaskEvent {
  return 'taskId' in payload && typeof payload.taskId === 'string';
}

export const FINAL_EVENTS: ReadonlySet<string> = new Set(['jobComplete', 'jobError', 'jobCancel']);

/** The job after the event: its status, a task's status, its end time. Older events than the document's change nothing. */
export function jobAfterEvent(job: JobDocument, event: LiveJobEvent): JobDocument {
  const { payload } = event;
  const next: JobDocument = { ...job, status: payload.status };
  if (FINAL_EVENTS.has(event.name)) next.metrics = { ...job.metrics, end_time: payload.timestamp };
  if (isTaskEvent(payload)) {
    const task = job.tasks[payload.taskId];
    if (task) {
      const metrics =
        event.name === 'taskStart'
          ? // a task that starts (again: a retry) has not finished yet: how it finished before no longer holds
            { ...task.metrics, start_time: payload.timestamp, finish_state: undefined }
          : {
              ...task.metrics,
              end_time: payload.timestamp,
              ...('finishState' in payload ? { finish_state: payload.finishState } : {}),
              // a manual task: who answered it
              ...('by' in payload && typeof payload.by === 'string' ? { user: payload.by } : {}),
            };
      next.tasks = { ...job.tasks, [payload.taskId]: { ...task, status: payload.taskStatus, metrics } };
    }
  }
  return next;
}
