import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { LimitError, MethodError, runRegexOp } from '../domain/jst';
import type { RegexRunner } from '../domain/jst';

/**
 * The regular expressions of JST runs, in a worker thread with a time limit. A user's pattern can
 * backtrack for ever (`(a+)+$`): the worker that overruns is terminated and replaced, and the step
 * fails with TRANSFORMATION_LIMIT_EXCEEDED. The engine is synchronous, so the call is too: the run's
 * thread waits on a shared flag (`Atomics.wait`) for the worker's answer, at most the time limit.
 */

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
