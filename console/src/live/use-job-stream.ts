import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { followEventStream } from '../api/event-stream';
import { isFinalStatus } from '../api/job-data';
import type { JobDocument } from '../api/nap';
import { useLiveEvents } from './live-events';
import { parseJobEvent } from './job-events';

/**
 * Follows `GET /operations-manager/jobs/:jobId/events` while the job can still change: the
 * snapshot replaces the cached document, each event updates it in place at once (the task's
 * colour changes without a request), and the document is fetched again shortly after, for what
 * events do not carry (variables, errors), and once more when the job ends if a fetch was due. The
 * platform ends the stream after the job's last event.
 */
export function useJobStream(jobId: string, status: string | undefined, onUnauthenticated: () => void): void {
  const client = useQueryClient();
  const { publish, setState } = useLiveEvents();
  const live = status !== undefined && !isFinalStatus(status);
  useEffect(() => {
    if (!live) return undefined;
    const stream = `job:${jobId}`;
    let ended = false;
    let refetch: ReturnType<typeof setTimeout> | undefined;
    const refresh = () => {
      if (refetch !== undefined) return;
      refetch = setTimeout(() => {
        refetch = undefined;
        void client.invalidateQueries({ queryKey: ['job', jobId], exact: true });
      }, 300);
    };
    const close = followEventStream(`/operations-manager/jobs/${encodeURIComponent(jobId)}/events`, {
      onEvent: (message) => {
        if (message.event === 'snapshot') {
          const job = JSON.parse(message.data) as JobDocument;
          client.setQueryData<JobDocument>(['job', jobId], job);
          ended = isFinalStatus(job.status);
          return;
        }
        const event = parseJobEvent(message.event ?? 'message', message.data);
        if (!event) return;
        publish(event);
        refresh();
        if (isFinalStatus(event.payload.status)) ended = true;
      },
      onState: (state) => setState(stream, state),
      onUnauthenticated,
      reconnectAfterEnd: () => !ended,
    });
    return () => {
      close();
      if (refetch !== undefined) {
        // the job ended (or the page left it) with a fetch due: fetched now, not dropped. An action's
        // answer (a retry, a finished task) can land between two events and hold an older state of a
        // task than the events had shown; the fetch after the last event is what mends it.
        clearTimeout(refetch);
        void client.invalidateQueries({ queryKey: ['job', jobId], exact: true });
      }
      setState(stream, undefined);
    };
  }, [jobId, live, client, publish, setState, onUnauthenticated]);
}
