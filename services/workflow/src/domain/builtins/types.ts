import { redactSecrets } from '@nap/contracts';
import { isRecord } from '@nap/util';
import type { ReferenceScope } from '../references';

/** What a built-in task gets: its incoming variables with references resolved, and the job around it. */
export interface BuiltinInput {
  /** Incoming variables, top-level references resolved. */
  incoming: Record<string, unknown>;
  /** For structured operands (`{ task, variable }`) that builtins resolve themselves. */
  scope: ReferenceScope;
  /** When the task started (epoch ms): a delay resumed after a restart waits only what is left. */
  startedAt: number;
  /** Aborted when the job is canceled or the engine stops. */
  signal: AbortSignal;
  /**
   * How many times faster than real time waits pass (`delay`, the delay of `stub`); 1 unless the
   * engine runs on a scaled clock (NAP_TIME_SCALE, for tests). What the task reports stays nominal.
   */
  timeScale?: number;
}

/** The outcome of a built-in task that did not throw. */
export interface BuiltinResult {
  /** `success` or `failure`: which transitions the task takes. */
  finishState: 'success' | 'failure' | 'error';
  /** Outgoing variables by name. */
  outgoing: Record<string, unknown>;
  /** Job variables to set (newVariable, push, pop). */
  setVariables?: Record<string, unknown>;
  /** Error message when `finishState` is `error` (a stub of type error). */
  error?: string;
  /**
   * The task cannot run as the workflow names it (a transformation that does not exist): the job
   * ends with this error instead of taking the task's error transitions.
   */
  endsJob?: boolean;
}

/** A built-in task. Throws {@link TaskInputError} (or any error) to finish the task with state `error`. */
export type Builtin = (input: BuiltinInput) => BuiltinResult | Promise<BuiltinResult>;

/** A built-in task that answers at once, without side effects outside the job. */
export type SyncBuiltin = (input: BuiltinInput) => BuiltinResult;

/** A bad argument of a built-in task; its message names the argument and what was expected. */
export class TaskInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TaskInputError';
  }
}

export function success(outgoing: Record<string, unknown>, setVariables?: Record<string, unknown>): BuiltinResult {
  return setVariables ? { finishState: 'success', outgoing, setVariables } : { finishState: 'success', outgoing };
}

/** `value` as an array, or a {@link TaskInputError} naming the argument. Arrays given as JSON text are parsed. */
export function needArray(value: unknown, name: string): unknown[] {
  const parsed = typeof value === 'string' ? tryJson(value) : value;
  if (!Array.isArray(parsed)) throw new TaskInputError(`Incoming "${name}" must be an array, not ${describeType(value)}`);
  return parsed;
}

/** `value` as a string, or a {@link TaskInputError}; numbers and booleans become text. */
export function needString(value: unknown, name: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new TaskInputError(`Incoming "${name}" must be a string, not ${describeType(value)}`);
}

/** An optional integer argument: `''`, null and undefined mean absent. */
export function optionalInt(value: unknown, name: string): number | undefined {
  if (value === '' || value === null || value === undefined) return undefined;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n)) throw new TaskInputError(`Incoming "${name}" must be an integer, not ${JSON.stringify(value)}`);
  return n;
}

/** What a JSON text starts with after its white space: any other text would only make JSON.parse throw. */
const JSON_START = /^[ \t\n\r]*[{["\-0-9tfn]/;

/** `text` parsed as JSON, or `text` itself when it is not JSON (told apart first: a throw costs a stack trace). */
export function tryJson(text: string): unknown {
  if (!JSON_START.test(text)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * What a value is, for an error message: its type and the start of its JSON, secret members masked
 * first (the text is cut, and a cut could leave part of a secret that nothing would recognise).
 */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'nothing';
  return `${typeof value === 'object' ? 'an object' : `a ${typeof value}`} (${JSON.stringify(redactSecrets(value))?.slice(0, 60) ?? ''})`;
}

/** Deep equality of JSON values; a number and its decimal text are equal, as users compare them. */
export function looseEqual(a: unknown, b: unknown): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (a === b) return true;
  if ((typeof a === 'number' && typeof b === 'string') || (typeof a === 'string' && typeof b === 'number')) {
    return String(a).trim() !== '' && String(b).trim() !== '' && Number(a) === Number(b);
  }
  if ((typeof a === 'boolean' && typeof b === 'string') || (typeof a === 'string' && typeof b === 'boolean'))
    return String(a) === String(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => looseEqual(item, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && looseEqual(a[k], b[k]));
  }
  return false;
}

/**
 * A deep copy of JSON data, as `JSON.parse(JSON.stringify(value))` makes it (members that are
 * undefined, functions or symbols dropped, such array elements and non-finite numbers null, values
 * with `toJSON` such as dates as they serialize), made by walking plain objects and arrays rather
 * than through text: several times faster, and no string as large as a job to collect afterwards.
 */
export function cloneJson<T>(value: T): T {
  if (value === undefined) return value;
  // a top-level value JSON has no text for fails as JSON.parse fails on it
  if (typeof value === 'function' || typeof value === 'symbol') return JSON.parse(JSON.stringify(value)) as T;
  return copyJson(value) as T;
}

function copyJson(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'number') return Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
    // bigint throws, as JSON.stringify does
    return typeof value === 'bigint' ? JSON.stringify(value) : value;
  }
  if (Array.isArray(value)) {
    const out: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      out[i] = item === undefined || typeof item === 'function' || typeof item === 'symbol' ? null : copyJson(item);
    }
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  // dates, class instances, boxed values: as their JSON text says
  if ((proto !== Object.prototype && proto !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return JSON.parse(JSON.stringify(value)) as unknown;
  const out: Record<string, unknown> = {};
  // for…in rather than Object.keys: no array made for every object copied
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const member: unknown = (value as Record<string, unknown>)[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    // `__proto__` is an own member of parsed JSON, never the prototype
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: copyJson(member), enumerable: true, writable: true, configurable: true });
    else out[key] = copyJson(member);
  }
  return out;
}
