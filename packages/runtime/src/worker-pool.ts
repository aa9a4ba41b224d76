import { Worker } from 'node:worker_threads';
import type { WorkerOptions } from 'node:worker_threads';
import { AppError } from '@nap/contracts';

/** Options of {@link createWorkerPool}. */
export interface WorkerPoolOptions {
  /** Names the pool in its errors (`The diff worker pool is closed`) and its threads (`nap-<name>`). */
  name: string;
  /** The workers' module (a path or a file URL), or their source when `workerOptions.eval` is set. */
  script: string | URL;
  /** Passed to every `new Worker` (`resourceLimits`, `workerData`, `eval`, `name`). */
  workerOptions?: WorkerOptions;
  /** Worker threads at most; default 1. */
  size?: number;
  /**
   * Longest a job may run, in ms, counted from the moment a started worker was handed it; a
   * progress message of the worker starts the count again. A job past it answers `timedOut` and its
   * worker is terminated and replaced.
   */
  timeoutMs: number;
  /** Longest a new worker may take to say it is ready, in ms; default 30 000. */
  startTimeoutMs?: number;
  /**
   * Keep all `size` workers started, replacing a stopped one at once, so that a job finds a started
   * worker: `true` from the pool's creation; `'first-job'` from the first job asked (a process that
   * never asks for one starts none: each worker costs ~25 ms of CPU to start); default false:
   * workers start as jobs arrive and stay once started.
   */
  prestart?: boolean | 'first-job';
}

/** Options of one {@link WorkerPool.run}. */
export interface WorkerPoolRunOptions<P> {
  /** Called with each progress message the worker posts for this job (each restarts its clock); must not throw. */
  onProgress?: (progress: P) => void;
  /** Epoch ms: a job still queued then is not started and answers `expired`. */
  deadline?: number;
  /** Queue the job ahead of those waiting (the rest of a batch whose worker was replaced). */
  first?: boolean;
}

/** How one job ended. */
export type WorkerPoolOutcome<R> =
  /** The worker answered the job. */
  | { kind: 'done'; value: R }
  /** The worker answered that the job failed (it threw in the worker's handler). */
  | { kind: 'failed'; message: string }
  /** The job ran past `timeoutMs`: its worker was terminated and replaced. */
  | { kind: 'timedOut'; timeoutMs: number }
  /** The worker died while it ran the job (threw at top level, exited, or ran out of heap): it was replaced. */
  | { kind: 'crashed'; error: Error; outOfMemory: boolean }
  /** The job's deadline passed before a worker was free: it never ran. */
  | { kind: 'expired' };

/**
 * Worker threads that run jobs which may run away (users' regular expressions, diffs, JSON Schema
 * `pattern`s), each job under a time limit. A job that overruns costs its worker, which is
 * terminated and replaced, never the event loop of the process nor the jobs queued behind it.
 */
export interface WorkerPool<J, R, P = never> {
  readonly name: string;
  readonly size: number;
  readonly timeoutMs: number;
  /** Workers replaced since start because a job overran or a worker died after it started. */
  readonly replaced: number;
  /** Jobs waiting for a worker. */
  readonly queued: number;
  /** Jobs handed to a worker and not answered yet. */
  readonly running: number;
  /** Workers started and not stopped, ready or still starting. */
  readonly workers: number;
  /**
   * Runs `job` (structured-cloned to a worker) and answers how it ended; jobs start in the order
   * they were asked. Rejects with a {@link WorkerPoolError} (`SERVICE_UNAVAILABLE`) when the pool is
   * or gets closed before the job is answered, and when a worker could not start: every job queued
   * then is rejected, and the next `run` tries a new worker.
   */
  run(job: J, options?: WorkerPoolRunOptions<P>): Promise<WorkerPoolOutcome<R>>;
  /** Rejects the jobs queued and running with a {@link WorkerPoolError} and terminates the workers; then `run` rejects. */
  close(): Promise<void>;
}

/** What the pool posts to a worker: one job. */
export interface WorkerPoolRequest<J> {
  id: number;
  job: J;
}

/**
 * What a worker posts to its pool: `{ ready: true }` once it listens (only then does a job's clock
 * start), then for each job any number of progress messages and one answer. An answer with
 * `retire` makes the pool replace the worker after it (a worker that holds too many caches).
 */
export type WorkerPoolReply<R, P = never> =
  | { ready: true }
  | { id: number; progress: P }
  | { id: number; ok: true; value: R; retire?: boolean }
  | { id: number; ok: false; error: string; retire?: boolean };

/** Why a {@link WorkerPool} refused a job: it is closed, or its worker could not start. Status 503. */
export class WorkerPoolError extends AppError {
  constructor(
    readonly reason: 'closed' | 'start',
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super('SERVICE_UNAVAILABLE', message, options);
    this.name = 'WorkerPoolError';
  }
}

/** True when `e` says that a {@link WorkerPool} was closed before it answered. */
export function isWorkerPoolClosed(e: unknown): boolean {
  return e instanceof WorkerPoolError && e.reason === 'closed';
}

interface Job<J, R, P> {
  id: number;
  job: J;
  options: WorkerPoolRunOptions<P>;
  resolve(outcome: WorkerPoolOutcome<R>): void;
  reject(err: unknown): void;
}

interface Slot<J, R, P> {
  worker: Worker;
  /** The worker said it listens: only then is it handed jobs. */
  ready: boolean;
  /** Stopped or dead: its later events mean nothing. */
  gone: boolean;
  job?: Job<J, R, P>;
  timer?: NodeJS.Timeout;
}

/**
 * Starts a {@link WorkerPool}. Its workers post {@link WorkerPoolReply} messages for the
 * {@link WorkerPoolRequest} messages they get. An idle pool does not keep the process alive (its
 * workers and timers are unref'd); a pool with jobs to answer does, so a caller awaiting an answer
 * with nothing else scheduled (a script's top-level await) gets it.
 */
export function createWorkerPool<J, R, P = never>(options: WorkerPoolOptions): WorkerPool<J, R, P> {
  const { name, script } = options;
  const size = Math.max(1, Math.floor(options.size ?? 1));
  const timeoutMs = options.timeoutMs;
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  const workerOptions: WorkerOptions = { name: `nap-${name}`, ...options.workerOptions };
  const queue: Job<J, R, P>[] = [];
  const slots: Slot<J, R, P>[] = [];
  /** Terminations under way: close waits for them, so no thread outlives it. */
  const stopping = new Set<Promise<unknown>>();
  let nextId = 1;
  let replaced = 0;
  let running = 0;
  let closed = false;
  /** Whether all `size` workers are kept started (see {@link WorkerPoolOptions.prestart}). */
  let keepStarted = options.prestart === true;

  /** Jobs asked for and not answered: while there are any, the workers keep the process alive. */
  function pending(): number {
    return queue.length + running;
  }

  function holdProcess(hold: boolean): void {
    for (const slot of slots) {
      if (hold) slot.worker.ref();
      else slot.worker.unref();
    }
  }

  function spawn(): void {
    let worker: Worker;
    try {
      worker = new Worker(script, workerOptions);
    } catch (err) {
      failStart(err);
      return;
    }
    const slot: Slot<J, R, P> = { worker, ready: false, gone: false };
    slots.push(slot);
    if (pending() === 0) worker.unref();
    slot.timer = setTimeout(() => {
      stop(slot);
      failStart(new Error(`it did not say it was ready within ${startTimeoutMs} ms`));
    }, startTimeoutMs).unref();
    worker.on('message', (msg: WorkerPoolReply<R, P>) => onMessage(slot, msg));
    worker.on('error', (err: Error & { code?: string }) => onLost(slot, err, err.code === 'ERR_WORKER_OUT_OF_MEMORY'));
    worker.on('exit', (code) => onLost(slot, new Error(`the ${name} worker exited with code ${code}`), false));
  }

  /** A worker could not start: the others run the same code, so every queued job would meet the same end. */
  function failStart(cause: unknown): void {
    const failure = new WorkerPoolError('start', `The ${name} worker could not start: ${messageOf(cause)}`, { cause });
    for (const job of queue.splice(0)) job.reject(failure);
    if (pending() === 0) holdProcess(false);
  }

  /** Takes `slot` out of the pool and terminates its worker; its job, if any, is the caller's to answer. */
  function stop(slot: Slot<J, R, P>): Job<J, R, P> | undefined {
    slot.gone = true;
    const job = release(slot);
    const index = slots.indexOf(slot);
    if (index !== -1) slots.splice(index, 1);
    // a worker on its way out never holds the process: close() waits for it instead
    slot.worker.unref();
    const ended = slot.worker.terminate().catch(() => undefined);
    stopping.add(ended);
    void ended.finally(() => stopping.delete(ended));
    return job;
  }

  /** Frees `slot` of its job and clock; answers the job's caller nothing. */
  function release(slot: Slot<J, R, P>): Job<J, R, P> | undefined {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = undefined;
    const job = slot.job;
    slot.job = undefined;
    if (job !== undefined) running -= 1;
    return job;
  }

  /** Starts the clock of the job of `slot`, or starts it again (a progress message). */
  function arm(slot: Slot<J, R, P>): void {
    if (slot.timer === undefined) slot.timer = setTimeout(() => onTimeout(slot), timeoutMs).unref();
    else slot.timer.refresh();
  }

  function dispatch(): void {
    if (closed) return;
    while (queue.length > 0) {
      const slot = idleSlot();
      if (slot === undefined) break;
      const job = queue.shift() as Job<J, R, P>;
      if (job.options.deadline !== undefined && Date.now() > job.options.deadline) {
        job.resolve({ kind: 'expired' });
        continue;
      }
      slot.job = job;
      running += 1;
      arm(slot);
      try {
        slot.worker.postMessage({ id: job.id, job: job.job } satisfies WorkerPoolRequest<J>);
      } catch (err) {
        // the job cannot be cloned (a function, a socket): it fails, the worker never saw it
        release(slot);
        job.resolve({ kind: 'failed', message: `the job could not be sent to the ${name} worker: ${messageOf(err)}` });
      }
    }
    if (slots.length < size) {
      let starting = 0;
      for (const slot of slots) if (!slot.ready) starting += 1;
      const wanted = Math.min(keepStarted ? size : queue.length - starting + slots.length, size);
      while (slots.length < wanted && !closed) {
        const before = slots.length;
        spawn();
        if (slots.length === before) break; // it could not start
      }
    }
    if (pending() === 0) holdProcess(false);
  }

  function idleSlot(): Slot<J, R, P> | undefined {
    for (const slot of slots) if (slot.ready && slot.job === undefined) return slot;
    return undefined;
  }

  function onMessage(slot: Slot<J, R, P>, msg: WorkerPoolReply<R, P>): void {
    if (slot.gone) return;
    if ('ready' in msg) {
      if (slot.ready) return;
      slot.ready = true;
      if (slot.timer) clearTimeout(slot.timer);
      slot.timer = undefined;
      dispatch();
      return;
    }
    const job = slot.job;
    if (job === undefined || msg.id !== job.id) return;
    if ('progress' in msg) {
      arm(slot);
      job.options.onProgress?.(msg.progress);
      return;
    }
    release(slot);
    if (msg.retire === true) stop(slot);
    job.resolve(msg.ok ? { kind: 'done', value: msg.value } : { kind: 'failed', message: msg.error });
    dispatch();
  }

  function onTimeout(slot: Slot<J, R, P>): void {
    if (slot.gone) return;
    const job = stop(slot);
    replaced += 1;
    job?.resolve({ kind: 'timedOut', timeoutMs });
    dispatch();
  }

  /** The worker died by itself: an uncaught exception, `process.exit`, or its heap limit. */
  function onLost(slot: Slot<J, R, P>, error: Error, outOfMemory: boolean): void {
    if (slot.gone) return;
    const wasReady = slot.ready;
    const job = stop(slot);
    if (!wasReady) {
      failStart(error);
      return;
    }
    replaced += 1;
    job?.resolve({ kind: 'crashed', error, outOfMemory });
    dispatch();
  }

  if (keepStarted) dispatch();

  return {
    name,
    size,
    timeoutMs,
    get replaced() {
      return replaced;
    },
    get queued() {
      return queue.length;
    },
    get running() {
      return running;
    },
    get workers() {
      return slots.length;
    },
    run(job, runOptions = {}) {
      if (closed) return Promise.reject(new WorkerPoolError('closed', `The ${name} worker pool is closed`));
      return new Promise<WorkerPoolOutcome<R>>((resolve, reject) => {
        if (pending() === 0) holdProcess(true);
        if (options.prestart === 'first-job') keepStarted = true;
        const entry: Job<J, R, P> = { id: nextId++, job, options: runOptions, resolve, reject };
        if (runOptions.first === true) queue.unshift(entry);
        else queue.push(entry);
        dispatch();
      });
    },
    async close() {
      if (!closed) {
        closed = true;
        const failure = new WorkerPoolError('closed', `The ${name} worker pool is closed`);
        for (const job of queue.splice(0)) job.reject(failure);
        for (const slot of [...slots]) stop(slot)?.reject(failure);
      }
      await Promise.all([...stopping]);
    },
  };
}

/** The message of a thrown value; a worker's error may come from another realm than this module's `Error`. */
function messageOf(err: unknown): string {
  const message: unknown = typeof err === 'object' && err !== null ? (err as { message?: unknown }).message : undefined;
  return typeof message === 'string' ? message : String(err);
}
