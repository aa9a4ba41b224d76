import { existsSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '@nap/contracts';
import { createWorkerPool, isWorkerPoolClosed } from '@nap/runtime';
import type { WorkerPool, WorkerPoolOutcome, WorkerPoolReply } from '@nap/runtime';
import type { ConfigDiff, DiffBatchOutcome, DiffEngine, DiffInput } from '../domain/diff';

/** Options of {@link createDiffPool}. */
export interface DiffPoolOptions {
  /** Worker threads; default 2, so that a diff running to its limit does not hold up the next one. Started at the first diff. */
  size?: number;
  /** Longest one batch of diffs may take, in ms; default 5000. */
  timeoutMs?: number;
  /** Heap one worker may use, in MiB; default 256. A diff that needs more is stopped and its worker replaced. */
  maxMemoryMb?: number;
}

/** Line diffs in worker threads, each batch bounded in time and memory. */
export interface DiffPool extends DiffEngine {
  readonly size: number;
  /** Workers replaced because a diff ran past its limits, since start. */
  readonly replaced: number;
  close(): Promise<void>;
}

/** What the pool sends its worker (engine/diff-worker.ts): one batch, and how long its search may take. */
export interface DiffPoolJob {
  inputs: readonly DiffInput[];
  timeoutMs: number;
}

/** What the worker answers: that it listens, then per batch the diffs or the one that gave up, or a failure. */
export type DiffPoolAnswer = WorkerPoolReply<DiffBatchOutcome>;

/** The worker checks its limit between steps of the search; one that has not answered this long after it is stopped. */
const GRACE_MS = 2_000;

/** The worker's module: compiled beside this one; run from sources (jest), the package's build. */
function workerModule(): string {
  if (!__filename.endsWith('.ts')) return path.join(__dirname, 'diff-worker.js');
  const built = path.resolve(__dirname, '../../dist/engine/diff-worker.js');
  if (!existsSync(built)) throw new Error(`The diff worker runs compiled code and ${built} is missing: build first (npm run build)`);
  return built;
}

function lineCount(text: string): number {
  if (text === '') return 0;
  let count = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < text.length - 1; i = text.indexOf('\n', i + 1)) count += 1;
  return count;
}

/**
 * Starts a pool of worker threads that run line diffs (`domain/diff.ts`). The event loop of the
 * service never runs a diff: however large or different two texts are, other requests are answered
 * meanwhile. A batch that runs past `timeoutMs`, or needs more than `maxMemoryMb`, is answered
 * 422 `MOP_DIFF_LIMIT_EXCEEDED` naming the texts; a worker that had to be stopped is replaced. A
 * batch still queued when its caller's deadline passes is dropped. Workers start at the first diff.
 */
export function createDiffPool(options: DiffPoolOptions = {}): DiffPool {
  const size = Math.max(1, options.size ?? 2);
  const timeoutMs = options.timeoutMs ?? 5_000;
  const maxMemoryMb = options.maxMemoryMb ?? 256;
  /** Started at the first diff: the worker's module is looked up then. */
  let pool: WorkerPool<DiffPoolJob, DiffBatchOutcome> | undefined;
  let closed = false;

  function tooDifferent(input: DiffInput | undefined): AppError {
    const what = input?.label ?? 'the two texts';
    const sizes = input === undefined ? '' : ` (${lineCount(input.a)} and ${lineCount(input.b)} lines)`;
    return new AppError(
      'MOP_DIFF_LIMIT_EXCEEDED',
      `Could not diff ${what} within ${timeoutMs} ms: they differ in too many places${sizes}; compare smaller parts of them`,
      { details: { limit: 'time', limitMs: timeoutMs } },
    );
  }

  function tooLarge(input: DiffInput | undefined): AppError {
    return new AppError(
      'MOP_DIFF_LIMIT_EXCEEDED',
      `Diffing ${input?.label ?? 'the two texts'} needed more than the ${maxMemoryMb} MiB a diff may use; compare smaller parts of them`,
      { details: { limit: 'memory', limitMb: maxMemoryMb } },
    );
  }

  function stopping(cause?: unknown): AppError {
    return new AppError('SERVICE_UNAVAILABLE', 'The diff pool is closed: the service is stopping', { cause });
  }

  function started(): WorkerPool<DiffPoolJob, DiffBatchOutcome> {
    pool ??= createWorkerPool<DiffPoolJob, DiffBatchOutcome>({
      name: 'diff',
      script: workerModule(),
      workerOptions: { name: 'nap-mop-diff', resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb } },
      size,
      timeoutMs: timeoutMs + GRACE_MS,
    });
    return pool;
  }

  async function diff(inputs: readonly DiffInput[], deadline: number | undefined): Promise<ConfigDiff[]> {
    let outcome: WorkerPoolOutcome<DiffBatchOutcome>;
    try {
      outcome = await started().run({ inputs, timeoutMs }, deadline === undefined ? {} : { deadline });
    } catch (err) {
      // closed: the service is stopping; else the workers could not start (WorkerPoolError, 503)
      throw isWorkerPoolClosed(err) ? stopping(err) : err;
    }
    switch (outcome.kind) {
      case 'done':
        if (outcome.value.ok) return outcome.value.diffs;
        throw tooDifferent(inputs[outcome.value.index]);
      case 'failed':
        throw new Error(`The diff failed: ${outcome.message}`);
      case 'timedOut':
        throw tooDifferent(inputs[0]);
      case 'crashed':
        throw outcome.outOfMemory ? tooLarge(inputs[0]) : outcome.error;
      case 'expired':
        throw new AppError('TIMEOUT', 'The diff waited for a worker past the request deadline and was dropped');
    }
  }

  return {
    size,
    timeoutMs,
    get replaced() {
      return pool?.replaced ?? 0;
    },
    diff(inputs, deadline) {
      if (closed) return Promise.reject(stopping());
      if (inputs.length === 0) return Promise.resolve([]);
      return diff(inputs, deadline);
    },
    async close() {
      closed = true;
      await pool?.close();
    },
  };
}
