import { MethodError } from '../errors';
import type { Obj } from '../values';
import { isPlainObject, member, typeName, withMember } from '../values';
import type { Library } from './types';
import { needContainer, needObject } from './types';

/**
 * `Object.*`: as JavaScript's member access (`obj[key]`, the key converted to text), reading own
 * members only (nothing reaches a prototype: `getProperty(x, "constructor")` is undefined). Reading
 * from null or undefined answers undefined, and `setProperty` on null or undefined starts a new
 * object, where JavaScript would fail: data missing from an input is a value, not an error.
 * `setProperty` / `deleteProperty` answer a changed copy.
 */

function key(args: unknown[], index: number): string {
  return String(args[index]);
}

/** The object argument of a write: a plain object, or a new one for null and undefined. */
function writable(args: unknown[]): Obj {
  return args[0] === undefined || args[0] === null ? {} : needObject(args, 0);
}

/** `obj[key] = value` on a copy; an array takes an index (other members of an array are not data and are left out). */
function written(args: unknown[]): unknown {
  const target = args[0];
  const k = key(args, 1);
  if (!Array.isArray(target)) return withMember(writable(args), k, args[2]);
  const copy = [...target];
  if (/^(0|[1-9]\d*)$/.test(k)) copy[Number(k)] = args[2];
  return copy;
}

export const OBJECT: Library = {
  assign: {
    params: ['target', '...sources'],
    run(args) {
      let out: Obj = { ...needObject(args, 0, 'target') };
      for (const [i, source] of args.slice(1).entries()) {
        if (source === undefined || source === null) continue;
        if (!isPlainObject(source)) throw new MethodError(`argument ${i + 2} (source) must be an object, not ${typeName(source)}`);
        for (const [k, v] of Object.entries(source)) out = withMember(out, k, v);
      }
      return out;
    },
  },
  deleteProperty: {
    params: ['object', 'key'],
    run(args) {
      const copy: Obj = { ...writable(args) };
      delete copy[key(args, 1)];
      return copy;
    },
  },
  entries: {
    params: ['object'],
    run: (args) => Object.entries(needContainer(args, 0)),
  },
  fromEntries: {
    params: ['entries'],
    run(args) {
      const entries = args[0];
      if (!Array.isArray(entries))
        throw new MethodError(`argument 1 (entries) must be an array of [key, value] pairs, not ${typeName(entries)}`);
      let out: Obj = {};
      for (const [i, entry] of entries.entries()) {
        if (!Array.isArray(entry)) throw new MethodError(`entry ${i} must be a [key, value] pair, not ${typeName(entry)}`);
        out = withMember(out, String(entry[0]), entry[1]);
      }
      return out;
    },
  },
  getProperty: {
    params: ['object', 'key'],
    run: (args) => member(args[0], key(args, 1)),
  },
  hasOwnProperty: {
    params: ['object', 'key'],
    run: (args: unknown[]) => Object.hasOwn(needContainer(args, 0), key(args, 1)),
  },
  is: {
    params: ['value1', 'value2'],
    run: (args) => Object.is(args[0], args[1]),
  },
  keys: {
    params: ['object'],
    run: (args) => Object.keys(needContainer(args, 0)),
  },
  'optional chaining': {
    params: ['object', '...keys'],
    run(args) {
      let current = args[0];
      for (const k of args.slice(1)) {
        if (current === undefined || current === null) return undefined;
        if (k === undefined || k === null) continue;
        current = member(current, String(k));
      }
      return current;
    },
  },
  setProperty: {
    params: ['object', 'key', 'value'],
    run: written,
  },
  values: {
    params: ['object'],
    run: (args) => Object.values(needContainer(args, 0)),
  },
};
