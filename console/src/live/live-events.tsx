import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { followEventStream } from '../api/event-stream';
import type { StreamState } from '../api/event-stream';
import { createJobEventApplier } from './job-event-applier';
import { parseJobEvent } from './job-events';
import type { LiveJobEvent } from './job-events';

type Listener = (event: LiveJobEvent) => void;

interface LiveEvents {
  /** The state of every stream open now, by name: the banner shows while one is down. */
  states: Readonly<Record<string, StreamState>>;
  setState(stream: string, state: StreamState | undefined): void;
  /** Hears every job event of the platform-wide stream (and of a job's own stream); returns the unsubscribe. */
  subscribe(listener: Listener): () => void;
  /** Hands an event from a job's own stream to the cache and the listeners, as the platform-wide stream's are. */
  publish(event: LiveJobEvent): void;
}

const LiveEventsContext = createContext<LiveEvents | undefined>(undefined);

/** The queries job events keep in step (job-event-applier.ts): job pages, job documents, the work queue. */
const JOB_QUERY_ROOTS: ReadonlySet<string> = new Set(['jobs', 'job', 'tasks']);

/**
 * Follows `GET /operations-manager/events` while someone is logged in: every job event the caller
 * may see updates the query cache (lists and job documents change in place) and reaches the
 * components listening. One stream for the whole console, resumed with `Last-Event-ID`.
 */
export function LiveEventsProvider({
  children,
  onUnauthenticated,
  enabled = true,
}: {
  children: ReactNode;
  onUnauthenticated: () => void;
  /** False for a caller whose roles may not follow the platform's events (an auditor): no stream is opened. */
  enabled?: boolean;
}) {
  const client = useQueryClient();
  const [states, setStates] = useState<Record<string, StreamState>>({});
  const listeners = useRef(new Set<Listener>());
  const apply = useMemo(() => createJobEventApplier(client), [client]);

  const setState = useCallback((stream: string, state: StreamState | undefined) => {
    setStates((current) => {
      if (current[stream] === state) return current;
      const next = { ...current };
      if (state === undefined) delete next[stream];
      else next[stream] = state;
      return next;
    });
  }, []);

  const publish = useCallback(
    (event: LiveJobEvent) => {
      apply(event);
      for (const listener of listeners.current) listener(event);
    },
    [apply],
  );

  useEffect(() => {
    if (!enabled) return undefined;
    let lostOnce = false;
    let openedOnce = false;
    const close = followEventStream('/operations-manager/events', {
      onEvent: (message) => {
        // events missed that the platform does not send (before a resume's window, or no longer kept): what the console shows is read again
        if (message.event === 'gap') {
          void client.invalidateQueries();
          return;
        }
        const event = parseJobEvent(message.event ?? 'message', message.data);
        if (event) publish(event);
      },
      onState: (state) => {
        setState('events', state);
        // events missed before the stream had an id to resume from are fetched instead
        if (state === 'down') lostOnce = true;
        if (state === 'open' && lostOnce) void client.invalidateQueries();
        // the first open: what a page read before the stream followed the platform (a job started
        // or paused in between) is read again, once; what it has not read yet needs nothing
        if (state === 'open' && !openedOnce && !lostOnce) {
          openedOnce = true;
          void client.invalidateQueries({
            predicate: (query) =>
              JOB_QUERY_ROOTS.has(String(query.queryKey[0])) && (query.state.dataUpdatedAt > 0 || query.state.fetchStatus === 'fetching'),
          });
        }
      },
      onUnauthenticated,
      reconnectAfterEnd: () => true,
    });
    return () => {
      close();
      setState('events', undefined);
    };
  }, [client, enabled, onUnauthenticated, publish, setState]);

  const subscribe = useCallback((listener: Listener) => {
    listeners.current.add(listener);
    return () => {
      listeners.current.delete(listener);
    };
  }, []);

  const value = useMemo(() => ({ states, setState, subscribe, publish }), [states, setState, subscribe, publish]);
  return <LiveEventsContext.Provider value={value}>{children}</LiveEventsContext.Provider>;
}

export function useLiveEvents(): LiveEvents {
  const live = useContext(LiveEventsContext);
  if (!live) throw new Error('useLiveEvents is used outside LiveEventsProvider');
  return live;
}

/** Calls `listener` for every job event while the component is mounted. */
export function useJobEventListener(listener: Listener): void {
  const { subscribe } = useLiveEvents();
  const latest = useRef(listener);
  useEffect(() => {
    latest.current = listener;
  });
  useEffect(() => subscribe((event) => latest.current(event)), [subscribe]);
}
