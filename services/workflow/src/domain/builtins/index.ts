import { deepmerge, makeData, merge, modify, newVariable, query, setObjectKey } from './data';
import { arrayIncludes, arrayIndexOf, arrayLength, arrayPush, join, numberToString, pop, push, split, stringConcat, stringLength, substring } from './collections';
import { delay, restCall, stub } from './control';
import { evaluation } from './evaluation';
import { calculateTimeDiff, getTime } from './time';
import type { Builtin } from './types';

export type { Builtin, BuiltinInput, BuiltinResult } from './types';
export { TaskInputError } from './types';

/**
 * The built-in tasks of the engine (app `WorkFlowEngine`) that compute their result at once. The
 * engine handles `childJob`, `forEach`, the manual tasks (`ViewData`, `ViewDiff`) and the graph
 * markers itself.
 */
export const BUILTINS: Readonly<Record<string, Builtin>> = Object.freeze({
  newVariable,
  query,
  evaluation,
  merge,
  deepmerge,
  makeData,
  modify,
  setObjectKey,
  delay,
  stub,
  restCall,
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

/** True when `name` is a built-in task the engine runs itself. */
export function isBuiltin(name: string): boolean {
  return Object.hasOwn(BUILTINS, name) || MANUAL_BUILTINS.has(name) || name === 'childJob' || name === 'forEach';
}
