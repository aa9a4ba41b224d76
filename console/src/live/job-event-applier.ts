import type { QueryClient } from '@tanstack/react-query';
import type { JobDocument, JobPage } from '../api/nap';
import { FINAL_EVENTS, isTaskEvent, jobAfterEvent } from './job-events';
import type { LiveJobEvent } from './job-events';

// Kept apart from job-events.ts so that the pure functions there import no React Query type: their
// tests are type-checked with the browser suites (the root tsconfig), where React Query's DOM types
// would retype the elements the browser suites read.

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
    // a new job, or one that stopped in error (the list says where and why: the job's `error`)
    if ((!shown && event.name === 'jobStart') || (shown && event.name === 'jobError')) refetchLists();
    client.setQueryData<JobDocument>(['job', payload.jobId], (job) => (job ? jobAfterEvent(job, event) : job));
    // the work queue marks the tasks of a paused job: a pause or a resume changes it too
    if (isTaskEvent(payload) || FINAL_EVENTS.has(event.name) || event.name === 'jobPause' || event.name === 'jobResume') refetchQueue();
  };
}
