import { StringDecoder } from 'node:string_decoder';

/**
 * Asking for secrets on a terminal with nothing echoed, as `passwd` and `ssh` do. The terminal is
 * put in raw mode for as long as the prompt is open, and what is typed is read key by key: Enter
 * (or Ctrl-D) ends an answer, Backspace deletes, Ctrl-U clears the line, Ctrl-C interrupts; other
 * control keys and escape sequences (arrows, bracketed-paste marks) are ignored. Keys typed or
 * pasted ahead of a prompt are kept for it.
 */
export interface SecretPrompt {
  /** Writes `question` and answers the next line typed; rejects with {@link PromptInterrupted} on Ctrl-C. */
  ask(question: string): Promise<string>;
  /** Gives the terminal back as it was (echo on, input paused). */
  close(): void;
}

/** What the prompt needs of its input: `process.stdin` on a terminal (a `tty.ReadStream`). */
export interface SecretInput {
  setRawMode(raw: boolean): unknown;
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

/** The person pressed Ctrl-C at a prompt. */
export class PromptInterrupted extends Error {
  constructor() {
    super('interrupted at the prompt');
    this.name = 'PromptInterrupted';
  }
}

const ENTER = new Set(['\r', '\n', '\u0004']);
const BACKSPACE = new Set(['\u007f', '\b']);
const CTRL_C = '\u0003';
const CTRL_U = '\u0015';
const ESC = '\u001b';

export function createSecretPrompt(input: SecretInput, output: { write(text: string): unknown }): SecretPrompt {
  const decoder = new StringDecoder('utf8');
  const answered: string[] = [];
  let line: string[] = [];
  let escape: 'none' | 'start' | 'sequence' = 'none';
  let afterCr = false;
  let interrupted = false;
  let closed = false;
  let waiting: { resolve: (answer: string) => void; reject: (err: Error) => void } | undefined;

  const key = (ch: string): void => {
    // an escape sequence: ESC, then `[` or `O`, then parameters up to a final byte in @..~
    if (escape === 'start') {
      escape = ch === '[' || ch === 'O' ? 'sequence' : 'none';
      return;
    }
    if (escape === 'sequence') {
      if (ch >= '@' && ch <= '~') escape = 'none';
      return;
    }
    // a terminal in raw mode sends \r for Enter; a \r\n pair is one end of line, not two
    const lf = ch === '\n' && afterCr;
    afterCr = ch === '\r';
    if (lf) return;
    if (ch === ESC) escape = 'start';
    else if (ch === CTRL_C) interrupt();
    else if (ENTER.has(ch)) {
      answered.push(line.join(''));
      line = [];
      deliver();
    } else if (BACKSPACE.has(ch)) line.pop();
    else if (ch === CTRL_U) line = [];
    else if (ch >= ' ') line.push(ch);
  };

  const onData = (chunk: Buffer | string): void => {
    for (const ch of typeof chunk === 'string' ? chunk : decoder.write(chunk)) {
      if (interrupted) return;
      key(ch);
    }
  };

  const deliver = (): void => {
    if (waiting === undefined || answered.length === 0) return;
    const { resolve } = waiting;
    waiting = undefined;
    // nothing was echoed: the cursor is still after the question
    output.write('\n');
    resolve(answered.shift() as string);
  };

  const interrupt = (): void => {
    interrupted = true;
    line = [];
    answered.length = 0;
    if (waiting !== undefined) {
      const { reject } = waiting;
      waiting = undefined;
      output.write('^C\n');
      reject(new PromptInterrupted());
    }
  };

  input.setRawMode(true);
  input.on('data', onData);
  input.resume();

  return {
    ask(question) {
      if (interrupted) return Promise.reject(new PromptInterrupted());
      if (waiting !== undefined) return Promise.reject(new Error('a prompt is already waiting for an answer'));
      output.write(question);
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject };
        deliver();
      });
    },
    close() {
      if (closed) return;
      closed = true;
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
    },
  };
}
