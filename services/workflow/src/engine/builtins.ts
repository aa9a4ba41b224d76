import { sleep } from '@nap/util';
import { INLINE_BUILTINS, TaskInputError } from '../domain/builtins';
import type { Builtin, BuiltinResult } from '../domain/builtins';
import { success } from '../domain/builtins/types';
import { restCall } from '../clients/rest-call';

/*
 * The built-in tasks that wait (delay, stub) or reach outside the job (restCall, in clients/): they
 * run after the step's store write, on the engine's clock, so they are engine parts, not domain.
 */

function seconds(value: unknown, name: string): number {
  if (value === '' || value === null || value === undefined) return 0;
  const n = typeof value === 'number' ? value : Number(value);
  if (Number.isNaN(n) || n < 0) throw new TaskInputError(`Incoming "${name}" must be a number of seconds, not ${JSON.stringify(value)}`);
  return n;
}

/** A nominal wait of `ms` as the engine's clock runs it: `ms / timeScale` of real time. */
function scaled(ms: number, timeScale: number | undefined): number {
  return timeScale === undefined || timeScale <= 0 ? ms : ms / timeScale;
}

/** delay: `time` in seconds → `time_in_milliseconds`; resumed after a restart it waits only what is left. */
export const delay: Builtin = async ({ incoming, startedAt, signal, timeScale }) => {
  const ms = seconds(incoming.time, 'time') * 1000;
  await sleep(startedAt + scaled(ms, timeScale) - Date.now(), signal);
  signal.throwIfAborted();
  return success({ time_in_milliseconds: ms });
};

/** stub: `type` (success, failure or error), `delay` (seconds), `response` → `response`. */
export const stub: Builtin = async ({ incoming, startedAt, signal, timeScale }) => {
  const type = incoming.type === undefined || incoming.type === '' ? 'success' : incoming.type;
  if (type !== 'success' && type !== 'failure' && type !== 'error')
    throw new TaskInputError(`stub type ${JSON.stringify(type)} must be success, failure or error`);
  const wait = seconds(incoming.delay, 'delay') * 1000;
  if (wait > 0) {
    await sleep(startedAt + scaled(wait, timeScale) - Date.now(), signal);
    signal.throwIfAborted();
  }
  const result: BuiltinResult = { finishState: type, outgoing: { response: incoming.response ?? null } };
  if (type === 'error')
    result.error =
      typeof incoming.response === 'string' && incoming.response !== '' ? incoming.response : 'The stub task finished with state error';
  return result;
};

/**
 * The built-in tasks of the engine (app `WorkFlowEngine`) that compute their result at once: the
 * inline ones and those with effects outside the job (`delay`, `stub`, `restCall`). The engine
 * handles `childJob`, `forEach`, the manual tasks (`ViewData`, `ViewDiff`) and the graph markers itself.
 */
export const BUILTINS: Readonly<Record<string, Builtin>> = Object.freeze({ ...INLINE_BUILTINS, delay, stub, restCall });
