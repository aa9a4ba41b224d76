import { errorMessage } from '@nap/util';
import { MethodError } from '../errors';
import { isPlainObject, typeName } from '../values';
import type { CallContext } from './types';

/**
 * `declaration` steps: constructors. `polymorphIndex` picks the overload where JavaScript has several
 * (`new Array(element0, …)` is 0, `new Array(arrayLength)` is 1; `new Date()` 0, `new Date(value)`
 * 1, `new Date(dateString)` 2, `new Date(dateObject)` 3, `new Date(year, monthIndex, …)` 4, in UTC).
 * Wrapper constructors answer primitives (`new Number("1")` is 1). `new Object` takes an object, or
 * the JSON text of one as the editor stores it. `new Null` and `new Undefined` take nothing and answer
 * the value they name: the editor's way of writing null (or leaving a member out) where an argument
 * or an outgoing member has to be wired to something.
 */
export interface DeclarationDef {
  params: readonly string[];
  run(args: unknown[], polymorph: number, ctx: CallContext): unknown;
}

function newDate(args: unknown[], polymorph: number): Date {
  if (polymorph === 0 || (polymorph !== 4 && args.length === 0)) return new Date();
  if (polymorph === 4) {
    const [y, m, ...rest] = args.map((v) => (v === undefined ? undefined : Number(v)));
    return new Date(Date.UTC(y ?? NaN, m ?? 0, rest[0] ?? 1, rest[1] ?? 0, rest[2] ?? 0, rest[3] ?? 0, rest[4] ?? 0));
  }
  const value = args[0];
  const date =
    value instanceof Date
      ? new Date(value.getTime())
      : typeof value === 'number' || typeof value === 'string'
        ? new Date(value)
        : undefined;
  if (date === undefined || Number.isNaN(date.getTime()))
    throw new MethodError(`argument 1 (value) is not a date: ${typeName(value)}${typeof value === 'string' ? ` "${value}"` : ''}`);
  return date;
}

function newObject(value: unknown): unknown {
  if (value === undefined || value === null) return {};
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      if (isPlainObject(parsed)) return parsed;
    } catch {
      // not JSON: an object of the text, as JavaScript makes one
    }
    return Object.fromEntries(Array.from(value).map((ch, i) => [String(i), ch]));
  }
  return value;
}

export const DECLARATIONS: Readonly<Record<string, DeclarationDef>> = {
  'Array.new Array': {
    params: ['...elements'],
    run(args, polymorph, ctx) {
      if (polymorph !== 1) return [...args];
      const length = Number(args[0] ?? 0);
      if (!Number.isInteger(length) || length < 0)
        throw new MethodError(`argument 1 (arrayLength) must be a whole number, not ${String(args[0])}`);
      ctx.grow(length);
      return Array.from({ length }, () => undefined);
    },
  },
  'Boolean.new Boolean': { params: ['value'], run: (args) => Boolean(args[0]) },
  'Date.new Date': { params: ['value'], run: (args, polymorph) => newDate(args, polymorph) },
  'Null.new Null': { params: [], run: () => null },
  'Number.new Number': { params: ['value'], run: (args) => (args[0] === undefined ? 0 : Number(args[0])) },
  'Object.new Object': { params: ['value'], run: (args) => newObject(args[0]) },
  'RegExp.new RegExp': {
    params: ['pattern', 'flags'],
    run(args) {
      const source = args[0] instanceof RegExp ? args[0].source : args[0] === undefined ? '(?:)' : String(args[0]);
      try {
        return new RegExp(source, args[1] === undefined ? (args[0] instanceof RegExp ? args[0].flags : '') : String(args[1]));
      } catch (err) {
        throw new MethodError(errorMessage(err));
      }
    },
  },
  'Set.new Set': {
    params: ['iterable'],
    run(args) {
      const value = args[0];
      if (value === undefined || value === null) return new Set();
      if (Array.isArray(value)) return new Set(value);
      if (typeof value === 'string') return new Set(Array.from(value));
      if (value instanceof Set) return new Set(value);
      throw new MethodError(`argument 1 (iterable) must be an array, a string or a Set, not ${typeName(value)}`);
    },
  },
  'String.new String': { params: ['value'], run: (args) => (args[0] === undefined ? '' : String(args[0])) },
  'Undefined.new Undefined': { params: [], run: () => undefined },
};
