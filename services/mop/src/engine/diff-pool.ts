import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { AppError } from '@nap/contracts';
import { errorMessage } from '@nap/util';
import type { ConfigDiff, DiffEngine, DiffInput } from '../domain/diff';

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

/** What the pool sends its worker (engine/diff-worker.ts): one batch. */
export interface DiffPoolJob {
  id: number;
  inputs: readonly DiffInput[];
  timeoutMs: number;
}

/** What the worker answers: that it listens, then per batch the diffs, the one that gave up, or a failure. */
export type DiffPoolAnswer =
  | { ready: true }
  | { id: number; ok: true; diffs: ConfigDiff[] }
  | { id: number; ok: false; index: number }
  | { id: number; ok: false; error: string };

/** The worker checks its limit between steps of the search; one that has not answered this long after it is stopped. */
const GRACE_MS = 2_000;

interface Job {
  id: number;
  inputs: readonly DiffInput[];
  deadline: number | undefined;
  resolve(diffs: ConfigDiff[]): void;
  reject(err: unknown): void;
}

interface Slot {
  worker: Worker;
  /** The worker has started and listens: only then does a batch's time start. */
  ready: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
}

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
  const queue: Job[] = [];
  const slots: (Slot | undefined)[] = Array.from({ length: size }, () => undefined);
  let nextId = 1;
  let replaced = 0;
  let closed = false;
  /** Batches asked for and not answered: while there are any, the workers keep the process alive. */
  let pending = 0;

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

  function track(delta: 1 | -1): void {
    pending += delta;
    if (delta === 1 && pending === 1) for (const slot of slots) slot?.worker.ref();
    if (delta === -1 && pending === 0) for (const slot of slots) slot?.worker.unref();
  }

  function spawn(index: number): void {
    const slot: Slot = {
      worker: new Worker(workerModule(), { name: 'nap-mop-diff', resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb } }),
      ready: false,
    };
    slot.worker.on('message', (msg: DiffPoolAnswer) => onMessage(slot, msg));
    slot.worker.on('error', (err: Error & { code?: string }) => {
      onEnd(slot, err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : err);
    });
    slot.worker.on('exit', (code) => onEnd(slot, new Error(`the diff worker ended (exit code ${code})`)));
    if (pending === 0) slot.worker.unref();
    slots[index] = slot;
  }

  /** Hands queued batches to ready workers, starting workers where there are none. */
  function dispatch(): void {
    for (let index = 0; index < slots.length && queue.length > 0; index++) {
      const slot = slots[index];
      if (slot === undefined) {
        try {
          spawn(index);
        } catch (err) {
          for (const job of queue.splice(0)) job.reject(err);
          return;
        }
        continue;
      }
      if (!slot.ready || slot.job !== undefined) continue;
      let job = queue.shift();
      while (job !== undefined && job.deadline !== undefined && Date.now() > job.deadline) {
        job.reject(new AppError('TIMEOUT', 'The diff waited for a worker past the request deadline and was dropped'));
        job = queue.shift();
      }
      if (job === undefined) return;
      slot.job = job;
      slot.timer = setTimeout(() => stop(slot, tooDifferent(job.inputs[0])), timeoutMs + GRACE_MS);
      const message: DiffPoolJob = { id: job.id, inputs: job.inputs, timeoutMs };
      slot.worker.postMessage(message);
    }
  }

  function finish(slot: Slot): Job | undefined {
    const job = slot.job;
    if (slot.timer) clearTimeout(slot.timer);
    slot.job = undefined;
    slot.timer = undefined;
    return job;
  }

  function onMessage(slot: Slot, msg: DiffPoolAnswer): void {
    if ('ready' in msg) {
      slot.ready = true;
      dispatch();
      return;
    }
    if (slot.job?.id !== msg.id) return;
    const job = finish(slot) as Job;
    if (msg.ok) job.resolve(msg.diffs);
    else if ('index' in msg) job.reject(tooDifferent(job.inputs[msg.index]));
    else job.reject(new Error(`The diff failed: ${msg.error}`));
    dispatch();
  }

  /** Stops the worker of `slot` (past its time limit); its batch fails with `failure`, a fresh worker takes the queue. */
  function stop(slot: Slot, failure: unknown): void {
    const job = finish(slot);
    const index = slots.indexOf(slot);
    if (index !== -1) slots[index] = undefined;
    replaced += 1;
    void slot.worker.terminate();
    job?.reject(failure);
    if (!closed) dispatch();
  }

  /** The worker of `slot` failed or ended by itself: out of memory, or a fault. */
  function onEnd(slot: Slot, why: 'memory' | Error): void {
    if (!slots.includes(slot)) return;
    const job = slot.job;
    if (!slot.ready && job === undefined && why !== 'memory') {
      // it never started: every queued batch would meet the same end
      const index = slots.indexOf(slot);
      slots[index] = undefined;
      const failure = new AppError('SERVICE_UNAVAILABLE', `The diff worker could not start: ${errorMessage(why)}`);
      for (const queued of queue.splice(0)) queued.reject(failure);
      return;
    }
    stop(slot, why === 'memory' ? tooLarge(job?.inputs[0]) : why);
  }

  return {
    size,
    timeoutMs,
    get replaced() {
      return replaced;
    },
    diff(inputs, deadline) {
      if (closed) return Promise.reject(new AppError('SERVICE_UNAVAILABLE', 'The diff pool is closed: the service is stopping'));
      if (inputs.length === 0) return Promise.resolve([]);
      return new Promise<ConfigDiff[]>((resolve, reject) => {
        track(1);
        queue.push({
          id: nextId++,
          inputs,
          deadline,
          resolve: (diffs) => {
            track(-1);
            resolve(diffs);
          },
          reject: (err) => {
            track(-1);
            reject(err);
          },
        });
        dispatch();
      });
    },
    async close() {
      closed = true;
      const stopping = new AppError('SERVICE_UNAVAILABLE', 'The diff pool is closed: the service is stopping');
      for (const job of queue.splice(0)) job.reject(stopping);
      await Promise.all(
        slots.map(async (slot, index) => {
          if (slot === undefined) return;
          slots[index] = undefined;
          finish(slot)?.reject(stopping);
          await slot.worker.terminate();
        }),
      );
    },
  };
}
