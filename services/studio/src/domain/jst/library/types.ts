import type { RegexOp } from '../regex';
import { MethodError } from '../errors';
import type { Obj } from '../values';
import { isPlainObject, typeName } from '../values';

/** What a library method may ask of the run it belongs to. */
export interface CallContext {
  /** Calls the user function with this id with positional arguments; answers its first outgoing value. */
  callback(id: unknown, args: unknown[]): unknown;
  /** Runs a regular expression operation (bounded in time). */
  regex(op: RegexOp): unknown;
  /** Counts `n` elements or characters a method is about to make; throws when past the run's limit. */
  grow(n: number): void;
}

/**
 * One method of the library. `params` name the arguments for messages (`...values` takes the rest);
 * `callback` is the index of an argument that holds a user function id, and `callbackValues` how many
 * values the callback receives before the constant values (the arguments after the callback, or after
 * `initialValue` for reduce); without it the callback receives no constant values. Methods are pure:
 * they never change what they are given and answer new values.
 */
export interface MethodDef {
  params: readonly string[];
  callback?: number;
  callbackValues?: number;
  run(args: unknown[], ctx: CallContext): unknown;
}

export type Library = Readonly<Record<string, MethodDef>>;

function position(index: number, param: string): string {
  return `argument ${index + 1} (${param})`;
}

/** Argument `index` as an array; MethodError otherwise. */
export function needArray(args: unknown[], index: number, param = 'array'): unknown[] {
  const value = args[index];
  if (!Array.isArray(value)) throw new MethodError(`${position(index, param)} must be an array, not ${typeName(value)}`);
  return value;
}

/** Argument `index` as text: strings as they are, other values but null and undefined converted (String.prototype semantics). */
export function needText(args: unknown[], index: number, param = 'string'): string {
  const value = args[index];
  if (value === null || value === undefined) throw new MethodError(`${position(index, param)} must be a string, not ${typeName(value)}`);
  return typeof value === 'string' ? value : String(value);
}

/** Argument `index` as a plain object; MethodError otherwise. */
export function needObject(args: unknown[], index: number, param = 'object'): Obj {
  const value = args[index];
  if (!isPlainObject(value)) throw new MethodError(`${position(index, param)} must be an object, not ${typeName(value)}`);
  return value;
}

/** Argument `index` as anything that has members (object or array); MethodError for null, undefined and primitives. */
export function needContainer(args: unknown[], index: number, param = 'object'): object {
  const value = args[index];
  if (typeof value !== 'object' || value === null)
    throw new MethodError(`${position(index, param)} must be an object, not ${typeName(value)}`);
  return value;
}

/** Argument `index` as a Date: a Date, or text or a number a Date can be made of. */
export function needDate(args: unknown[], index: number, param = 'date'): Date {
  const value = args[index];
  if (value instanceof Date) return value;
  if (typeof value === 'string' || typeof value === 'number') {
    const date = new Date(value);
    if (!Number.isNaN(date.getTime())) return date;
  }
  throw new MethodError(
    `${position(index, param)} must be a date, not ${typeName(value)}${typeof value === 'string' ? ` "${value}"` : ''}`,
  );
}

/** Argument `index` as an integer index or count (JavaScript's ToIntegerOrInfinity; undefined → `fallback`). */
export function integer(args: unknown[], index: number, fallback: number): number {
  const value = args[index];
  if (value === undefined) return fallback;
  const n = Number(value);
  if (Number.isNaN(n)) return 0;
  return Math.trunc(n);
}
