import { isReservedKey } from '@nap/contracts';
import { runJsonQuery } from '@nap/json-query';
import { resolveOperand } from '../references';
import type { SyncBuiltin } from './types';
import { isRecord, setOwn } from '@nap/util';
import { TaskInputError, cloneJson, needString, success, tryJson } from './types';

/** newVariable: `name`, `value` → job variable `name` set; outgoing `value`. */
export const newVariable: SyncBuiltin = ({ incoming }) => {
  const name = needString(incoming.name, 'name');
  if (name.trim() === '') throw new TaskInputError('Incoming "name" of newVariable must not be empty');
  return success({ value: incoming.value }, { [name]: incoming.value });
};

/** query: `query` over `obj` → `return_data`; `failure` when nothing is found unless `pass_on_null`. */
export const query: SyncBuiltin = ({ incoming }) => {
  const text = incoming.query === undefined || incoming.query === null ? '' : needString(incoming.query, 'query');
  const obj = typeof incoming.obj === 'string' ? tryJson(incoming.obj) : incoming.obj;
  let found: unknown;
  try {
    found = runJsonQuery(obj, text);
  } catch (err) {
    throw new TaskInputError(err instanceof Error ? err.message : String(err));
  }
  const passOnNull = incoming.pass_on_null === true || incoming.pass_on_null === 'true';
  if ((found === undefined || found === null) && !passOnNull) return { finishState: 'failure', outgoing: { return_data: null } };
  return success({ return_data: found ?? null });
};

function mergeItems(items: unknown, scope: Parameters<SyncBuiltin>[0]['scope']): Record<string, unknown> {
  if (!Array.isArray(items)) throw new TaskInputError('Incoming "data_to_merge" must be an array of { key, value }');
  const out: Record<string, unknown> = {};
  for (const [i, item] of items.entries()) {
    if (!isRecord(item) || typeof item.key !== 'string' || item.key === '') {
      throw new TaskInputError(`data_to_merge[${i}] must be an object with a non-empty "key" and a "value"`);
    }
    setOwn(out, item.key, resolveOperand(item.value, scope));
  }
  return out;
}

/** merge: `data_to_merge` ([{ key, value: { task, variable } }]) → `merged_object`. */
export const merge: SyncBuiltin = ({ incoming, scope }) => success({ merged_object: mergeItems(incoming.data_to_merge, scope) });

function deepMergeInto(target: Record<string, unknown>, source: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(source)) {
    // own members only: target's __proto__ is its prototype unless it has a member of that name
    const current = Object.hasOwn(target, key) ? target[key] : undefined;
    setOwn(target, key, isRecord(current) && isRecord(value) ? deepMergeInto({ ...current }, value) : cloneJson(value));
  }
  return target;
}

/**
 * deepmerge: `data_to_merge` as for merge (values under the same key are merged deeply), or an array
 * of objects merged deeply in order → `merged_object`.
 */
export const deepmerge: SyncBuiltin = ({ incoming, scope }) => {
  const items = incoming.data_to_merge;
  if (Array.isArray(items) && items.every((item) => isRecord(item) && !('key' in item))) {
    return success({
      merged_object: items.reduce<Record<string, unknown>>((acc, item) => deepMergeInto(acc, item as Record<string, unknown>), {}),
    });
  }
  if (!Array.isArray(items)) throw new TaskInputError('Incoming "data_to_merge" must be an array of objects or of { key, value }');
  const out: Record<string, unknown> = {};
  for (const [i, item] of items.entries()) {
    if (!isRecord(item) || typeof item.key !== 'string' || item.key === '')
      throw new TaskInputError(`data_to_merge[${i}] must have a non-empty "key"`);
    const value = resolveOperand(item.value, scope);
    const current = Object.hasOwn(out, item.key) ? out[item.key] : undefined;
    setOwn(out, item.key, isRecord(current) && isRecord(value) ? deepMergeInto({ ...current }, value) : cloneJson(value));
  }
  return success({ merged_object: out });
};

const PLACEHOLDER = /<!([^!<>]+)!>/g;

/** makeData: `input` with `<!name!>` placeholders filled from `variables`, converted to `outputType` → `output`. */
export const makeData: SyncBuiltin = ({ incoming }) => {
  const input = needString(incoming.input, 'input');
  const variables = typeof incoming.variables === 'string' ? tryJson(incoming.variables) : (incoming.variables ?? {});
  if (!isRecord(variables) && variables !== '')
    throw new TaskInputError('Incoming "variables" of makeData must be an object of placeholder values');
  const values = isRecord(variables) ? variables : {};
  const text = input.replace(PLACEHOLDER, (_all, name: string) => {
    if (!Object.hasOwn(values, name)) throw new TaskInputError(`makeData placeholder <!${name}!> has no value in "variables"`);
    const value = values[name];
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
  const outputType =
    incoming.outputType === undefined || incoming.outputType === '' ? 'string' : needString(incoming.outputType, 'outputType');
  switch (outputType) {
    case 'string':
      return success({ output: text });
    case 'number': {
      const n = Number(text);
      if (text.trim() === '' || Number.isNaN(n)) throw new TaskInputError(`makeData output "${text}" is not a number`);
      return success({ output: n });
    }
    case 'boolean':
      if (text !== 'true' && text !== 'false') throw new TaskInputError(`makeData output "${text}" is not a boolean`);
      return success({ output: text === 'true' });
    case 'json':
    case 'object':
    case 'array':
      try {
        return success({ output: JSON.parse(text) as unknown });
      } catch {
        throw new TaskInputError(`makeData output is not valid JSON: ${text.slice(0, 80)}`);
      }
    default:
      throw new TaskInputError(`makeData outputType "${outputType}" is unknown; use string, number, boolean or json`);
  }
};

function pathOf(path: unknown, name: string): (string | number)[] {
  if (Array.isArray(path)) return path.map((p) => (typeof p === 'number' ? p : String(p)));
  if (typeof path === 'string') {
    if (path.trim() === '') return [];
    return path
      .replace(/\[(\d+)\]/g, '.$1')
      .split('.')
      .filter((p) => p !== '')
      .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  }
  throw new TaskInputError(`Incoming "${name}" must be a path (an array of keys or dotted text)`);
}

function setAt(root: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const copy: unknown = cloneJson(root ?? (typeof path[0] === 'number' ? [] : {}));
  let current = copy as Record<string | number, unknown>;
  for (const [i, key] of path.entries()) {
    if (current === null || typeof current !== 'object')
      throw new TaskInputError(`Cannot set ${path.join('.')}: ${path.slice(0, i).join('.')} is not an object`);
    if (typeof key === 'string' && isReservedKey(key)) throw new TaskInputError(`The path member "${key}" is not allowed`);
    if (i === path.length - 1) {
      current[key] = value;
    } else {
      const next = current[key];
      if (next === null || typeof next !== 'object') current[key] = typeof path[i + 1] === 'number' ? [] : {};
      current = current[key] as Record<string | number, unknown>;
    }
  }
  return copy;
}

/** setObjectKey: `obj`, `path` (array of keys), `value` → `object`, a copy of obj with value set at path. */
export const setObjectKey: SyncBuiltin = ({ incoming }) => {
  const obj = typeof incoming.obj === 'string' ? tryJson(incoming.obj) : incoming.obj;
  if (obj !== undefined && obj !== null && obj !== '' && typeof obj !== 'object')
    throw new TaskInputError('Incoming "obj" of setObjectKey must be an object');
  const path = pathOf(incoming.path, 'path');
  if (path.length === 0) throw new TaskInputError('Incoming "path" of setObjectKey must name at least one key');
  return success({ object: setAt(obj === '' ? {} : obj, path, incoming.value) });
};

/** modify: `object_to_update`, `query` (path; empty for the whole value), `new_value` → `updated_object`. */
export const modify: SyncBuiltin = ({ incoming }) => {
  const path = pathOf(incoming.query ?? '', 'query');
  return success({ updated_object: setAt(incoming.object_to_update, path, incoming.new_value) });
};
