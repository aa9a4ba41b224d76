import { MethodError } from '../errors';
import { isPlainObject, typeName } from '../values';
import type { CallContext, Library, MethodDef } from './types';
import { integer, needArray } from './types';

/**
 * `Array.*`: every method takes the array first and answers a new value. Methods that change an
 * array in JavaScript answer copies instead: `push`/`unshift`/`reverse`/`sort`/`fill`/`setIndex` the
 * new array, `pop`/`shift` `{ value, array }`, `splice` `{ array, spliced }`. Callback methods take a
 * user function id; the callback receives `currentValue, index, array, constantValue1..N`
 * (`reduce`: `accumulator` first; `sort`: the two elements).
 */

/** Arguments after `from` are the callback's constant values. */
function constants(args: unknown[], from: number): unknown[] {
  return args.slice(from);
}

function each(method: (array: unknown[], fn: (value: unknown, index: number) => unknown) => unknown, from = 2): MethodDef {
  return {
    params: ['array', 'callback', '...constantValues'],
    callback: 1,
    callbackValues: 3,
    run(args, ctx) {
      const array = needArray(args, 0);
      const fixed = constants(args, from);
      return method(array, (value, index) => ctx.callback(args[1], [value, index, array, ...fixed]));
    },
  };
}

function reducer(fromRight: boolean): MethodDef {
  return {
    params: ['array', 'callback', 'initialValue', '...constantValues'],
    callback: 1,
    callbackValues: 4,
    run(args, ctx) {
      const array = needArray(args, 0);
      const fixed = constants(args, 3);
      const step = (acc: unknown, value: unknown, index: number) => ctx.callback(args[1], [acc, value, index, array, ...fixed]);
      if (args[2] === undefined) {
        if (array.length === 0) throw new MethodError('reduce of an empty array with no initial value');
        return fromRight ? array.reduceRight(step) : array.reduce(step);
      }
      return fromRight ? array.reduceRight(step, args[2]) : array.reduce(step, args[2]);
    },
  };
}

function sizeOf(ctx: CallContext, n: number): number {
  ctx.grow(n);
  return n;
}

/** JavaScript's default sort order: undefined last, the rest by their text. */
function defaultCompare(a: unknown, b: unknown): number {
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

// declared apart: inside the literal, a member named toString gets no contextual type
const ARRAY_TO_STRING: MethodDef = {
  params: ['array'],
  run(args, ctx) {
    const text = needArray(args, 0).toString();
    ctx.grow(text.length);
    return text;
  },
};

export const ARRAY: Library = {
  at: {
    params: ['array', 'index'],
    run: (args) => needArray(args, 0).at(integer(args, 1, 0)),
  },
  concat: {
    params: ['array', '...values'],
    run(args, ctx) {
      const array = needArray(args, 0);
      const rest = args.slice(1);
      sizeOf(ctx, array.length + rest.reduce<number>((n, v) => n + (Array.isArray(v) ? v.length : 1), 0));
      return array.concat(...rest);
    },
  },
  copyWithin: {
    params: ['array', 'target', 'start', 'end'],
    run(args) {
      const array = needArray(args, 0);
      return [...array].copyWithin(integer(args, 1, 0), integer(args, 2, 0), integer(args, 3, array.length));
    },
  },
  every: each((a, fn) => a.every((v, i) => Boolean(fn(v, i)))),
  fill: {
    params: ['array', 'value', 'start', 'end'],
    run(args) {
      const array = needArray(args, 0);
      return [...array].fill(
        args[1],
        args[2] === undefined ? undefined : integer(args, 2, 0),
        args[3] === undefined ? undefined : integer(args, 3, array.length),
      );
    },
  },
  filter: each((a, fn) => a.filter((v, i) => Boolean(fn(v, i)))),
  find: each((a, fn) => a.find((v, i) => Boolean(fn(v, i)))),
  findIndex: each((a, fn) => a.findIndex((v, i) => Boolean(fn(v, i)))),
  findLast: each((a, fn) => a.findLast((v, i) => Boolean(fn(v, i)))),
  findLastIndex: each((a, fn) => a.findLastIndex((v, i) => Boolean(fn(v, i)))),
  flat: {
    params: ['array', 'depth'],
    run: (args) => needArray(args, 0).flat(integer(args, 1, 1)),
  },
  flatMap: each((a, fn) => a.flatMap((v, i) => fn(v, i))),
  // calls back for each element and answers undefined: callbacks change nothing, so it is kept for documents that have it
  forEach: each((a, fn) => {
    a.forEach((v, i) => fn(v, i));
    return undefined;
  }),
  from: {
    params: ['iterable'],
    run(args, ctx) {
      const value = args[0];
      if (Array.isArray(value)) return [...value];
      if (typeof value === 'string') return sizeOf(ctx, value.length) >= 0 ? Array.from(value) : [];
      if (value instanceof Set) return Array.from(value);
      if (isPlainObject(value) && typeof value.length === 'number')
        return Array.from({ length: sizeOf(ctx, Math.max(0, Math.trunc(value.length))) }, (_, i) => value[String(i)]);
      throw new MethodError(`argument 1 (iterable) must be an array, a string or a Set, not ${typeName(value)}`);
    },
  },
  getIndex: {
    params: ['array', 'index'],
    run: (args) => needArray(args, 0)[integer(args, 1, 0)],
  },
  includes: {
    params: ['array', 'searchElement', 'fromIndex'],
    run: (args) => needArray(args, 0).includes(args[1], integer(args, 2, 0)),
  },
  indexOf: {
    params: ['array', 'searchElement', 'fromIndex'],
    run: (args) => needArray(args, 0).indexOf(args[1], integer(args, 2, 0)),
  },
  isArray: {
    params: ['value'],
    run: (args) => Array.isArray(args[0]),
  },
  join: {
    params: ['array', 'separator'],
    run(args, ctx) {
      const text = needArray(args, 0).join(args[1] === undefined ? undefined : String(args[1]));
      ctx.grow(text.length);
      return text;
    },
  },
  lastIndexOf: {
    params: ['array', 'searchElement', 'fromIndex'],
    run: (args) => {
      const array = needArray(args, 0);
      return array.lastIndexOf(args[1], integer(args, 2, array.length - 1));
    },
  },
  length: {
    params: ['array'],
    run: (args) => needArray(args, 0).length,
  },
  map: each((a, fn) => a.map((v, i) => fn(v, i))),
  of: {
    params: ['...items'],
    run(args, ctx) {
      sizeOf(ctx, args.length);
      return [...args];
    },
  },
  pop: {
    params: ['array'],
    run(args) {
      const array = needArray(args, 0);
      return { value: array[array.length - 1], array: array.slice(0, -1) };
    },
  },
  push: {
    params: ['array', '...items'],
    run(args, ctx) {
      const array = needArray(args, 0);
      sizeOf(ctx, array.length + args.length - 1);
      return [...array, ...args.slice(1)];
    },
  },
  reduce: reducer(false),
  reduceRight: reducer(true),
  reverse: {
    params: ['array'],
    run: (args) => [...needArray(args, 0)].reverse(),
  },
  setIndex: {
    params: ['array', 'index', 'value'],
    run(args, ctx) {
      const copy = [...needArray(args, 0)];
      const index = integer(args, 1, 0);
      if (index < 0) throw new MethodError(`argument 2 (index) must not be negative, not ${index}`);
      sizeOf(ctx, index + 1);
      copy[index] = args[2];
      return copy;
    },
  },
  shift: {
    params: ['array'],
    run(args) {
      const array = needArray(args, 0);
      return { value: array[0], array: array.slice(1) };
    },
  },
  slice: {
    params: ['array', 'start', 'end'],
    run: (args) => {
      const array = needArray(args, 0);
      return array.slice(integer(args, 1, 0), integer(args, 2, array.length));
    },
  },
  some: each((a, fn) => a.some((v, i) => Boolean(fn(v, i)))),
  sort: {
    params: ['array', 'compareFunction'],
    callback: 1,
    run(args, ctx) {
      const copy = [...needArray(args, 0)];
      if (args[1] === undefined) return copy.sort(defaultCompare);
      return copy.sort((a, b) => Number(ctx.callback(args[1], [a, b])) || 0);
    },
  },
  splice: {
    params: ['array', 'start', 'deleteCount', '...items'],
    run(args) {
      const copy = [...needArray(args, 0)];
      const spliced =
        args[2] === undefined ? copy.splice(integer(args, 1, 0)) : copy.splice(integer(args, 1, 0), integer(args, 2, 0), ...args.slice(3));
      return { array: copy, spliced };
    },
  },
  toString: ARRAY_TO_STRING,
  unshift: {
    params: ['array', '...items'],
    run(args, ctx) {
      const array = needArray(args, 0);
      sizeOf(ctx, array.length + args.length - 1);
      return [...args.slice(1), ...array];
    },
  },
};
