import { deepmerge, makeData, merge, modify, newVariable, query, setObjectKey } from './data';
import {
  arrayIncludes,
  arrayIndexOf,
  arrayLength,
  arrayPush,
  join,
  numberToString,
  pop,
  push,
  split,
  stringConcat,
  stringLength,
  substring,
} from './collections';
import { evaluation } from './evaluation';
import { calculateTimeDiff, getTime } from './time';
import type { SyncBuiltin } from './types';

export type { Builtin, BuiltinInput, BuiltinResult, SyncBuiltin } from './types';
export { TaskInputError } from './types';

/**
 * Built-in tasks without side effects outside the job, computed synchronously: the engine runs them
 * inside its step, so a chain of them costs one store write. Were the engine to die mid-chain, the
 * store still holds the state before the chain and the chain runs again, which changes nothing
 * outside the job.
 */
export const INLINE_BUILTINS: Readonly<Record<string, SyncBuiltin>> = Object.freeze({
  newVariable,
  query,
  evaluation,
  merge,
  deepmerge,
  makeData,
  modify,
  setObjectKey,
  push,
  pop,
  arrayLength,
  arrayPush,
  arrayIncludes,
  arrayIndexOf,
  join,
  split,
  stringConcat,
  stringLength,
  substring,
  numberToString,
  getTime,
  calculateTimeDiff,
});

/** Built-in tasks that wait for a person (the job waits until they are finished over HTTP). */
export const MANUAL_BUILTINS: ReadonlySet<string> = new Set(['ViewData', 'ViewDiff']);
