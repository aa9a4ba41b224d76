import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { EventSourceMessage } from 'eventsource-parser';

/** Where a stream stands: opening for the first time, delivering, or lost and reconnecting. */
export type StreamState = 'connecting' | 'open' | 'down';

export interface EventStreamOptions {
  onEvent(message: EventSourceMessage): void;
  onState(state: StreamState): void;
  /** Told when the platform answers 401: the session is gone, the stream stops. */
  onUnauthenticated(): void;
  /**
   * Asked when the platform ends the stream by itself: true to reconnect (the platform-wide
   * stream), false to stop (a job's stream ends after the job's last event).
   */
  reconnectAfterEnd(): boolean;
}

/** Waits between attempts after a loss, ms: quick at first, then every few seconds. */
const BACKOFF_MS = [500, 1000, 2000, 4000, 5000];

/**
 * Follows a server-sent event stream of the platform with `fetch` rather than `EventSource`, which
 * gives up for good on an error answer (a gateway restarting answers 503 for a moment): the
 * session cookie goes with it, a lost stream is retried with `Last-Event-ID` (the id of the last
 * event received) so that nothing in between is missed, and the caller hears when it is down.
 * Returns the function that closes it.
 */
export function followEventStream(url: string, options: EventStreamOptions): () => void {
  let closed = false;
  let controller: AbortController | undefined;
  let lastEventId: string | undefined;
  let wake: (() => void) | undefined;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function readOnce(): Promise<'ended' | 'failed' | 'unauthenticated'> {
    controller = new AbortController();
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { accept: 'text/event-stream', ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}) },
        credentials: 'same-origin',
        cache: 'no-store',
        signal: controller.signal,
      });
    } catch {
      return 'failed';
    }
    if (res.status === 401) return 'unauthenticated';
    if (!res.ok || !res.body) return 'failed';
    options.onState('open');
    const reader = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'ended';
        if (value.id !== undefined) lastEventId = value.id;
        options.onEvent(value);
      }
    } catch {
      return 'failed';
    }
  }

  async function run(): Promise<void> {
    let attempt = 0;
    options.onState('connecting');
    while (!closed) {
      const outcome = await readOnce();
      if (closed) return;
      if (outcome === 'unauthenticated') {
        options.onUnauthenticated();
        return;
      }
      if (outcome === 'ended' && !options.reconnectAfterEnd()) return;
      if (outcome === 'ended') attempt = 0;
      options.onState('down');
      await pause(BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)] ?? 5000);
      attempt += 1;
    }
  }

  void run();
  // the browser tells when the network is back: try at once rather than wait out the pause
  const online = () => wake?.();
  window.addEventListener('online', online);
  return () => {
    closed = true;
    window.removeEventListener('online', online);
    controller?.abort();
    wake?.();
  };
}
