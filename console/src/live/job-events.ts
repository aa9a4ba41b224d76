import type { QueryClient } from '@tanstack/react-query';
import type { JobEvent, JobEventName, TaskEvent } from '@nap/contracts';
import type { JobDocument, JobPage } from '../api/nap';

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

const FINAL_EVENTS: ReadonlySet<string> = new Set(['jobComplete', 'jobError', 'jobCancel']);

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
          ? { ...task.metrics, start_time: payload.timestamp }
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

/** Limits a refetch to one per interval however many events ask for it. */
function throttled(run: () => void, intervalMs: number): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return () => {
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      run();
    }, intervalMs);
  };
}

/**
 * Keeps the query cache in step with job events: a job's status changes in place in every cached
 * page that shows it and in its cached document (at once, without a request); a job that no page
 * shows yet (a new one), and the work queue, are fetched again, at most a few times a second.
 */
export function createJobEventApplier(client: QueryClient): (event: LiveJobEvent) => void {
  const refetchLists = throttled(() => void client.invalidateQueries({ queryKey: ['jobs'] }), 250);
  const refetchQueue = throttled(() => void client.invalidateQueries({ queryKey: ['tasks'] }), 250);
  // both streams (the platform-wide one and a job's own) deliver a job's events, each in order: the
  // second delivery of an event, by its seq, would move the job back
  const lastSeq = new Map<string, number>();
  return (event) => {
    const { payload } = event;
    if (payload.seq <= (lastSeq.get(payload.jobId) ?? 0)) return;
    if (lastSeq.size >= 10_000) lastSeq.clear();
    lastSeq.set(payload.jobId, payload.seq);
    let shown = false;
    for (const [key, page] of client.getQueriesData<JobPage>({ queryKey: ['jobs'] })) {
      if (!page?.items.some((item) => item._id === payload.jobId)) continue;
      shown = true;
      client.setQueryData<JobPage>(key, {
        ...page,
        items: page.items.map((item) =>
          item._id === payload.jobId
            ? {
                ...item,
                status: payload.status,
                ...(FINAL_EVENTS.has(event.name)
                  ? { metrics: { ...(item.metrics as Record<string, unknown> | undefined), end_time: payload.timestamp } }
                  : {}),
              }
            : item,
        ),
      });
    }
    if (!shown && event.name === 'jobStart') refetchLists();
    client.setQueryData<JobDocument>(['job', payload.jobId], (job) => (job ? jobAfterEvent(job, event) : job));
    if (isTaskEvent(payload) || FINAL_EVENTS.has(event.name)) refetchQueue();
  };
}
