import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { execRegexJob } from '../domain/regex-engine';
import type { RegexEngine, RegexJob, RegexOutcome } from '../domain/regex-engine';

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

// The worker answers one message per job, so the pool knows which job of a batch is running: a
// job that answers nothing within the limit is the culprit; the rest of its batch is re-queued.
// A worker gets work only once it said it is ready, so the time a thread takes to start (long on a
// loaded machine) never counts against a pattern's limit. The source runs as CommonJS or as an ES
// module (a worker inherits `--input-type=module` from its process), so it takes node's modules
// through process.getBuiltinModule rather than require.
const WORKER_SOURCE = `
const { parentPort } = process.getBuiltinModule('node:worker_threads');
const execRegexJob = ${execRegexJob.toString()};
parentPort.on('message', (batch) => {
  for (let i = 0; i < batch.jobs.length; i++) {
    const job = batch.jobs[i];
    let out;
    try {
      out = { id: batch.id, index: i, ok: true, value: execRegexJob(job.pattern, job.flags, batch.inputs[job.input] ?? '', job.mode) };
    } catch (err) {
      out = { id: batch.id, index: i, ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    parentPort.postMessage(out);
  }
});
parentPort.postMessage({ ready: true });
`;

interface Batch {
  id: number;
  inputs: readonly string[];
  jobs: readonly RegexJob[];
  /** Where each job's outcome goes in the caller's array. */
  slots: number[];
  outcomes: RegexOutcome[];
  remaining: { count: number };
  resolve: (outcomes: RegexOutcome[]) => void;
}

interface Slot {
  worker: Worker;
  /** The worker has started and listens for batches. */
  ready: boolean;
  batch?: Batch;
  /** Jobs of the current batch answered so far. */
  answered: number;
  timer?: NodeJS.Timeout;
}

interface JobMessage {
  ready?: true;
  id: number;
  index: number;
  ok: boolean;
  value?: boolean | string | null | string[];
  error?: string;
}

/**
 * Starts a pool of worker threads that evaluate regular expressions. A pattern that runs longer
 * than `jobTimeoutMs` is answered `{ ok: false, timedOut: true }`, its worker is terminated and
 * replaced, and the other jobs go on: a catastrophic pattern costs one worker restart, not the service.
 */
export function createRegexPool(options: RegexPoolOptions = {}): RegexPool {
  const size = Math.max(1, options.size ?? Math.min(4, availableParallelism()));
  const jobTimeoutMs = options.jobTimeoutMs ?? 1_000;
  const queue: Batch[] = [];
  const slots: Slot[] = [];
  let nextId = 1;
  let replaced = 0;
  let closed = false;

  /** Batches handed to `run` and not answered yet: while there are any, the workers keep the process alive. */
  let pending = 0;

  function spawn(): Slot {
    const slot: Slot = { worker: new Worker(WORKER_SOURCE, { eval: true }), ready: false, answered: 0 };
    slot.worker.on('message', (msg: JobMessage) => onMessage(slot, msg));
    slot.worker.on('error', (err: Error) => onCrash(slot, err.message));
    if (pending === 0) slot.worker.unref();
    return slot;
  }

  /**
   * An idle pool must not keep the process alive, a busy one must: a caller awaiting an answer with
   * nothing else scheduled (a script's top-level await) would otherwise see its process exit while
   * a worker is still starting (exit code 13, an unsettled top-level await).
   */
  function track(delta: 1 | -1): void {
    pending += delta;
    if (delta === 1 && pending === 1) for (const slot of slots) slot.worker.ref();
    if (delta === -1 && pending === 0) for (const slot of slots) slot.worker.unref();
  }

  function arm(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = setTimeout(() => onTimeout(slot), jobTimeoutMs);
  }

  function settle(batch: Batch, index: number, outcome: RegexOutcome): void {
    batch.outcomes[batch.slots[index] as number] = outcome;
    batch.remaining.count -= 1;
    if (batch.remaining.count === 0) batch.resolve(batch.outcomes);
  }

  function dispatch(): void {
    for (const slot of slots) {
      if (!slot.ready || slot.batch !== undefined) continue;
      const batch = queue.shift();
      if (batch === undefined) return;
      slot.batch = batch;
      slot.answered = 0;
      arm(slot);
      slot.worker.postMessage({ id: batch.id, inputs: batch.inputs, jobs: batch.jobs });
    }
  }

  function onMessage(slot: Slot, msg: JobMessage): void {
    if (msg.ready) {
      slot.ready = true;
      dispatch();
      return;
    }
    const batch = slot.batch;
    if (batch === undefined || msg.id !== batch.id) return;
    slot.answered += 1;
    settle(batch, msg.index, msg.ok ? { ok: true, value: msg.value ?? null } : { ok: false, error: msg.error ?? 'failed' });
    if (slot.answered === batch.jobs.length) {
      if (slot.timer) clearTimeout(slot.timer);
      slot.batch = undefined;
      dispatch();
    } else arm(slot);
  }

  /** Replaces the worker of `slot`; the job it was running gets `failure`, the rest of its batch goes back to the queue front. */
  function replace(slot: Slot, failure: RegexOutcome): void {
    if (slot.timer) clearTimeout(slot.timer);
    const batch = slot.batch;
    slot.batch = undefined;
    const index = slots.indexOf(slot);
    void slot.worker.terminate();
    replaced += 1;
    if (closed) return;
    const fresh = spawn();
    if (index !== -1) slots[index] = fresh;
    if (batch !== undefined) {
      const culprit = slot.answered;
      settle(batch, culprit, failure);
      const rest = batch.jobs.slice(culprit + 1);
      if (rest.length > 0) {
        queue.unshift({ ...batch, id: nextId++, jobs: rest, slots: batch.slots.slice(culprit + 1) });
      }
    }
    dispatch();
  }

  function onTimeout(slot: Slot): void {
    replace(slot, { ok: false, timedOut: true, error: `the pattern ran longer than ${jobTimeoutMs} ms and was stopped` });
  }

  function onCrash(slot: Slot, message: string): void {
    if (slot.batch === undefined) {
      replace(slot, { ok: false, error: message });
      return;
    }
    replace(slot, { ok: false, error: `the pattern crashed its worker: ${message}` });
  }

  for (let i = 0; i < size; i++) slots.push(spawn());

  return {
    size,
    jobTimeoutMs,
    get replaced() {
      return replaced;
    },
    run(inputs, jobs) {
      if (closed) return Promise.reject(new Error('The regular expression pool is closed'));
      if (jobs.length === 0) return Promise.resolve([]);
      return new Promise<RegexOutcome[]>((resolve) => {
        track(1);
        queue.push({
          id: nextId++,
          inputs,
          jobs,
          slots: jobs.map((_, i) => i),
          outcomes: new Array<RegexOutcome>(jobs.length),
          remaining: { count: jobs.length },
          resolve: (outcomes) => {
            track(-1);
            resolve(outcomes);
          },
        });
        dispatch();
      });
    },
    async close() {
      closed = true;
      for (const batch of queue.splice(0)) {
        for (let i = 0; i < batch.jobs.length; i++) settle(batch, i, { ok: false, error: 'the service is stopping' });
      }
      await Promise.all(
        slots.map(async (slot) => {
          if (slot.timer) clearTimeout(slot.timer);
          if (slot.batch !== undefined) {
            const batch = slot.batch;
            slot.batch = undefined;
            for (let i = 0; i < batch.jobs.length; i++)
              if (batch.outcomes[batch.slots[i] as number] === undefined) settle(batch, i, { ok: false, error: 'the service is stopping' });
          }
          await slot.worker.terminate();
        }),
      );
    },
  };
}
