/* eslint-disable eqeqeq -- Equality.equality and Equality.inequality are JavaScript's == and != by definition */
import { isDeepStrictEqual } from 'node:util';
import { runJsonQuery } from '@nap/json-query';
import { errorMessage } from '@nap/util';
import { MethodError } from '../errors';
import { typeName } from '../values';
import type { Library, MethodDef } from './types';
import { integer, needDate, needText } from './types';

/**
 * The operator and value libraries: Math, Number, Boolean, Logical, Equality, Relational,
 * Conditional, JSON, Date, RegExp, Set, Null and WorkFlowEngine. Each is the JavaScript operator or
 * function of the same name on its arguments, with JavaScript's conversions. Dates are read in UTC,
 * so a run answers the same on every server.
 */

function fn(params: readonly string[], run: (args: unknown[]) => unknown): MethodDef {
  return { params, run };
}

const a = (args: unknown[]): unknown => args[0];
const b = (args: unknown[]): unknown => args[1];
/** JavaScript's ToPrimitive for the values a run holds: objects become their text, Dates their string. */
function primitive(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  return value instanceof Date ? value.toString() : String(value);
}

/** JavaScript's `x + y`: text when either side is text after ToPrimitive, else numbers (`"1" + 2` is "12"). */
function plus(x: unknown, y: unknown): unknown {
  const p = primitive(x);
  const q = primitive(y);
  return typeof p === 'string' || typeof q === 'string' ? String(p) + String(q) : Number(p) + Number(q);
}

/** JavaScript's relational comparison: text against text by code units, otherwise as numbers. */
function compare(x: unknown, y: unknown, test: (order: number) => boolean): boolean {
  const p = primitive(x);
  const q = primitive(y);
  if (typeof p === 'string' && typeof q === 'string') return test(p < q ? -1 : p > q ? 1 : 0);
  const m = Number(p);
  const n = Number(q);
  if (Number.isNaN(m) || Number.isNaN(n)) return false;
  return test(m < n ? -1 : m > n ? 1 : 0);
}

/** A one-argument function of JavaScript's Math on the argument as a number. */
function math1(f: (x: number) => number): MethodDef {
  return fn(['x'], (x) => f(Number(a(x))));
}

/** A two-argument function of JavaScript's Math. */
function math2(params: [string, string], f: (x: number, y: number) => number): MethodDef {
  return fn(params, (x) => f(Number(a(x)), Number(b(x))));
}

export const MATH: Library = {
  abs: math1(Math.abs),
  acos: math1(Math.acos),
  acosh: math1(Math.acosh),
  add: fn(['x', 'y'], (x) => plus(a(x), b(x))),
  asin: math1(Math.asin),
  asinh: math1(Math.asinh),
  atan: math1(Math.atan),
  atan2: math2(['y', 'x'], Math.atan2),
  atanh: math1(Math.atanh),
  cbrt: math1(Math.cbrt),
  ceil: math1(Math.ceil),
  clz32: math1(Math.clz32),
  cos: math1(Math.cos),
  cosh: math1(Math.cosh),
  divide: fn(['x', 'y'], (x) => Number(primitive(a(x))) / Number(primitive(b(x)))),
  exp: math1(Math.exp),
  exponentiation: fn(['base', 'exponent'], (x) => Number(primitive(a(x))) ** Number(primitive(b(x)))),
  expm1: math1(Math.expm1),
  floor: math1(Math.floor),
  fround: math1(Math.fround),
  hypot: fn(['...values'], (x) => Math.hypot(...x.map(Number))),
  imul: math2(['a', 'b'], Math.imul),
  log: math1(Math.log),
  log10: math1(Math.log10),
  log1p: math1(Math.log1p),
  log2: math1(Math.log2),
  max: fn(['...values'], (x) => Math.max(...x.map(Number))),
  min: fn(['...values'], (x) => Math.min(...x.map(Number))),
  multiply: fn(['x', 'y'], (x) => Number(primitive(a(x))) * Number(primitive(b(x)))),
  pow: math2(['base', 'exponent'], Math.pow),
  random: fn([], () => Math.random()),
  remainder: fn(['x', 'y'], (x) => Number(primitive(a(x))) % Number(primitive(b(x)))),
  round: math1(Math.round),
  sign: math1(Math.sign),
  sin: math1(Math.sin),
  sinh: math1(Math.sinh),
  sqrt: math1(Math.sqrt),
  subtract: fn(['x', 'y'], (x) => Number(primitive(a(x))) - Number(primitive(b(x)))),
  tan: math1(Math.tan),
  tanh: math1(Math.tanh),
  trunc: math1(Math.trunc),
};

/**
 * `valueOf` of the wrapper classes: JavaScript's `value.valueOf()` on the value given, so a date
 * answers its time and every other value itself; null and undefined have none.
 */
const VALUE_OF: MethodDef = fn(['value'], (x) => {
  const value = a(x);
  if (value === null || value === undefined) throw new MethodError(`argument 1 (value) has no value of its own: ${typeName(value)}`);
  return value instanceof Date ? value.getTime() : value;
});

/** An optional digits argument: undefined where it is left empty, as JavaScript's own default. */
function digits(args: unknown[], index: number): number | undefined {
  return args[index] === undefined ? undefined : integer(args, index, 0);
}

export const NUMBER: Library = {
  isFinite: fn(['value'], (x) => Number.isFinite(a(x))),
  isInteger: fn(['value'], (x) => Number.isInteger(a(x))),
  isNaN: fn(['value'], (x) => Number.isNaN(a(x))),
  isSafeInteger: fn(['value'], (x) => Number.isSafeInteger(a(x))),
  parseFloat: fn(['string'], (x) => Number.parseFloat(String(a(x)))),
  parseInt: fn(['string', 'radix'], (x) => Number.parseInt(String(a(x)), x[1] === undefined ? undefined : Number(x[1]))),
  toExponential: fn(['number', 'fractionDigits'], (x) => needNumber(x, 0).toExponential(digits(x, 1))),
  toFixed: fn(['number', 'digits'], (x) => needNumber(x, 0).toFixed(integer(x, 1, 0))),
  toPrecision: fn(['number', 'precision'], (x) => needNumber(x, 0).toPrecision(digits(x, 1))),
  // the original calls value.toString(radix): text stays text, other values are written as JavaScript writes them
  toString: fn(['number', 'radix'], (x) =>
    typeof a(x) === 'number' ? needNumber(x, 0).toString(x[1] === undefined ? undefined : integer(x, 1, 10)) : String(needDefined(x)),
  ),
  valueOf: VALUE_OF,
};

function needDefined(args: unknown[]): unknown {
  if (args[0] === undefined || args[0] === null) throw new MethodError(`argument 1 (number) must be a number, not ${typeName(args[0])}`);
  return args[0];
}

function needNumber(args: unknown[], index: number): number {
  const value = args[index];
  if (typeof value !== 'number') throw new MethodError(`argument ${index + 1} (number) must be a number, not ${typeName(value)}`);
  return value;
}

export const BOOLEAN: Library = {
  toString: fn(['boolean'], (x) => String(Boolean(a(x)))),
  valueOf: VALUE_OF,
};

export const LOGICAL: Library = {
  and: fn(['x', 'y'], (x) => a(x) && b(x)),
  not: fn(['x'], (x) => !a(x)),
  nullish: fn(['x', 'y'], (x) => a(x) ?? b(x)),
  or: fn(['x', 'y'], (x) => a(x) || b(x)),
};

export const EQUALITY: Library = {
  deepEquals: fn(['x', 'y'], (x) => isDeepStrictEqual(a(x), b(x))),
  equality: fn(['x', 'y'], (x) => a(x) == b(x)),
  identity: fn(['x', 'y'], (x) => a(x) === b(x)),
  inequality: fn(['x', 'y'], (x) => a(x) != b(x)),
  nonidentity: fn(['x', 'y'], (x) => a(x) !== b(x)),
};

export const RELATIONAL: Library = {
  greaterThan: fn(['x', 'y'], (x) => compare(a(x), b(x), (o) => o > 0)),
  greaterThanOrEqual: fn(['x', 'y'], (x) => compare(a(x), b(x), (o) => o >= 0)),
  lessThan: fn(['x', 'y'], (x) => compare(a(x), b(x), (o) => o < 0)),
  lessThanOrEqual: fn(['x', 'y'], (x) => compare(a(x), b(x), (o) => o <= 0)),
};

export const CONDITIONAL: Library = {
  ternary: fn(['condition', 'ifTrue', 'ifFalse'], (x) => (a(x) ? x[1] : x[2])),
};

export const JSON_LIBRARY: Library = {
  parse: fn(['text', 'reviver'], (x) => {
    if (x[1] !== undefined) throw new MethodError('argument 2 (reviver) is not supported; leave it empty');
    try {
      return JSON.parse(needText(x, 0, 'text')) as unknown;
    } catch (err) {
      throw new MethodError(`argument 1 (text) is not JSON: ${errorMessage(err)}`);
    }
  }),
  stringify: fn(['value', 'replacer', 'space'], (x) => {
    const replacer = x[1];
    if (replacer !== undefined && !Array.isArray(replacer))
      throw new MethodError('argument 2 (replacer) must be an array of member names or empty');
    const space = x[2];
    return JSON.stringify(
      a(x),
      replacer === undefined ? undefined : replacer.map(String),
      typeof space === 'number' || typeof space === 'string' ? space : undefined,
    );
  }),
  'type of': fn(['value'], (x) => typeof a(x)),
};

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function dateFn(run: (d: Date) => unknown): MethodDef {
  return fn(['date'], (x) => run(needDate(x, 0)));
}

/** The arguments without the empty ones at the end, as JavaScript counts the arguments of a call. */
function given(args: unknown[]): unknown[] {
  let n = args.length;
  while (n > 0 && args[n - 1] === undefined) n -= 1;
  return args.slice(0, n);
}

export const DATE: Library = {
  // Date.UTC(year, monthIndex = 0, day = 1, hours, minutes, seconds, ms): NaN without a year, as JavaScript
  UTC: fn(['year', 'monthIndex', 'day', 'hours', 'minutes', 'seconds', 'milliseconds'], (x) => {
    const [year, ...rest] = given(x).map(Number);
    return year === undefined ? Number.NaN : Date.UTC(year, ...rest);
  }),
  getDate: dateFn((d) => d.getUTCDate()),
  getDay: dateFn((d) => d.getUTCDay()),
  getFullYear: dateFn((d) => d.getUTCFullYear()),
  getHours: dateFn((d) => d.getUTCHours()),
  getMilliseconds: dateFn((d) => d.getUTCMilliseconds()),
  getMinutes: dateFn((d) => d.getUTCMinutes()),
  getMonth: dateFn((d) => d.getUTCMonth()),
  getSeconds: dateFn((d) => d.getUTCSeconds()),
  getTime: dateFn((d) => d.getTime()),
  // dates are read in UTC (see above), so the offset from UTC is 0
  getTimezoneOffset: dateFn(() => 0),
  getUTCDate: dateFn((d) => d.getUTCDate()),
  getUTCDay: dateFn((d) => d.getUTCDay()),
  getUTCFullYear: dateFn((d) => d.getUTCFullYear()),
  getUTCHours: dateFn((d) => d.getUTCHours()),
  getUTCMilliseconds: dateFn((d) => d.getUTCMilliseconds()),
  getUTCMinutes: dateFn((d) => d.getUTCMinutes()),
  getUTCMonth: dateFn((d) => d.getUTCMonth()),
  getUTCSeconds: dateFn((d) => d.getUTCSeconds()),
  now: fn([], () => Date.now()),
  parse: fn(['dateString'], (x) => Date.parse(String(a(x)))),
  toDateString: dateFn(
    (d) =>
      `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, '0')} ${String(d.getUTCFullYear()).padStart(4, '0')}`,
  ),
  toISOString: dateFn((d) => d.toISOString()),
  toJSON: dateFn((d) => d.toJSON()),
  toUTCString: dateFn((d) => d.toUTCString()),
  valueOf: dateFn((d) => d.getTime()),
};

export const REGEXP: Library = {
  exec: { params: ['regexp', 'string'], run: (x, ctx) => ctx.regex({ op: 'exec', ...regexpOf(x[0]), input: String(x[1]) }) },
  test: { params: ['regexp', 'string'], run: (x, ctx) => ctx.regex({ op: 'test', ...regexpOf(x[0]), input: String(x[1]) }) },
};

/** A RegExp value, or text taken as a pattern (the static pattern of a `RegExp.test` step). */
function regexpOf(value: unknown): { source: string; flags: string } {
  if (value instanceof RegExp) return { source: value.source, flags: value.flags.replace(/[gy]/g, '') };
  if (typeof value === 'string') return { source: value, flags: '' };
  throw new MethodError(`argument 1 (regexp) must be a regular expression, not ${typeName(value)}`);
}

function needSet(args: unknown[]): Set<unknown> {
  const value = args[0];
  if (!(value instanceof Set)) throw new MethodError(`argument 1 (set) must be a Set, not ${typeName(value)}`);
  return value;
}

export const SET: Library = {
  add: fn(['set', 'value'], (x) => new Set(needSet(x)).add(x[1])),
  delete: fn(['set', 'value'], (x) => {
    const copy = new Set(needSet(x));
    copy.delete(x[1]);
    return copy;
  }),
  has: fn(['set', 'value'], (x) => needSet(x).has(x[1])),
  size: fn(['set'], (x) => needSet(x).size),
  values: fn(['set'], (x) => [...needSet(x)]),
};

export const NULL: Library = {
  isNull: fn(['value'], (x) => a(x) === null),
  isNullOrUndefined: fn(['value'], (x) => a(x) === null || a(x) === undefined),
  isUndefined: fn(['value'], (x) => a(x) === undefined),
};

/** `WorkFlowEngine.query(pass_on_null, query, obj)`: the json-query of the workflow `query` task; null when nothing is found. */
export const WORKFLOW_ENGINE: Library = {
  query: fn(['pass_on_null', 'query', 'obj'], (x) => {
    const query = x[1] === undefined || x[1] === null ? '' : String(x[1]);
    let obj = x[2];
    if (typeof obj === 'string') {
      try {
        obj = JSON.parse(obj) as unknown;
      } catch {
        // text that is not JSON is queried as text
      }
    }
    try {
      return runJsonQuery(obj, query) ?? null;
    } catch (err) {
      throw new MethodError(errorMessage(err));
    }
  }),
};
