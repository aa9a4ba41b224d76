/**
 * MongoDB query, update, projection and sort semantics for the embedded store, delegated to
 * mingo. mingo errors (unknown operators, mixed projections, …) become `BAD_REQUEST`.
 */
import type * as MingoModule from 'mingo';
import type { Query } from 'mingo';
import type * as MingoUpdaterModule from 'mingo/updater';
import { MingoError, isEqual, setValue } from 'mingo/util';
import { isPlainObject, onFirstUse } from '@nap/util';
import type { Doc, Filter, Projection, SortSpec, Update } from '../../types';
import { cloneValue } from '../clone';
import { badRequest } from '../errors';
import { isRegExp } from '../values';
import { applySimpleUpdate, simpleMatcher, simpleProjection } from './simple-semantics';

type AnyRecord = Record<string, unknown>;

// mingo (its query, expression and pipeline operators: ~300 modules, a fifth of the time a platform
// takes to load) decides only what the simple paths cannot (simple-semantics.ts): loaded on first use
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (onFirstUse)
const mingo = onFirstUse(() => require('mingo') as typeof MingoModule);
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (onFirstUse)
const mingoUpdater = onFirstUse(() => require('mingo/updater') as typeof MingoUpdaterModule);

function translate(e: unknown, what: string): never {
  // mingo reports bad operators with MingoError, and a bad `$regex` pattern with SyntaxError.
  if (e instanceof MingoError || e instanceof SyntaxError) throw badRequest(`${what}: ${e.message}`, e);
  throw e;
}

/** A compiled filter. */
export type Matcher = (doc: Doc) => boolean;

export function compileFilter(filter: Filter | undefined): Matcher {
  if (filter === undefined || filter === null) return () => true;
  if (!isPlainObject(filter)) throw badRequest('A filter must be an object');
  const keys = Object.keys(filter);
  if (keys.length === 0) return () => true;
  // `{ _id: '<id>' }`, the commonest filter: ids are strings, so equality is the whole semantics
  if (keys.length === 1 && typeof filter._id === 'string') {
    const id = filter._id;
    return (doc) => doc._id === id;
  }
  const equalities = simpleEqualities(filter, keys);
  if (equalities !== undefined) return (doc) => equalities.every(([key, value]) => matchesScalar(doc[key], value));
  const simple = simpleMatcher(filter);
  if (simple !== undefined) {
    // mingo only for a document the simple matcher cannot decide (an array on a path)
    let query: Query | undefined;
    return (doc) => {
      const decided = simple(doc);
      if (decided !== undefined) return decided;
      try {
        query ??= new (mingo().Query)(filter);
        return query.test(doc);
      } catch (e) {
        return translate(e, 'Invalid filter');
      }
    };
  }
  try {
    const query = new (mingo().Query)(filter);
    return (doc) => {
      try {
        return query.test(doc);
      } catch (e) {
        return translate(e, 'Invalid filter');
      }
    };
  } catch (e) {
    return translate(e, 'Invalid filter');
  }
}

type Scalar = string | number | boolean;

/**
 * `{ field: scalar, … }` on top-level fields (the shape of most filters: `{ _id, status: 'running' }`)
 * as pairs, or `undefined` for anything else; such filters are matched without building a mingo
 * query, which costs more than the rest of a small write.
 */
function simpleEqualities(filter: Filter, keys: string[]): [string, Scalar][] | undefined {
  const out: [string, Scalar][] = [];
  for (const key of keys) {
    if (key.startsWith('$') || key.includes('.')) return undefined;
    const value = filter[key];
    if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)))
      out.push([key, value]);
    else return undefined;
  }
  return out;
}

/** MongoDB equality of a field with a scalar: the value itself, or an array that holds it. */
function matchesScalar(field: unknown, value: Scalar): boolean {
  if (field === value) return true;
  return Array.isArray(field) && field.some((item) => item === value);
}

export function validateSort(sort: SortSpec | undefined): void {
  if (sort === undefined) return;
  if (!isPlainObject(sort)) throw badRequest('A sort must be an object of field → 1 or -1');
  for (const [field, direction] of Object.entries(sort)) {
    if (direction !== 1 && direction !== -1) throw badRequest(`Sort field "${field}" has direction ${String(direction)}; use 1 or -1`);
  }
}

/** Stable sort with MongoDB ordering as mingo implements it. */
export function sortDocs<T extends Doc>(docs: T[], sort: SortSpec | undefined): T[] {
  if (sort === undefined || Object.keys(sort).length === 0 || docs.length < 2) return docs;
  try {
    // mingo's cursor answers the documents it was given, reordered
    return mingo().find(docs, {}).sort(sort).all() as T[];
  } catch (e) {
    return translate(e, 'Invalid sort');
  }
}

export function projectDocs(docs: Doc[], projection: Projection | undefined): Doc[] {
  if (projection === undefined || Object.keys(projection).length === 0 || docs.length === 0) return docs;
  const simple = simpleProjection(projection);
  if (simple !== undefined) return docs.map(simple);
  try {
    return mingo().find(docs, {}, projection).all() as Doc[];
  } catch (e) {
    return translate(e, 'Invalid projection');
  }
}

const KNOWN_UPDATE_OPERATORS = new Set([
  '$set',
  '$unset',
  '$inc',
  '$mul',
  '$min',
  '$max',
  '$rename',
  '$push',
  '$pull',
  '$pullAll',
  '$addToSet',
  '$pop',
  '$currentDate',
  '$bit',
  '$setOnInsert',
]);

/** Throws `BAD_REQUEST` unless `update` is a non-empty document of update operators. */
export function validateUpdate(update: Update): void {
  if (!isPlainObject(update)) throw badRequest('An update must be an object of update operators such as $set');
  const keys = Object.keys(update);
  if (keys.length === 0) throw badRequest('An update must hold at least one update operator such as $set');
  for (const key of keys) {
    if (!KNOWN_UPDATE_OPERATORS.has(key)) {
      throw badRequest(
        key.startsWith('$')
          ? `Unknown update operator "${key}"`
          : `An update must hold only update operators; found the field "${key}" (use replaceOne to replace a document)`,
      );
    }
    if (!isPlainObject(update[key])) throw badRequest(`Update operator "${key}" needs an object of field paths`);
  }
}

/** Throws `BAD_REQUEST` for a replacement that holds update operators. */
export function validateReplacement(doc: AnyRecord): void {
  if (!isPlainObject(doc)) throw badRequest('A replacement document must be an object');
  for (const key of Object.keys(doc)) {
    if (key.startsWith('$')) throw badRequest(`A replacement document must not hold update operators; found "${key}"`);
  }
}

/** The value at a dotted path when every step is a plain object; `undefined` otherwise. */
function resolveThroughObjects(doc: AnyRecord, path: string): unknown {
  let current: unknown = doc;
  for (const segment of path.split('.')) {
    if (!isPlainObject(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

function checkOperandTypes(doc: Doc, modifier: AnyRecord): void {
  const numeric = ['$inc', '$mul'];
  const arrays = ['$push', '$addToSet', '$pull', '$pullAll', '$pop'];
  for (const op of [...numeric, ...arrays]) {
    const fields = modifier[op];
    if (!isPlainObject(fields)) continue;
    for (const [path, operand] of Object.entries(fields)) {
      if (numeric.includes(op) && typeof operand !== 'number') {
        throw badRequest(`${op} needs a number for "${path}"; got ${JSON.stringify(operand) ?? String(operand)}`);
      }
      const current = resolveThroughObjects(doc, path);
      // a missing field is made; null is a value of the wrong type, which MongoDB refuses (mingo would skip it)
      if (current === undefined) continue;
      const found = current === null ? 'null' : typeof current;
      if (numeric.includes(op) && typeof current !== 'number') {
        throw badRequest(`Cannot apply ${op} to the non-numeric field "${path}" (it holds ${found})`);
      }
      if (arrays.includes(op) && !Array.isArray(current)) {
        throw badRequest(`Cannot apply ${op} to the non-array field "${path}" (it holds ${found})`);
      }
    }
  }
}

/**
 * Applies update operators to `doc` in place. `$setOnInsert` applies only when `inserting`.
 * Returns true when the document changed.
 */
export function applyUpdate(doc: Doc, update: Update, filter: Filter, inserting: boolean): boolean {
  if (!inserting) {
    const fast = applySimpleUpdate(doc, update);
    if (fast !== undefined) return fast;
  }
  const modifier: AnyRecord = { ...update };
  const onInsert = modifier.$setOnInsert;
  delete modifier.$setOnInsert;
  if (inserting && isPlainObject(onInsert)) {
    modifier.$set = { ...(isPlainObject(modifier.$set) ? modifier.$set : {}), ...onInsert };
  }
  if (Object.keys(modifier).length === 0) return false;
  // an inserted document (the filter's equalities): the simple shapes as for any other
  if (inserting) {
    const fast = applySimpleUpdate(doc, modifier);
    if (fast !== undefined) return fast;
  }
  checkOperandTypes(doc, modifier);
  try {
    // The filter is passed as the condition so positional `$` paths resolve; an inserted document
    // need not match the filter, so it gets none.
    const changed = mingoUpdater().update(doc, modifier, undefined, inserting ? undefined : filter, { cloneMode: 'deep' });
    return changed.length > 0;
  } catch (e) {
    return translate(e, 'Invalid update');
  }
}

function seed(filter: AnyRecord, out: AnyRecord): void {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const clause of value) if (isPlainObject(clause)) seed(clause, out);
      continue;
    }
    if (key.startsWith('$')) continue;
    if (isPlainObject(value)) {
      const ops = Object.keys(value);
      if (ops.length > 0 && ops.every((op) => op.startsWith('$'))) {
        if ('$eq' in value) setValue(out, key, cloneValue(value.$eq));
        continue;
      }
    }
    if (isRegExp(value)) continue;
    setValue(out, key, cloneValue(value));
  }
}

/** The document an upsert starts from: the filter's equality fields, as MongoDB seeds it. */
export function seedFromFilter(filter: Filter): Doc {
  const out: AnyRecord = {};
  if (isPlainObject(filter)) seed(filter, out);
  return out as Doc;
}

/** Value equality for unique keys: MongoDB treats a missing field as null. */
export function sameKeyValue(a: unknown, b: unknown): boolean {
  if ((a === undefined || a === null) && (b === undefined || b === null)) return true;
  return isEqual(a, b);
}
