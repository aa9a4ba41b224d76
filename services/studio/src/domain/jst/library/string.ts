import { MethodError } from '../errors';
import type { RegexOp } from '../regex';
import { typeName } from '../values';
import type { CallContext, Library, MethodDef } from './types';
import { integer, needText } from './types';

/**
 * `String.*`: the string first, as JavaScript's String.prototype methods (a number or boolean first
 * argument is converted; null and undefined are refused). Patterns that are RegExp values, and the
 * text patterns that JavaScript turns into regular expressions (`match`, `search`), run through the
 * run's bounded regular expression runner.
 */

function text(run: (s: string, args: unknown[], ctx: CallContext) => unknown, params: readonly string[]): MethodDef {
  return { params: ['string', ...params], run: (args, ctx) => run(needText(args, 0), args, ctx) };
}

/** A pattern argument as the source and flags of a regular expression. */
function pattern(value: unknown, param: string): { source: string; flags: string } {
  if (value instanceof RegExp) return { source: value.source, flags: value.flags };
  if (typeof value === 'string') return { source: value, flags: '' };
  throw new MethodError(`${param} must be a regular expression or a string, not ${typeName(value)}`);
}

function regexOn(ctx: CallContext, op: RegexOp['op'], value: unknown, input: string, param: string, extra: Partial<RegexOp> = {}): unknown {
  return ctx.regex({ op, ...pattern(value, param), input, ...extra });
}

function grown(ctx: CallContext, s: string): string {
  ctx.grow(s.length);
  return s;
}

function padLength(ctx: CallContext, args: unknown[]): number {
  const length = integer(args, 1, 0);
  ctx.grow(length);
  return length;
}

/** `String.fromCharCode(…codes)`, `String.fromCodePoint(…codes)`: static, every argument a code. */
function fromCodes(make: (...codes: number[]) => string): MethodDef {
  return {
    params: ['...codes'],
    run(args, ctx) {
      ctx.grow(args.length * 2);
      return make(...args.map(Number));
    },
  };
}

export const STRING: Library = {
  at: text((s, a) => s.at(integer(a, 1, 0)), ['index']),
  charAt: text((s, a) => s.charAt(integer(a, 1, 0)), ['index']),
  charCodeAt: text((s, a) => s.charCodeAt(integer(a, 1, 0)), ['index']),
  codePointAt: text((s, a) => s.codePointAt(integer(a, 1, 0)), ['index']),
  concat: text((s, a, ctx) => grown(ctx, s.concat(...a.slice(1).map((v) => String(v)))), ['...strings']),
  fromCharCode: fromCodes((...codes) => String.fromCharCode(...codes)),
  fromCodePoint: fromCodes((...codes) => String.fromCodePoint(...codes)),
  endsWith: text(
    (s, a) => s.endsWith(String(a[1]), a[2] === undefined ? undefined : integer(a, 2, s.length)),
    ['searchString', 'endPosition'],
  ),
  includes: text((s, a) => s.includes(String(a[1]), integer(a, 2, 0)), ['searchString', 'position']),
  indexOf: text((s, a) => s.indexOf(String(a[1]), integer(a, 2, 0)), ['searchString', 'position']),
  lastIndexOf: text(
    (s, a) => s.lastIndexOf(String(a[1]), a[2] === undefined ? undefined : integer(a, 2, Infinity)),
    ['searchString', 'position'],
  ),
  length: text((s) => s.length, []),
  match: text((s, a, ctx) => regexOn(ctx, 'match', a[1], s, 'argument 2 (regexp)'), ['regexp']),
  normalize: text((s, a) => s.normalize(a[1] === undefined ? undefined : String(a[1])), ['form']),
  padEnd: text((s, a, ctx) => s.padEnd(padLength(ctx, a), a[2] === undefined ? undefined : String(a[2])), ['targetLength', 'padString']),
  padStart: text(
    (s, a, ctx) => s.padStart(padLength(ctx, a), a[2] === undefined ? undefined : String(a[2])),
    ['targetLength', 'padString'],
  ),
  repeat: text(
    (s, a, ctx) => {
      const count = integer(a, 1, 0);
      ctx.grow(s.length * count);
      return s.repeat(count);
    },
    ['count'],
  ),
  replace: text(
    (s, a, ctx) =>
      a[1] instanceof RegExp
        ? regexOn(ctx, 'replace', a[1], s, 'argument 2 (pattern)', { replacement: String(a[2]) })
        : grown(ctx, s.replace(String(a[1]), String(a[2]))),
    ['pattern', 'replacement'],
  ),
  replaceAll: text(
    (s, a, ctx) =>
      a[1] instanceof RegExp
        ? regexOn(ctx, 'replaceAll', a[1], s, 'argument 2 (pattern)', { replacement: String(a[2]) })
        : grown(ctx, s.replaceAll(String(a[1]), String(a[2]))),
    ['pattern', 'replacement'],
  ),
  search: text((s, a, ctx) => regexOn(ctx, 'search', a[1], s, 'argument 2 (regexp)'), ['regexp']),
  slice: text((s, a) => s.slice(integer(a, 1, 0), a[2] === undefined ? undefined : integer(a, 2, s.length)), ['start', 'end']),
  split: text(
    (s, a, ctx) => {
      const limit = a[2] === undefined ? undefined : integer(a, 2, 0) >>> 0;
      if (a[1] instanceof RegExp) return regexOn(ctx, 'split', a[1], s, 'argument 2 (separator)', limit === undefined ? {} : { limit });
      ctx.grow(s.length);
      return a[1] === undefined ? [s].slice(0, limit) : s.split(String(a[1]), limit);
    },
    ['separator', 'limit'],
  ),
  startsWith: text((s, a) => s.startsWith(String(a[1]), integer(a, 2, 0)), ['searchString', 'position']),
  substr: text((s, a) => s.substr(integer(a, 1, 0), a[2] === undefined ? undefined : integer(a, 2, 0)), ['start', 'length']),
  substring: text(
    (s, a) => s.substring(integer(a, 1, 0), a[2] === undefined ? undefined : integer(a, 2, s.length)),
    ['indexStart', 'indexEnd'],
  ),
  toLowerCase: text((s) => s.toLowerCase(), []),
  toString: text((s) => s, []),
  toUpperCase: text((s) => s.toUpperCase(), []),
  trim: text((s) => s.trim(), []),
  trimEnd: text((s) => s.trimEnd(), []),
  trimLeft: text((s) => s.trimStart(), []),
  trimRight: text((s) => s.trimEnd(), []),
  trimStart: text((s) => s.trimStart(), []),
  valueOf: text((s) => s, []),
};
