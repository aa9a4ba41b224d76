import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { AppError } from '@nap/contracts';
import type { JsonSchema, ValidationProblem } from '@nap/contracts';

/**
 * Checks values against JSON Schemas written by users (a workflow's `inputSchema`, a trigger's
 * `schema`, a form's schema) in a worker thread, each check with a time limit. A `pattern` such as
 * `^(a+)+$` backtracks for a time that doubles with each character of the value: run on the event
 * loop it would stop every request of the process. Here the thread that overruns is terminated and
 * a new one started for the next check; the check answers `timedOut`. Checks are answered one after
 * the other, in the order they were asked.
 */

/** A check asked of the thread. */
export interface SchemaThreadRequest {
  id: number;
  /** The schema's version: the thread compiles each key once. */
  key: string;
  schema: JsonSchema;
  value: unknown;
  /** Prefix of the member paths of the problems (`body`, `variables`). */
  label: string;
}

/** The thread's answer: the problems and the value with its schema's defaults, or why the schema could not be used. */
export type SchemaThreadAnswer =
  { id: number; ok: true; problems: ValidationProblem[]; value: unknown } | { id: number; ok: false; error: string };

/** What one check found. */
export type SchemaCheck =
  | { kind: 'checked'; problems: ValidationProblem[]; value: unknown }
  | { kind: 'unusable'; message: string }
  | { kind: 'timedOut'; timeoutMs: number };

/** Options of {@link SchemaThread}. */
export interface SchemaThreadOptions {
  /** Longest one check may run, in ms; default 1000. */
  timeoutMs?: number;
  /** Longest a new thread may take to start, in ms; default 15000. */
  startTimeoutMs?: number;
}

/** Schemas one thread compiles before it is replaced: its validator keeps every schema it compiled. */
const SCHEMAS_PER_THREAD = 1_000;

interface Thread {
  worker: Worker;
  ready: Promise<void>;
  keys: Set<string>;
  waiting: Map<number, (answer: SchemaThreadAnswer | Error) => void>;
}

interface Queued {
  request: Omit<SchemaThreadRequest, 'id'>;
  resolve(check: SchemaCheck): void;
  reject(err: unknown): void;
}

export class SchemaThread {
  private readonly timeoutMs: number;
  private readonly startTimeoutMs: number;
  private readonly queue: Queued[] = [];
  private thread: Thread | undefined;
  private busy = false;
  private nextId = 0;

  constructor(options: SchemaThreadOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 1_000;
    this.startTimeoutMs = options.startTimeoutMs ?? 15_000;
  }

  /** Checks `value` against `schema` (compiled once per `key`); never rejects for a bad schema or a slow pattern. */
  check(key: string, schema: JsonSchema, value: unknown, label: string): Promise<SchemaCheck> {
    return new Promise((resolve, reject) => {
      this.queue.push({ request: { key, schema, value, label }, resolve, reject });
      void this.pump();
    });
  }

  /** Ends the thread (a later check starts another); checks still queued fail. */
  async stop(): Promise<void> {
    for (const queued of this.queue.splice(0)) queued.reject(new AppError('SERVICE_UNAVAILABLE', 'The schema checks were stopped'));
    const thread = this.thread;
    this.thread = undefined;
    if (thread !== undefined) await thread.worker.terminate();
  }

  private async pump(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      for (let queued = this.queue.shift(); queued !== undefined; queued = this.queue.shift()) {
        try {
          queued.resolve(await this.run(queued.request));
        } catch (err) {
          queued.reject(err);
        }
      }
    } finally {
      this.busy = false;
    }
  }

  private async run(request: Omit<SchemaThreadRequest, 'id'>): Promise<SchemaCheck> {
    const thread = await this.started();
    thread.keys.add(request.key);
    const id = ++this.nextId;
    const answer = await new Promise<SchemaThreadAnswer | Error | 'timedOut'>((resolve) => {
      const timer = setTimeout(() => {
        thread.waiting.delete(id);
        this.retire(thread);
        resolve('timedOut');
      }, this.timeoutMs);
      thread.waiting.set(id, (a) => {
        clearTimeout(timer);
        resolve(a);
      });
      thread.worker.postMessage({ ...request, id } satisfies SchemaThreadRequest);
    });
    if (thread.keys.size > SCHEMAS_PER_THREAD) this.retire(thread);
    if (answer === 'timedOut') return { kind: 'timedOut', timeoutMs: this.timeoutMs };
    if (answer instanceof Error) throw answer;
    return answer.ok ? { kind: 'checked', problems: answer.problems, value: answer.value } : { kind: 'unusable', message: answer.error };
  }

  private retire(thread: Thread): void {
    if (this.thread === thread) this.thread = undefined;
    void thread.worker.terminate();
  }

  private async started(): Promise<Thread> {
    if (this.thread === undefined) {
      const worker = new Worker(threadModule(), { name: 'nap-user-schemas' });
      worker.unref();
      const waiting: Thread['waiting'] = new Map();
      const ready = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new AppError('SERVICE_UNAVAILABLE', `The schema thread did not start within ${this.startTimeoutMs} ms`)),
          this.startTimeoutMs,
        );
        worker.on('message', (answer: SchemaThreadAnswer) => {
          if (answer.id === 0) {
            clearTimeout(timer);
            resolve();
            return;
          }
          const answered = waiting.get(answer.id);
          waiting.delete(answer.id);
          answered?.(answer);
        });
        const ended = (reason: string): void => {
          clearTimeout(timer);
          const failure = new AppError('SERVICE_UNAVAILABLE', `The schema thread ended: ${reason}`);
          reject(failure);
          for (const answered of waiting.values()) answered(failure);
          waiting.clear();
          if (this.thread?.worker === worker) this.thread = undefined;
        };
        worker.on('error', (err) => ended(err.message));
        worker.on('exit', (code) => ended(`exit code ${code}`));
      });
      this.thread = { worker, ready, keys: new Set(), waiting };
    }
    const thread = this.thread;
    try {
      await thread.ready;
    } catch (err) {
      this.retire(thread);
      throw err;
    }
    return thread;
  }
}

/**
 * The thread's module: compiled beside this one. Run from sources (jest compiles them in its own
 * process, not in a worker), the thread runs their build: `npm run build` first.
 */
function threadModule(): string {
  if (!__filename.endsWith('.ts')) return path.join(__dirname, 'schema-thread-main.js');
  const built = path.resolve(__dirname, '../../dist/engine/schema-thread-main.js');
  if (!existsSync(built)) throw new Error(`The schema thread runs compiled code and ${built} is missing: build first (npm run build)`);
  return built;
}
