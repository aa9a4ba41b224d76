import { availableParallelism } from 'node:os';
import { createWorkerPool, isWorkerPoolClosed } from '@nap/runtime';
import { errorMessage } from '@nap/util';
import { execRegexJob } from '../domain/regex-engine';
import type { RegexEngine, RegexJob, RegexOutcome, RegexValue } from '../domain/regex-engine';

/** Options of {@link createRegexPool}. */
export interface RegexPoolOptions {
  /** Worker threads; default the number of cores, at most 4. */
  size?: number;
  /** Longest a single pattern may run, in ms; default 1000. The worker running it is replaced. */
  jobTimeoutMs?: number;
}

/** A worker pool that runs regular expressions with a time limit per pattern. */
export interface RegexPool extends RegexEngine {
  readonly size: number;
  readonly jobTimeoutMs: number;
  /** Workers replaced because a pattern ran too long, since start. */
  readonly replaced: number;
  close(): Promise<void>;
}

/** A batch as its worker gets it: the patterns, and the texts they read. */
interface RegexBatch {
  inputs: readonly string[];
  jobs: readonly RegexJob[];
}

/** The worker's answer to one pattern of a batch, by its place in the batch. */
type RegexAnswer = { index: number; ok: true; value: RegexValue } | { index: number; ok: false; error: string };

// The worker answers each pattern of a batch as it goes (a progress message of @nap/runtime's worker
// pool, which starts the pattern's clock again; the last one is the batch's answer), so the pool
// knows which pattern of a batch is running: the one that answers nothing within the limit is the
// culprit, the rest of its batch runs again. The source runs as CommonJS or as an ES module (a
// worker inherits `--input-type=module` from its process), so it takes node's modules through
// process.getBuiltinModule rather than require.
const WORKER_SOURCE = `
const { parentPort } = process.getBuiltinModule('node:worker_threads');
const execRegexJob = ${execRegexJob.toString()};
parentPort.on('message', ({ id, job: batch }) => {
  const last = batch.jobs.length - 1;
  for (let i = 0; i <= last; i++) {
    const job = batch.jobs[i];
    let answer;
    try {
      answer = { index: i, ok: true, value: execRegexJob(job.pattern, job.flags, batch.inputs[job.input] ?? '', job.mode) };
    } catch (err) {
      answer = { index: i, ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    parentPort.postMessage(i === last ? { id, ok: true, value: answer } : { id, progress: answer });
  }
});
parentPort.postMessage({ ready: true });
`;

/**
 * Starts a pool of worker threads that evaluate regular expressions. A pattern that runs longer
 * than `jobTimeoutMs` is answered `{ ok: false, timedOut: true }`, its worker is terminated and
 * replaced, and the other jobs go on: a catastrophic pattern costs one worker restart, not the service.
 */
export function createRegexPool(options: RegexPoolOptions = {}): RegexPool {
  const size = Math.max(1, options.size ?? Math.min(4, availableParallelism()));
  const jobTimeoutMs = options.jobTimeoutMs ?? 1_000;
  const pool = createWorkerPool<RegexBatch, RegexAnswer, RegexAnswer>({
    name: 'regex',
    script: WORKER_SOURCE,
    workerOptions: { eval: true },
    size,
    timeoutMs: jobTimeoutMs,
    // a MOP check finds its workers started, from the first on; a platform that runs none starts none
    prestart: 'first-job',
  });
  let closed = false;

  /**
   * Runs `jobs` (patterns over `inputs`) from the `from`-th on, into `outcomes`; answers where the
   * next run starts: after the culprit of a worker that had to be replaced, or at the end.
   */
  function runFrom(
    inputs: readonly string[],
    jobs: readonly RegexJob[],
    from: number,
    outcomes: RegexOutcome[],
    deadline: number | undefined,
  ): Promise<number> {
    let answered = 0;
    const record = (answer: RegexAnswer): void => {
      outcomes[from + answer.index] = answer.ok ? { ok: true, value: answer.value } : { ok: false, error: answer.error };
      answered += 1;
    };
    const failRest = (error: string): number => {
      for (let i = from + answered; i < jobs.length; i++) outcomes[i] = { ok: false, error };
      return jobs.length;
    };
    // the rest of a batch whose worker was replaced goes before the batches that came after it
    const runOptions = { onProgress: record, first: from > 0, ...(deadline === undefined ? {} : { deadline }) };
    return pool.run({ inputs, jobs: from === 0 ? jobs : jobs.slice(from) }, runOptions).then(
      (outcome) => {
        const culprit = from + answered;
        switch (outcome.kind) {
          case 'done':
            record(outcome.value);
            return jobs.length;
          case 'timedOut':
            outcomes[culprit] = { ok: false, timedOut: true, error: `the pattern ran longer than ${jobTimeoutMs} ms and was stopped` };
            return culprit + 1;
          case 'crashed':
            outcomes[culprit] = { ok: false, error: `the pattern crashed its worker: ${outcome.error.message}` };
            return culprit + 1;
          case 'failed':
            // the worker failed outside any one pattern (it could not take the batch): the rest fails with it
            return failRest(outcome.message);
          case 'expired':
            // the request stopped waiting before a worker was free: nobody would read the outcome
            return failRest("the pattern was not run: the request's deadline passed while it waited for a worker");
        }
      },
      (err: unknown) => failRest(isWorkerPoolClosed(err) ? 'the service is stopping' : errorMessage(err)),
    );
  }

  return {
    size,
    jobTimeoutMs,
    get replaced() {
      return pool.replaced;
    },
    run(inputs, jobs, deadline) {
      if (closed) return Promise.reject(new Error('The regular expression pool is closed'));
      const outcomes = new Array<RegexOutcome>(jobs.length);
      const next = (from: number): RegexOutcome[] | Promise<RegexOutcome[]> =>
        from < jobs.length ? runFrom(inputs, jobs, from, outcomes, deadline).then(next) : outcomes;
      return Promise.resolve(next(0));
    },
    async close() {
      closed = true;
      await pool.close();
    },
  };
}
