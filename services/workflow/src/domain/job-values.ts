/**
 * Large values of a job. A job is one document, and a document holds at most 16 MiB (MongoDB's
 * limit, which the embedded store keeps too), yet each task's outputs, the values it started with
 * and the job's variables all live in it. A value whose JSON is larger than the inline size is kept
 * in the `job_values` collection instead, the job holding a reference to it ({@link ValueRef}),
 * and is read back with the job. A single value larger than the largest value a job holds fails its
 * task with `VALUE_TOO_LARGE`.
 */
import type { JobTask } from './job-model';

/** Values whose JSON is larger than this stay out of the job document by default (`NAP_JOB_INLINE_VALUE_BYTES`): 64 KiB. */
export const DEFAULT_INLINE_VALUE_BYTES = 64 * 1024;

/**
 * The largest value a job holds by default (`NAP_JOB_MAX_VALUE_BYTES`): 15 MiB of JSON, so that a
 * value and its few bytes of bookkeeping fit one document of `job_values`.
 */
export const DEFAULT_MAX_VALUE_BYTES = 15 * 1024 * 1024;

/** Where the engine draws the lines, in bytes of JSON. */
export interface ValueLimits {
  /** Values larger than this are kept out of the job document. */
  inlineBytes: number;
  /** Values larger than this fail their task with `VALUE_TOO_LARGE`. */
  maxBytes: number;
}

/**
 * What a list of jobs (a page, a batch of the task list) reads back at once at most, as a multiple
 * of the largest value a job holds: 4 × 15 MiB by default. A page that would read more holds fewer
 * jobs (at least one) and says so; without it a few jobs that copy one large value into many
 * outputs make a page of hundreds of megabytes, which no answer can carry.
 */
export const LIST_VALUE_BYTES_PER_MAX_VALUE = 4;

/** The bytes of values a list of jobs reads back at once at most, with these limits (see {@link LIST_VALUE_BYTES_PER_MAX_VALUE}). */
export function listValueBytes(limits: ValueLimits): number {
  return LIST_VALUE_BYTES_PER_MAX_VALUE * limits.maxBytes;
}

export const DEFAULT_VALUE_LIMITS: ValueLimits = { inlineBytes: DEFAULT_INLINE_VALUE_BYTES, maxBytes: DEFAULT_MAX_VALUE_BYTES };

/** The member of a reference to a value kept outside its job document. */
export const VALUE_REF = '__nap_job_value';

/** What a job document holds in place of a value kept in `job_values`: the value's id and its size. */
export interface ValueRef {
  [VALUE_REF]: string;
  bytes: number;
}

export function isValueRef(value: unknown): value is ValueRef {
  return typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[VALUE_REF] === 'string';
}

/** The size of a value in bytes of JSON (what it takes in a document, near enough, and exactly in `job_values`). */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
}

/** How deep {@link jsonBytesBound} walks a value before it gives up (the value is then measured). */
const BOUND_DEPTH = 32;

/**
 * An upper bound of the bytes of JSON of `value`, from its shape alone: each UTF-16 unit of a
 * string or a member name at most 6 bytes (an escape), a number at most 24 characters. Infinity
 * once the bound passes `budget`, and for anything but plain JSON values (undefined, a bigint, a
 * date or another object with a prototype, deeper than {@link BOUND_DEPTH}): those are measured.
 * Several times cheaper than encoding the value, which is what makes checking every task's values
 * against the limit cheap.
 */
function jsonBytesBound(value: unknown, budget: number, depth: number): number {
  switch (typeof value) {
    case 'string':
      return value.length * 6 + 2;
    case 'number':
      return 24;
    case 'boolean':
      return 5;
    case 'object':
      break;
    default:
      return Infinity;
  }
  if (value === null) return 4;
  if (depth >= BOUND_DEPTH) return Infinity;
  let total = 2;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) {
      total += jsonBytesBound(item, budget - total, depth + 1) + 1;
      if (total > budget) return Infinity;
    }
    return total;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return Infinity;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    total += key.length * 6 + 4 + jsonBytesBound(record[key], budget - total, depth + 1);
    if (total > budget) return Infinity;
  }
  return total;
}

/** The first member of `values` larger than `maxBytes`, with its size; undefined when all fit. */
export function oversizedValue(values: Record<string, unknown> | undefined, maxBytes: number): { name: string; bytes: number } | undefined {
  if (values === undefined) return undefined;
  // for…in rather than Object.entries: no list of pairs made for every task's incoming and outgoing values
  for (const name in values) {
    if (!Object.hasOwn(values, name)) continue;
    const value = values[name];
    // a string's JSON is at least its length: most values are far below the limit and cost nothing to check
    if (typeof value === 'string' && value.length * 3 + 2 <= maxBytes) continue;
    // nor do the others, whose shape bounds their size below it
    if (jsonBytesBound(value, maxBytes, 0) <= maxBytes) continue;
    const bytes = jsonBytes(value);
    if (bytes > maxBytes) return { name, bytes };
  }
  return undefined;
}

/** The message of a task that made or received a value larger than a job holds. */
export function valueTooLargeMessage(what: string, bytes: number, maxBytes: number): string {
  return `VALUE_TOO_LARGE: ${what} is ${bytes} bytes of JSON; a job holds values of at most ${maxBytes} bytes (NAP_JOB_MAX_VALUE_BYTES)`;
}

/** A place in a job document that may hold a large value: `holder[key]`. */
export interface ValueSlot {
  holder: Record<string, unknown>;
  key: string;
}

function membersOf(holder: unknown): ValueSlot[] {
  if (typeof holder !== 'object' || holder === null || Array.isArray(holder)) return [];
  const record = holder as Record<string, unknown>;
  return Object.keys(record).map((key) => ({ holder: record, key }));
}

/**
 * The places of a task that may hold large values: each outgoing value, each resolved incoming
 * value, the items of a running forEach and the inputs of its child jobs.
 */
export function taskValueSlots(task: JobTask | undefined): ValueSlot[] {
  if (task === undefined || task === null) return [];
  const variables = task.variables as Record<string, unknown> | undefined;
  const slots = [...membersOf(variables?.outgoing), ...membersOf(variables?.resolved)];
  if (task.loop !== undefined && task.loop !== null) slots.push({ holder: task.loop as unknown as Record<string, unknown>, key: 'items' });
  if (task.childRun !== undefined && task.childRun !== null)
    slots.push({ holder: task.childRun as unknown as Record<string, unknown>, key: 'inputs' });
  return slots;
}

/** Every place of a job document (or a projection of it) that may hold a large value. */
export function jobValueSlots(job: { variables?: unknown; tasks?: unknown }): ValueSlot[] {
  const slots = membersOf(job.variables);
  if (typeof job.tasks === 'object' && job.tasks !== null)
    for (const task of Object.values(job.tasks as Record<string, JobTask>)) slots.push(...taskValueSlots(task));
  return slots;
}

/**
 * The bytes of JSON that reading a job document (or a projection of it) back adds to it: the sizes
 * its references to values kept in `job_values` carry, each counted as often as it is referred to
 * (each reference is read back as a value of its own). A few references to one large value make a
 * job many times its stored size once read: lists of jobs are measured by this before they read
 * the values back.
 */
export function outOfLineBytes(job: { variables?: unknown; tasks?: unknown }): number {
  let total = 0;
  for (const { holder, key } of jobValueSlots(job)) {
    const value = holder[key];
    if (isValueRef(value)) total += value.bytes;
  }
  return total;
}

/**
 * How many of a list of jobs to read back at once (a page, a batch), in order: each while the
 * bytes their values add ({@link outOfLineBytes}) stay within `budget`, and always the first.
 */
export function jobsWithinBytes(jobs: readonly { variables?: unknown; tasks?: unknown }[], budget: number): number {
  let total = 0;
  for (let i = 0; i < jobs.length; i += 1) {
    total += outOfLineBytes(jobs[i] ?? {});
    if (total > budget && i > 0) return i;
  }
  return jobs.length;
}

/**
 * A copy of a task, shallow down to the holders of its value slots, so that slots can be set in the
 * copy without touching the task (the engine's working copy keeps the values themselves).
 */
export function copyForSlots(task: JobTask): JobTask {
  const copy: JobTask = { ...task };
  if (task.variables) {
    const variables = { ...task.variables } as Record<string, unknown>;
    if (typeof variables.outgoing === 'object' && variables.outgoing !== null) variables.outgoing = { ...variables.outgoing };
    if (typeof variables.resolved === 'object' && variables.resolved !== null) variables.resolved = { ...variables.resolved };
    copy.variables = variables as JobTask['variables'];
  }
  if (task.loop) copy.loop = { ...task.loop };
  if (task.childRun) copy.childRun = { ...task.childRun };
  return copy;
}
