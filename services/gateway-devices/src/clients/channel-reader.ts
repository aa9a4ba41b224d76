import { StringDecoder } from 'node:string_decoder';

/** The part of an ssh2 channel the reader uses. */
export interface ReadableChannel {
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  write(data: string): unknown;
}

/** Decides whether the text read so far is complete: returns how many characters to consume, or `undefined`. */
export type ReadMatcher = (text: string) => number | undefined;

interface Waiter {
  matcher: ReadMatcher;
  resolve: (text: string) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
  onTimeout: () => Error;
}

// CSI sequences (colours, cursor moves, erase line) and the two-byte charset selections VT100s send.
// Terminal control characters are exactly what these patterns are about.
/* eslint-disable no-control-regex */
const ANSI_ESCAPE = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Za-z0-9]|\x1b[=>]/g;
const ANSI_INCOMPLETE_TAIL = /\x1b(?:\[[0-9;?]*[ -/]*)?$|\x1b[()]$/;
// What IOS prints after a key press at `--More--` to wipe the pager text off the line.
const PAGER_ERASE = /^(?:\x08+[ ]*\x08*)+/;
/* eslint-enable no-control-regex */

/**
 * Most text the reader holds unconsumed, in characters (64 Mi, as the NETCONF decoder's limit): a
 * device that talks without end cannot fill the process's memory; past it the read fails and the
 * session is done with.
 */
export const MAX_UNREAD_CHARS = 64 * 1024 * 1024;

/**
 * Reads an interactive channel as text and waits, event-driven and bounded, until the text read so
 * far satisfies a matcher. Normalises as it reads: `\r` removed, ANSI escapes removed, multi-byte
 * characters decoded across chunk boundaries. When the device stops at a pager (`--More--`) the
 * reader removes the pager text and presses space, so a device that ignored the paging-disable
 * command still returns its whole output.
 */
export class ChannelReader {
  private text = '';
  private pendingEscape = '';
  private justPaged = false;
  private waiter: Waiter | undefined;
  private closed = false;
  /** Set once the device sent more than {@link MAX_UNREAD_CHARS}: every read fails with it. */
  private overflow: Error | undefined;
  private readonly decoder = new StringDecoder('utf8');

  constructor(
    private readonly channel: ReadableChannel,
    private readonly options: {
      pagerPattern?: RegExp | undefined;
      closedError: () => Error;
      /** The error of a read past {@link MAX_UNREAD_CHARS} (the limit given). */
      overflowError?: (limit: number) => Error;
    },
  ) {
    channel.on('data', (chunk) => this.ingest(this.decoder.write(chunk)));
    channel.on('close', () => {
      this.closed = true;
      const waiter = this.waiter;
      if (waiter === undefined) return;
      // A last check: the prompt may have arrived together with the close.
      if (this.tryResolve()) return;
      this.waiter = undefined;
      clearTimeout(waiter.timer);
      waiter.reject(this.options.closedError());
    });
  }

  /** True once the channel has closed. */
  isClosed(): boolean {
    return this.closed;
  }

  /** Sends text to the device. */
  write(data: string): void {
    this.channel.write(data);
  }

  /** Drops and returns everything read and not yet consumed. */
  drain(): string {
    const text = this.text;
    this.text = '';
    return text;
  }

  /** Text read and not yet consumed, for error details. */
  peek(): string {
    return this.text;
  }

  /**
   * Resolves with the text up to where `matcher` says the read is complete, leaving the rest for the
   * next read. Rejects with `onTimeout()` after `timeoutMs`, or with the reader's closed error when
   * the channel closes first. One read at a time.
   */
  readUntil(matcher: ReadMatcher, timeoutMs: number, onTimeout: () => Error): Promise<string> {
    if (this.waiter !== undefined) return Promise.reject(new Error('ChannelReader supports one read at a time'));
    if (this.overflow !== undefined) return Promise.reject(this.overflow);
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          if (this.waiter?.timer !== timer) return;
          this.waiter = undefined;
          reject(onTimeout());
        },
        Math.max(0, timeoutMs),
      );
      this.waiter = { matcher, resolve, reject, timer, onTimeout };
      if (this.tryResolve()) return;
      if (this.closed) {
        this.waiter = undefined;
        clearTimeout(timer);
        reject(this.options.closedError());
      }
    });
  }

  private ingest(raw: string): void {
    let chunk = this.pendingEscape + raw;
    this.pendingEscape = '';
    const tail = ANSI_INCOMPLETE_TAIL.exec(chunk);
    if (tail !== null) {
      this.pendingEscape = tail[0];
      chunk = chunk.slice(0, tail.index);
    }
    chunk = chunk.replace(ANSI_ESCAPE, '').replace(/\r/g, '').replaceAll('\u0000', '');
    if (this.justPaged && chunk.length > 0) {
      chunk = chunk.replace(PAGER_ERASE, '');
      if (chunk.length > 0) this.justPaged = false;
    }
    if (this.overflow !== undefined) return;
    // Backspaces that survive are line edits the device echoed; apply them to what was read. They
    // never reach past a line's start, so only the last line read takes part (not the whole text
    // again on every chunk).
    if (chunk.includes('\x08')) {
      const lineStart = this.text.lastIndexOf('\n') + 1;
      this.text = this.text.slice(0, lineStart) + applyBackspaces(this.text.slice(lineStart) + chunk);
    } else {
      this.text += chunk;
    }
    if (this.text.length > MAX_UNREAD_CHARS) {
      this.fail();
      return;
    }
    this.handlePager();
    this.tryResolve();
  }

  /** The device sent more than {@link MAX_UNREAD_CHARS}: what was read is dropped, and this read and every later one fail. */
  private fail(): void {
    this.text = '';
    this.overflow =
      this.options.overflowError?.(MAX_UNREAD_CHARS) ?? new Error(`The device sent more than ${MAX_UNREAD_CHARS} characters unread`);
    const waiter = this.waiter;
    if (waiter === undefined) return;
    this.waiter = undefined;
    clearTimeout(waiter.timer);
    waiter.reject(this.overflow);
  }

  private handlePager(): void {
    const pattern = this.options.pagerPattern;
    if (pattern === undefined || this.closed) return;
    const lastNewline = this.text.lastIndexOf('\n');
    const lastLine = this.text.slice(lastNewline + 1);
    const m = pattern.exec(lastLine);
    if (m === null) return;
    this.text = this.text.slice(0, lastNewline + 1 + m.index);
    this.justPaged = true;
    this.channel.write(' ');
  }

  private tryResolve(): boolean {
    const waiter = this.waiter;
    if (waiter === undefined) return false;
    const end = waiter.matcher(this.text);
    if (end === undefined) return false;
    this.waiter = undefined;
    clearTimeout(waiter.timer);
    const consumed = this.text.slice(0, end);
    this.text = this.text.slice(end);
    waiter.resolve(consumed);
    return true;
  }
}

/** Applies backspace characters to the text before them, as a terminal would. */
export function applyBackspaces(text: string): string {
  if (!text.includes('\x08')) return text;
  const out: string[] = [];
  for (const ch of text) {
    if (ch === '\x08') {
      if (out.length > 0 && out[out.length - 1] !== '\n') out.pop();
    } else {
      out.push(ch);
    }
  }
  return out.join('');
}
