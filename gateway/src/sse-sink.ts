import type { ServerResponse } from 'node:http';

/** How the event streams treat clients that read slowly. */
export interface SinkOptions {
  /** Bytes written to a client and not yet taken by it beyond which it is dropped; default 1 MiB. */
  maxBufferedBytes: number;
  /** The reconnect delay a dropped client is told (`retry:`), ms; default 2000. */
  retryMs: number;
  /** How long a dropped client may take to read its last bytes before the connection is cut, ms; default 10 000. */
  lingerMs: number;
}

export const DEFAULT_SINK_OPTIONS: SinkOptions = { maxBufferedBytes: 1024 * 1024, retryMs: 2_000, lingerMs: 10_000 };

/** Why a client's stream ended. */
export type SinkEnd = 'ended' | 'left' | 'slow';

/**
 * One client of an event stream. Frames pushed during a turn of the event loop are written to it in
 * one write when the turn ends (the caller schedules {@link flush}); the frames are shared buffers,
 * built once for every client. A client that still has more than `maxBufferedBytes` unread when new
 * frames come cannot keep up: it is sent a `retry:` line and closed (it reconnects with
 * Last-Event-ID), so that it never holds memory without bound or slows the others.
 */
export class SseSink {
  private pending: Buffer[] = [];
  /** Bytes of `pending`. */
  private pendingBytes = 0;
  private done = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly options: SinkOptions,
    /** Asks for {@link flush} at the end of this turn of the event loop. */
    private readonly schedule: (sink: SseSink) => void,
    /** Told once when the stream ends, and why. */
    private readonly onEnd: (why: SinkEnd) => void,
  ) {
    res.once('close', () => this.finish('left'));
  }

  get closed(): boolean {
    return this.done;
  }

  /** Queues a frame for the next flush. */
  push(frame: Buffer): void {
    if (this.done) return;
    this.pendingBytes += frame.length;
    if (this.pending.push(frame) === 1) this.schedule(this);
  }

  /** Bytes queued for the next flush. */
  get queuedBytes(): number {
    return this.pendingBytes;
  }

  /**
   * Writes what is queued now and resolves once the client has taken what was written (the
   * response drained) or the stream ended: a replay of stored events waits so before it reads more,
   * and so holds no more than a chunk in memory for a client that reads slowly. A client that has
   * not taken it within `stallMs` does not keep up: it is dropped as {@link flush} drops one.
   */
  async written(stallMs: number): Promise<void> {
    this.flush();
    if (this.done || !this.res.writableNeedDrain) return;
    await new Promise<void>((resolve) => {
      const settled = () => {
        clearTimeout(stalled);
        this.res.off('drain', settled);
        this.res.off('close', settled);
        resolve();
      };
      const stalled = setTimeout(() => {
        settled();
        if (!this.done) this.drop();
      }, stallMs);
      this.res.on('drain', settled);
      this.res.on('close', settled);
    });
  }

  /** Writes at once, before anything queued (the first frames of a stream). */
  writeNow(text: string): void {
    if (!this.done) this.res.write(text);
  }

  /**
   * Writes what was queued since the last flush, unless the client still has more than
   * `maxBufferedBytes` of earlier writes to take: then it does not keep up and is dropped. (A burst
   * larger than the bound reaches a client that took everything before it.) `join` makes the one
   * chunk of several frames: clients that were pushed the same frames share it.
   */
  flush(join: (frames: Buffer[]) => Buffer = joinFrames): void {
    if (this.done || this.pending.length === 0) return;
    if (this.res.writableLength > this.options.maxBufferedBytes) {
      this.drop();
      return;
    }
    const chunk = this.pending.length === 1 ? (this.pending[0] as Buffer) : join(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    this.res.write(chunk);
  }

  /** Ends the stream after what is queued (the job ended). */
  end(): void {
    if (this.done) return;
    this.flush();
    if (this.done) return;
    this.res.end();
    this.finish('ended');
  }

  /** Ends the stream without writing what is queued (the gateway stops). */
  close(): void {
    if (this.done) return;
    this.pending = [];
    this.pendingBytes = 0;
    if (!this.res.writableEnded) this.res.end();
    this.finish('ended');
  }

  /** Lets go of the stream without touching the response (it was never opened: an error answers it). */
  release(): void {
    this.finish('left');
  }

  private drop(): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.res.end(`: this client reads its events too slowly; reconnect with Last-Event-ID\nretry: ${this.options.retryMs}\n\n`);
    // the connection closes once the client has read that: it must not be kept alive for another request
    this.res.socket?.end();
    // a client that never reads its last bytes is cut, so that they are not held for it
    const linger = setTimeout(() => this.res.destroy(), this.options.lingerMs);
    linger.unref();
    this.res.once('close', () => clearTimeout(linger));
    this.finish('slow');
  }

  private finish(why: SinkEnd): void {
    if (this.done) return;
    this.done = true;
    this.pending = [];
    this.pendingBytes = 0;
    this.onEnd(why);
  }
}

function joinFrames(frames: Buffer[]): Buffer {
  return Buffer.concat(frames);
}

/**
 * A `join` for one flush of many clients: the frames pushed to every client of a group are the same
 * buffers in the same order, so their chunk is made once and written to each (a copy per client was
 * most of the cost of a burst to hundreds of clients).
 */
export function sharedJoin(): (frames: Buffer[]) => Buffer {
  const made = new Map<Buffer, { frames: Buffer[]; chunk: Buffer }[]>();
  return (frames) => {
    const first = frames[0] as Buffer;
    let candidates = made.get(first);
    if (candidates === undefined) made.set(first, (candidates = []));
    for (const c of candidates) if (c.frames.length === frames.length && c.frames.every((f, i) => f === frames[i])) return c.chunk;
    const chunk = Buffer.concat(frames);
    candidates.push({ frames, chunk });
    return chunk;
  };
}
