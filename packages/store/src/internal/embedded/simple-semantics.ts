/**
 * The shapes of filters, updates and projections that the platform sends nearly always, applied
 * without mingo: building a mingo query or update costs more than the rest of a small write. Each
 * function answers `undefined` for anything outside its shape, and the caller takes mingo's general
 * path; a filter whose document holds an array along a path (where MongoDB reaches into elements)
 * is left to mingo document by document. `simple-semantics.test.ts` checks each against mingo.
 */
import { isEqual } from 'mingo/util';
import { isPlainObject } from '@nap/util';
import type { Doc, Filter, Projection, Update } from '../../types';
import { cloneValue } from '../clone';

type AnyRecord = Record<string, unknown>;
type Scalar = string | number | boolean;

/** A named path: no `$`, no array index, no empty or prototype segment. */
function segmentsOf(path: string): string[] | undefined {
  if (path === '') return undefined;
  const segments = path.split('.');
  for (const s of segments) if (s === '' || s.startsWith('$') || /^\d+$/.test(s) || s === '__proto__') return undefined;
  return segments;
}

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/** What a path resolves to through plain objects; `ARRAY` when an array lies on the way (mingo decides). */
const ARRAY = Symbol('array on the path');

function resolve(doc: AnyRecord, segments: string[]): unknown {
  let current: unknown = doc;
  for (const segment of segments) {
    if (Array.isArray(current)) return ARRAY;
    if (!isPlainObject(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

/** A condition on one resolved value: true, false, or undefined when mingo must decide. */
type Test = (value: unknown) => boolean | undefined;

function equalsTest(value: Scalar): Test {
  return (field) => {
    if (field === value) return true;
    if (Array.isArray(field)) return field.some((item) => item === value);
    return false;
  };
}

/** Equality with null: a missing or null value; an array or an object is mingo's to decide. */
const NULL_TEST: Test = (field) => {
  if (field === undefined || field === null) return true;
  return Array.isArray(field) || isPlainObject(field) ? undefined : false;
};

function inTest(list: readonly unknown[]): Test | undefined {
  if (!list.every((v) => v === null || isScalar(v))) return undefined;
  const withNull = list.includes(null);
  return (field) => {
    if (field === undefined || field === null) return withNull;
    if (Array.isArray(field) || isPlainObject(field)) return undefined;
    return list.some((v) => v === field);
  };
}

/**
 * `$gt`, `$gte`, `$lt`, `$lte` against a finite number or a string: a value of the same type is
 * compared, a missing or null one never matches; any other value (an array, an object, a value of
 * another type, which MongoDB orders by type) is mingo's to decide.
 */
function rangeTest(op: string, operand: unknown): Test | undefined {
  if (!(typeof operand === 'string' || (typeof operand === 'number' && Number.isFinite(operand)))) return undefined;
  const type = typeof operand;
  const holds =
    op === '$gt'
      ? (v: string | number) => v > operand
      : op === '$gte'
        ? (v: string | number) => v >= operand
        : op === '$lt'
          ? (v: string | number) => v < operand
          : (v: string | number) => v <= operand;
  return (field) => {
    if (field === undefined || field === null) return false;
    if (typeof field !== type || (type === 'number' && !Number.isFinite(field))) return undefined;
    return holds(field as string | number);
  };
}

function operatorTest(op: string, operand: unknown): Test | undefined {
  switch (op) {
    case '$eq':
      return isScalar(operand) ? equalsTest(operand) : operand === null ? NULL_TEST : undefined;
    case '$ne': {
      const eq = isScalar(operand) ? equalsTest(operand) : operand === null ? NULL_TEST : undefined;
      if (eq === undefined) return undefined;
      return (field) => {
        const equal = eq(field);
        return equal === undefined ? undefined : !equal;
      };
    }
    case '$in':
      return Array.isArray(operand) ? inTest(operand) : undefined;
    case '$nin': {
      const test = Array.isArray(operand) ? inTest(operand) : undefined;
      if (test === undefined) return undefined;
      return (field) => {
        const inside = test(field);
        return inside === undefined ? undefined : !inside;
      };
    }
    case '$exists':
      return typeof operand === 'boolean' ? (field) => (field !== undefined) === operand : undefined;
    case '$size':
      return typeof operand === 'number' && Number.isInteger(operand) && operand >= 0
        ? (field) => Array.isArray(field) && field.length === operand
        : undefined;
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return rangeTest(op, operand);
    default:
      return undefined;
  }
}

/** A filter's verdict on a document: true, false, or undefined when mingo must decide. */
type Verdict = (doc: Doc) => boolean | undefined;

/**
 * A matcher for filters of named paths compared with scalars by equality (null too), `$eq`, `$ne`,
 * `$in`, `$nin` (scalars and null), `$exists`, `$size`, `$gt`/`$gte`/`$lt`/`$lte` (a number or a
 * string), and `$and`/`$or` of such filters; undefined for any other filter. The matcher answers
 * undefined for a document it cannot decide (an array on a path, a value compared with null that is
 * an array or an object, a range against a value of another type), which the caller then gives to
 * mingo.
 */
export function simpleMatcher(filter: Filter): Verdict | undefined {
  return compileSimple(filter, 0);
}

/**
 * `$and` (`decisive` false) or `$or` (`decisive` true) of verdicts: `decisive` as soon as one part
 * says it, undecided when none does and one is undecided, else the other answer.
 */
function combined(parts: Verdict[], decisive: boolean): Verdict {
  return (doc) => {
    let undecided = false;
    for (const part of parts) {
      const ok = part(doc);
      if (ok === decisive) return decisive;
      if (ok === undefined) undecided = true;
    }
    return undecided ? undefined : !decisive;
  };
}

/** The verdict of one filter object, or undefined when some part of it is not of the simple shape. */
function compileSimple(filter: Filter, depth: number): Verdict | undefined {
  const parts: Verdict[] = [];
  for (const [path, condition] of Object.entries(filter)) {
    if (path === '$and' || path === '$or') {
      if (!Array.isArray(condition) || condition.length === 0 || depth > 4) return undefined;
      const branches: Verdict[] = [];
      for (const clause of condition as unknown[]) {
        const branch = isPlainObject(clause) ? compileSimple(clause, depth + 1) : undefined;
        if (branch === undefined) return undefined;
        branches.push(branch);
      }
      parts.push(combined(branches, path === '$or'));
      continue;
    }
    const segments = segmentsOf(path);
    if (segments === undefined) return undefined;
    const tests: Test[] = [];
    if (isScalar(condition)) tests.push(equalsTest(condition));
    else if (condition === null) tests.push(NULL_TEST);
    else if (isPlainObject(condition)) {
      const ops = Object.entries(condition);
      if (ops.length === 0) return undefined;
      for (const [op, operand] of ops) {
        const test = operatorTest(op, operand);
        if (test === undefined) return undefined;
        tests.push(test);
      }
    } else return undefined;
    parts.push((doc) => {
      const field = resolve(doc, segments);
      if (field === ARRAY) return undefined;
      let undecided = false;
      for (const test of tests) {
        const ok = test(field);
        if (ok === false) return false;
        if (ok === undefined) undecided = true;
      }
      return undecided ? undefined : true;
    });
  }
  return parts.length === 1 ? parts[0] : combined(parts, false);
}

/**
 * `$set`, `$unset`, `$push` (a value, or `$each` alone), `$max` and `$min` (of numbers, onto a missing
 * or numeric value) of named paths through plain objects,
 * applied to `doc` in place. Answers whether the document changed, or `undefined` (nothing done)
 * when the update needs the general path: other operators, paths that overlap, a path through a
 * value that is not an object, `$push` to a value that is not an array.
 */
export function applySimpleUpdate(doc: Doc, update: Update): boolean | undefined {
  const sets = update.$set;
  const unsets = update.$unset;
  const pushes = update.$push;
  for (const key of Object.keys(update))
    if (key !== '$set' && key !== '$unset' && key !== '$push' && key !== '$max' && key !== '$min') return undefined;
  if ((sets !== undefined && !isPlainObject(sets)) || (unsets !== undefined && !isPlainObject(unsets))) return undefined;
  if (pushes !== undefined && !isPlainObject(pushes)) return undefined;
  // `$max`/`$min` of finite numbers (onto a missing or numeric value, checked below)
  const bounds: [string, number, '$max' | '$min'][] = [];
  for (const op of ['$max', '$min'] as const) {
    const operand = update[op];
    if (operand === undefined) continue;
    if (!isPlainObject(operand)) return undefined;
    for (const [path, value] of Object.entries(operand)) {
      if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
      bounds.push([path, value, op]);
    }
  }
  const setEntries = Object.entries(sets ?? {});
  const unsetPaths = Object.keys(unsets ?? {});
  const pushEntries: [string, unknown[]][] = [];
  for (const [path, value] of Object.entries(pushes ?? {})) {
    if (isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$'))) {
      // `$each` alone; `$slice`, `$sort`, `$position` take the general path
      if (Object.keys(value).length !== 1 || !Array.isArray(value.$each)) return undefined;
      pushEntries.push([path, value.$each as unknown[]]);
    } else pushEntries.push([path, [value]]);
  }
  const paths = [...setEntries.map(([p]) => p), ...unsetPaths, ...pushEntries.map(([p]) => p), ...bounds.map(([p]) => p)];
  const split = new Map<string, string[]>();
  for (const path of paths) {
    if (path === '_id' || path.startsWith('_id.')) return undefined;
    const segments = segmentsOf(path);
    if (segments === undefined) return undefined;
    split.set(path, segments);
  }
  const sorted = [...paths].sort();
  for (let i = 1; i < sorted.length; i++)
    if ((sorted[i] as string).startsWith(`${sorted[i - 1] as string}.`) || sorted[i] === sorted[i - 1]) return undefined;
  // every step before the last must be a plain object or missing; a push target an array or missing
  for (const path of paths) {
    const segments = split.get(path) as string[];
    let current: unknown = doc;
    for (let i = 0; i < segments.length - 1; i++) {
      current = isPlainObject(current) ? current[segments[i] as string] : undefined;
      if (current === undefined) break;
      if (!isPlainObject(current)) return undefined;
    }
  }
  for (const [path] of pushEntries) {
    const target = resolve(doc, split.get(path) as string[]);
    if (target !== undefined && target !== ARRAY && !Array.isArray(target)) return undefined;
    if (target === ARRAY) return undefined;
  }
  // a bound compares numbers only (MongoDB orders other values by type)
  for (const [path] of bounds) {
    const target = resolve(doc, split.get(path) as string[]);
    if (target !== undefined && (typeof target !== 'number' || !Number.isFinite(target))) return undefined;
  }
  const parentOf = (segments: string[]): AnyRecord => {
    let parent: AnyRecord = doc;
    for (const segment of segments.slice(0, -1)) {
      if (!isPlainObject(parent[segment])) parent[segment] = {};
      parent = parent[segment] as AnyRecord;
    }
    return parent;
  };
  let changed = false;
  for (const [path, value] of setEntries) {
    if (value === undefined) continue;
    const segments = split.get(path) as string[];
    const parent = parentOf(segments);
    const last = segments[segments.length - 1] as string;
    if (Object.hasOwn(parent, last) && isEqual(parent[last], value)) continue;
    parent[last] = cloneValue(value);
    changed = true;
  }
  for (const path of unsetPaths) {
    const segments = split.get(path) as string[];
    let parent: unknown = doc;
    for (const segment of segments.slice(0, -1)) parent = isPlainObject(parent) ? parent[segment] : undefined;
    const last = segments[segments.length - 1] as string;
    if (isPlainObject(parent) && Object.hasOwn(parent, last)) {
      delete parent[last];
      changed = true;
    }
  }
  for (const [path, value, op] of bounds) {
    const segments = split.get(path) as string[];
    const parent = parentOf(segments);
    const last = segments[segments.length - 1] as string;
    const current = Object.hasOwn(parent, last) ? (parent[last] as number) : undefined;
    if (current !== undefined && (op === '$max' ? value <= current : value >= current)) continue;
    parent[last] = value;
    changed = true;
  }
  for (const [path, values] of pushEntries) {
    const segments = split.get(path) as string[];
    const parent = parentOf(segments);
    const last = segments[segments.length - 1] as string;
    const target = parent[last];
    if (Array.isArray(target)) {
      for (const value of values) target.push(value === undefined ? null : cloneValue(value));
      if (values.length > 0) changed = true;
    } else {
      parent[last] = values.map((value) => (value === undefined ? null : cloneValue(value)));
      changed = true;
    }
  }
  return changed;
}

/**
 * The projection of top-level fields by inclusion (`{ a: 1, b: 1 }`, `_id` kept unless `_id: 0`) or
 * by exclusion (`{ a: 0, b: 0 }`, with `_id: 0` or not) as a function; undefined for any other
 * projection (dotted fields, operators, inclusion and exclusion mixed), which mingo answers. An
 * exclusion was mingo's: building its query cost ~100 µs a read, on every read of an account.
 */
export function simpleProjection(projection: Projection): ((doc: Doc) => Doc) | undefined {
  const included: string[] = [];
  const excluded: string[] = [];
  let keepId = true;
  let idIncluded = false;
  for (const [field, how] of Object.entries(projection) as [string, unknown][]) {
    if (field === '_id') {
      if (how === 0 || how === false) keepId = false;
      else if (how === 1 || how === true) idIncluded = true;
      else return undefined;
      continue;
    }
    if (field === '' || field.includes('.') || field.startsWith('$') || field === '__proto__') return undefined;
    if (how === 1 || how === true) included.push(field);
    else if (how === 0 || how === false) excluded.push(field);
    else return undefined;
  }
  // inclusion and exclusion together (`_id: 1` too) are mingo's to refuse
  if (excluded.length > 0 && (included.length > 0 || idIncluded)) return undefined;
  if (included.length === 0 && (excluded.length > 0 || !keepId)) {
    const dropped = new Set(excluded);
    if (!keepId) dropped.add('_id');
    return (doc) => {
      const out: AnyRecord = {};
      for (const field of Object.keys(doc)) if (!dropped.has(field) && doc[field] !== undefined) out[field] = doc[field];
      return out as Doc;
    };
  }
  return (doc) => {
    const out: AnyRecord = {};
    if (keepId && Object.hasOwn(doc, '_id')) out._id = doc._id;
    for (const field of included) if (Object.hasOwn(doc, field) && doc[field] !== undefined) out[field] = doc[field];
    return out as Doc;
  };
}
