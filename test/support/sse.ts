import { connect } from 'node:net';
import type { Socket } from 'node:net';

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

/**
 * Opens the stream at `url` and hands the text of each frame (what stands before its blank line,
 * comments included) to `onFrame` as it arrives; `close()` aborts it.
 */
export async function followFrames(
  url: string,
  onFrame: (text: string) => void,
  headers: Record<string, string> = {},
): Promise<{ close(): void }> {
  const controller = new AbortController();
  const res = await fetch(url, { signal: controller.signal, headers });
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          onFrame(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // aborted
    }
  })();
  return { close: () => controller.abort() };
}

/**
 * A client that sends its request for the stream at `url` (with `headers`) and then reads nothing:
 * its socket, paused, so that what the server writes piles up in the kernel's buffers and then in
 * the server. {@link readRestOfStream} makes it read.
 */
export async function openUnreadStream(url: string, headers: Record<string, string> = {}): Promise<Socket> {
  const { hostname, port, pathname, search } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const lines = [`GET ${pathname}${search} HTTP/1.1`, `Host: ${hostname}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  socket.pause();
  return socket;
}

/** Reads a paused socket until the server ends it, then destroys it; answers the last `keepChars` characters it read (latin1). */
export async function readRestOfStream(socket: Socket, keepChars = 2_000): Promise<string> {
  let received = '';
  socket.on('data', (d: Buffer) => {
    received = (received + d.toString('latin1')).slice(-keepChars);
  });
  const ended = new Promise<void>((resolve) => socket.once('end', resolve));
  socket.resume();
  await ended;
  socket.destroy();
  return received;
}
