import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { LimitError, MethodError } from './errors';

/**
 * How JST steps run regular expressions. A user's pattern can backtrack for ever (`(a+)+$`), so the
 * service runs every match in a worker thread with a time limit: the worker that overruns is
 * terminated and replaced, and the step fails with TRANSFORMATION_LIMIT_EXCEEDED. The engine is
 * synchronous, so the call is too: the run's thread waits on a shared flag (`Atomics.wait`) for the
 * worker's answer, at most the time limit. Pure tests and the benchmark use the inline runner.
 */

/** One regular expression operation on one input text. */
export interface RegexOp {
  op: 'test' | 'exec' | 'match' | 'replace' | 'replaceAll' | 'search' | 'split';
  source: string;
  flags: string;
  input: string;
  /** `replace`, `replaceAll`: the replacement text (`$1`, `$&` work as in JavaScript). */
  replacement?: string;
  /** `split`: the largest number of pieces. */
  limit?: number;
}

export interface RegexRunner {
  /** Runs `op`; throws MethodError for a bad pattern, LimitError when it runs past the time limit. */
  run(op: RegexOp): unknown;
  close(): Promise<void>;
}

/**
 * Runs one operation. Self-contained on purpose: the worker receives its source text, so it may use
 * nothing from outside its own body. Answers JSON-able values only (match arrays become plain arrays).
 */
export function runRegexOp(op: RegexOp): unknown {
  const re = new RegExp(op.source, op.flags);
  const plain = (m: RegExpMatchArray | null): (string | null)[] | null =>
    m === null ? null : Array.from(m, (s) => (s === undefined ? null : s));
  switch (op.op) {
    case 'test':
      return re.test(op.input);
    case 'exec':
      return plain(re.exec(op.input));
    case 'match':
      return plain(op.input.match(re));
    case 'replace':
      return op.input.replace(re, op.replacement ?? 'undefined');
    case 'replaceAll':
      return op.input.replaceAll(re, op.replacement ?? 'undefined');
    case 'search':
      return op.input.search(re);
    case 'split':
      return op.input.split(re, op.limit);
    default:
      throw new Error(`Unknown regular expression operation ${String(op.op)}`);
  }
}

function patternError(err: unknown): MethodError {
  return new MethodError(err instanceof Error ? err.message : String(err));
}

/** Runs operations in this thread, without a time limit: for pure tests and benchmarks. */
export function createInlineRegexRunner(): RegexRunner {
  return {
    run(op) {
      try {
        return runRegexOp(op);
      } catch (err) {
        throw patternError(err);
      }
    },
    close: () => Promise.resolve(),
  };
}

// flag[0]: 0 while a call is open, 1 when the worker answered; the answer travels on the port.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const runRegexOp = ${runRegexOp.toString()};
const { port, flag } = workerData;
const signal = new Int32Array(flag);
port.on('message', (op) => {
  let answer;
  try { answer = { ok: true, value: runRegexOp(op) }; } catch (err) { answer = { ok: false, error: err instanceof Error ? err.message : String(err) }; }
  port.postMessage(answer);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
});
Atomics.store(signal, 0, 1);
Atomics.notify(signal, 0);
`;

interface Answer {
  ok: boolean;
  value?: unknown;
  error?: string;
}

/** Options of {@link createWorkerRegexRunner}. */
export interface WorkerRegexOptions {
  /** Longest one operation may run, in ms; default 1000. */
  timeoutMs?: number;
  /** Longest a new worker may take to start, in ms; default 10000. */
  startTimeoutMs?: number;
}

/**
 * A regex runner backed by one worker thread with a time limit per operation (see the module
 * comment). Operations of concurrent runs are serialized, which they are anyway: runs are synchronous.
 */
export function createWorkerRegexRunner(options: WorkerRegexOptions = {}): RegexRunner & { readonly replaced: number } {
  const timeoutMs = options.timeoutMs ?? 1_000;
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  let current: { worker: Worker; port: MessagePort; signal: Int32Array } | undefined;
  let replaced = 0;

  function start(): { worker: Worker; port: MessagePort; signal: Int32Array } {
    const flag = new SharedArrayBuffer(4);
    const signal = new Int32Array(flag);
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { port: port2, flag }, transferList: [port2] });
    worker.unref();
    port1.unref();
    if (Atomics.wait(signal, 0, 0, startTimeoutMs) === 'timed-out') {
      void worker.terminate();
      throw new LimitError(`the regular expression worker did not start within ${startTimeoutMs} ms`);
    }
    return { worker, port: port1, signal };
  }

  return {
    get replaced() {
      return replaced;
    },
    run(op) {
      current ??= start();
      const { worker, port, signal } = current;
      Atomics.store(signal, 0, 0);
      port.postMessage(op);
      if (Atomics.wait(signal, 0, 0, timeoutMs) === 'timed-out') {
        current = undefined;
        replaced += 1;
        void worker.terminate();
        port.close();
        throw new LimitError(
          `the regular expression /${op.source}/${op.flags} ran longer than ${timeoutMs} ms and was stopped; simplify it (nested quantifiers such as (a+)+ backtrack without end)`,
        );
      }
      const received = receiveMessageOnPort(port);
      const answer = received?.message as Answer | undefined;
      if (answer === undefined) throw new MethodError('the regular expression worker gave no answer');
      if (!answer.ok) throw new MethodError(answer.error ?? 'the regular expression failed');
      return answer.value;
    },
    async close() {
      const running = current;
      current = undefined;
      if (running) {
        running.port.close();
        await running.worker.terminate();
      }
    },
  };
}
