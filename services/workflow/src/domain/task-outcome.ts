import type { BuiltinResult } from './builtins';

/**
 * What running a task produced, as the engine applies it: the finish state picks the transitions,
 * outgoing values are recorded (and written to the job variables the task names), `error` is the
 * task's error text. A built-in task answers one directly.
 */
export type TaskOutcome = BuiltinResult;

/** The outcome of a task that failed with `message`. */
export function errorOutcome(message: string, outgoing: Record<string, unknown> = {}): TaskOutcome {
  return { finishState: 'error', outgoing, error: message };
}
