import { existsSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '@nap/contracts';
import type { JsonSchema, ValidationProblem } from '@nap/contracts';
import { createWorkerPool, isWorkerPoolClosed } from '@nap/runtime';
import type { WorkerPool, WorkerPoolOutcome, WorkerPoolReply } from '@nap/runtime';

/**
 * Checks values against JSON Schemas written by users (a workflow's `inputSchema`, a trigger's
 * `schema`, a form's schema) in a worker thread, each check with a time limit. A `pattern` such as
 * `^(a+)+$` backtracks for a time that doubles with each character of the value: run on the event
 * loop it would stop every request of the process. Here the thread that overruns is terminated and
 * a new one started for the next check; the check answers `timedOut`. Checks are answered one after
 * the other, in the order they were asked (@nap/runtime's worker pool, of one worker).
 */

/** A check asked of the thread. */
export interface SchemaThreadRequest {
  /** The schema's version: the thread compiles each key once. */
  key: string;
  schema: JsonSchema;
  value: unknown;
  /** Prefix of the member paths of the problems (`body`, `variables`). */
  label: string;
}

/** The problems found and the value with its schema's defaults. */
export interface SchemaThreadResult {
  problems: ValidationProblem[];
  value: unknown;
}

/**
 * The thread's answer: the problems and the value, or why the schema could not be used; `retire`
 * once it holds more compiled schemas than it should keep.
 */
export type SchemaThreadAnswer = WorkerPoolReply<SchemaThreadResult>;

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

export class SchemaThread {
  private readonly timeoutMs: number;
  private readonly startTimeoutMs: number;
  /** One thread, started at the first check and again after a stop: checks are answered in order. */
  private pool: WorkerPool<SchemaThreadRequest, SchemaThreadResult> | undefined;

  constructor(options: SchemaThreadOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 1_000;
    this.startTimeoutMs = options.startTimeoutMs ?? 15_000;
  }

  /** Checks `value` against `schema` (compiled once per `key`); never rejects for a bad schema or a slow pattern. */
  async check(key: string, schema: JsonSchema, value: unknown, label: string): Promise<SchemaCheck> {
    let outcome: WorkerPoolOutcome<SchemaThreadResult>;
    try {
      outcome = await this.started().run({ key, schema, value, label });
    } catch (err) {
      // else the thread could not start: a WorkerPoolError, SERVICE_UNAVAILABLE too
      throw isWorkerPoolClosed(err) ? new AppError('SERVICE_UNAVAILABLE', 'The schema checks were stopped', { cause: err }) : err;
    }
    switch (outcome.kind) {
      case 'done':
        return { kind: 'checked', problems: outcome.value.problems, value: outcome.value.value };
      case 'failed':
        return { kind: 'unusable', message: outcome.message };
      case 'timedOut':
        return { kind: 'timedOut', timeoutMs: this.timeoutMs };
      case 'crashed':
        throw new AppError('SERVICE_UNAVAILABLE', `The schema thread ended: ${outcome.error.message}`, { cause: outcome.error });
      case 'expired':
        throw new AppError('SERVICE_UNAVAILABLE', 'The schema check was dropped before it ran');
    }
  }

  /** Ends the thread (a later check starts another); checks still queued or running fail. */
  async stop(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.close();
  }

  private started(): WorkerPool<SchemaThreadRequest, SchemaThreadResult> {
    this.pool ??= createWorkerPool<SchemaThreadRequest, SchemaThreadResult>({
      name: 'schema',
      script: threadModule(),
      workerOptions: { name: 'nap-user-schemas' },
      timeoutMs: this.timeoutMs,
      startTimeoutMs: this.startTimeoutMs,
    });
    return this.pool;
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
