import type { SyncBuiltin } from './types';
import { TaskInputError, cloneJson, looseEqual, needArray, needString, optionalInt, success } from './types';

/** push: `job_variable` (name), `item_to_push` → the job variable (an array, created when absent) gains the item; outgoing `job_variable_value`. */
export const push: SyncBuiltin = ({ incoming, scope }) => {
  const name = needString(incoming.job_variable, 'job_variable');
  const current = Object.hasOwn(scope.variables, name) ? scope.variables[name] : [];
  if (current !== null && current !== undefined && !Array.isArray(current))
    throw new TaskInputError(`Job variable "${name}" is not an array; push needs one`);
  const next = [...(cloneJson(current as unknown[] | null) ?? []), incoming.item_to_push];
  return success({ job_variable_value: next }, { [name]: next });
};

/** pop: `job_variable` (name of an array) → its last item is removed; outgoing `popped_item` (null when empty) and `job_variable_value`. */
export const pop: SyncBuiltin = ({ incoming, scope }) => {
  const name = needString(incoming.job_variable, 'job_variable');
  if (!Object.hasOwn(scope.variables, name)) throw new TaskInputError(`The job has no variable "${name}" to pop from`);
  const current = scope.variables[name];
  if (!Array.isArray(current)) throw new TaskInputError(`Job variable "${name}" is not an array; pop needs one`);
  const next = cloneJson(current);
  const popped = next.length > 0 ? next.pop() : null;
  return success({ popped_item: popped ?? null, job_variable_value: next }, { [name]: next });
};

/** arrayLength: `arr` → `length`. */
export const arrayLength: SyncBuiltin = ({ incoming }) => success({ length: needArray(incoming.arr, 'arr').length });

/** arrayPush: `arr`, `elementN` (one item, or several as an array when `arr` is to gain each) → `pushedArray`, a new array. */
export const arrayPush: SyncBuiltin = ({ incoming }) => {
  const arr = incoming.arr === '' || incoming.arr === null || incoming.arr === undefined ? [] : needArray(incoming.arr, 'arr');
  return success({ pushedArray: [...cloneJson(arr), cloneJson(incoming.elementN)] });
};

function indexOf(arr: unknown[], search: unknown, from: number | undefined): number {
  const start = from === undefined ? 0 : from < 0 ? Math.max(0, arr.length + from) : from;
  for (let i = start; i < arr.length; i += 1) if (looseEqual(arr[i], search)) return i;
  return -1;
}

/** arrayIncludes: `arr`, `searchElement`, `fromIndex` → `result` (boolean). */
export const arrayIncludes: SyncBuiltin = ({ incoming }) =>
  success({ result: indexOf(needArray(incoming.arr, 'arr'), incoming.searchElement, optionalInt(incoming.fromIndex, 'fromIndex')) >= 0 });

/** arrayIndexOf: `arr`, `searchElement`, `fromIndex` → `index` (-1 when absent). */
export const arrayIndexOf: SyncBuiltin = ({ incoming }) =>
  success({ index: indexOf(needArray(incoming.arr, 'arr'), incoming.searchElement, optionalInt(incoming.fromIndex, 'fromIndex')) });

/** join: `arr`, `separator` → `joinedElements`. */
export const join: SyncBuiltin = ({ incoming }) => {
  const arr = needArray(incoming.arr, 'arr');
  const separator = incoming.separator === undefined || incoming.separator === null ? ',' : needString(incoming.separator, 'separator');
  return success({ joinedElements: arr.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join(separator) });
};

/** stringConcat: `str`, `stringN` (text or an array of texts) → `combinedStrings`. */
export const stringConcat: SyncBuiltin = ({ incoming }) => {
  const first = incoming.str === null || incoming.str === undefined ? '' : needString(incoming.str, 'str');
  const rest = Array.isArray(incoming.stringN) ? incoming.stringN : [incoming.stringN ?? ''];
  return success({ combinedStrings: first + rest.map((s, i) => needString(s, `stringN[${i}]`)).join('') });
};

/** stringLength: `str` → `length`. */
export const stringLength: SyncBuiltin = ({ incoming }) => success({ length: needString(incoming.str, 'str').length });

/** substring: `str`, `indexStart`, `indexEnd` (optional) → `substring`. */
export const substring: SyncBuiltin = ({ incoming }) => {
  const str = needString(incoming.str, 'str');
  const start = optionalInt(incoming.indexStart, 'indexStart') ?? 0;
  const end = optionalInt(incoming.indexEnd, 'indexEnd');
  return success({ substring: str.substring(start, end) });
};

/** split: `str`, `separator`, `limit` (optional) → `splitArray`. */
export const split: SyncBuiltin = ({ incoming }) => {
  const str = needString(incoming.str, 'str');
  const separator = incoming.separator === undefined || incoming.separator === null ? '' : needString(incoming.separator, 'separator');
  const limit = optionalInt(incoming.limit, 'limit');
  return success({ splitArray: str.split(separator, limit) });
};

/** numberToString: `num`, `radix` (2–36, default 10) → `numToString`. */
export const numberToString: SyncBuiltin = ({ incoming }) => {
  const num = typeof incoming.num === 'number' ? incoming.num : Number(incoming.num);
  if (incoming.num === '' || incoming.num === null || Number.isNaN(num))
    throw new TaskInputError(`Incoming "num" must be a number, not ${JSON.stringify(incoming.num)}`);
  const radix = optionalInt(incoming.radix, 'radix') ?? 10;
  if (radix < 2 || radix > 36) throw new TaskInputError(`Incoming "radix" must be between 2 and 36, not ${radix}`);
  return success({ numToString: num.toString(radix) });
};
