/** Reading server-sent events in tests. */

export interface Frame {
  event: string;
  data: Record<string, unknown>;
  id?: string;
}

/** Reads server-sent events until the server ends the stream, or `onFrame` answers true (bounded). */
export async function readEvents(res: Response, onFrame: (frame: Frame) => void | boolean, timeoutMs = 15_000): Promise<void> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const timer = setTimeout(() => void reader.cancel(), timeoutMs);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (block.startsWith(':')) continue;
        const frame: Frame = { event: 'message', data: {} };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) frame.event = line.slice(7);
          else if (line.startsWith('id: ')) frame.id = line.slice(4);
          else if (line.startsWith('data: ')) data.push(line.slice(6));
        }
        frame.data = JSON.parse(data.join('\n')) as Record<string, unknown>;
        if (onFrame(frame) === true) {
          await reader.cancel();
          return;
        }
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

/** 'ended' when the server ends the stream; 'open' when it is still open after `boundMs` (a bound against a hang, not a timing). */
export async function streamEnd(res: Response, boundMs = 20_000): Promise<'ended' | 'open'> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let bound: NodeJS.Timeout | undefined;
  const open = new Promise<'open'>((resolve) => (bound = setTimeout(() => resolve('open'), boundMs)));
  const ended = (async () => {
    while (!(await reader.read()).done);
    return 'ended' as const;
  })();
  const outcome = await Promise.race([ended, open]);
  clearTimeout(bound);
  if (outcome === 'open') await reader.cancel();
  return outcome;
}
