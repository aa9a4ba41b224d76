import type { Task } from '@nap/contracts';
import { setOwn } from '@nap/util';

/**
 * What references resolve against: the job's variables and its tasks (their outgoing values). With
 * `unresolved`, each reference that names nothing set is added to it (for the engine's log).
 */
export interface ReferenceScope {
  variables: Record<string, unknown>;
  tasks: Record<string, Task>;
  unresolved?: string[];
}

/**
 * Who receives a resolved value, which decides what a reference to nothing gives (the 2023.2 rules of
 * the platform NAP replaces): `engine` for a WorkFlowEngine task (merge, evaluation, transformation,
 * childJob and the other built-ins, manual ones too), `app` for a task of any other app or adapter.
 */
export type Receiver = 'engine' | 'app';

/** The receiver of a task's incoming values: `engine` for a WorkFlowEngine task, `app` for the others. */
export function receiverOf(task: Pick<Task, 'app'>): Receiver {
  return task.app === 'WorkFlowEngine' ? 'engine' : 'app';
}

/**
 * A reference that can never name anything: `$var.<taskId>.…` for a task the job (its workflow) does
 * not have, a defect of the workflow rather than a value not set yet. The task that holds it fails
 * with this message.
 */
export class UnresolvedReferenceError extends Error {
  constructor(
    readonly reference: string,
    reason: string,
  ) {
    super(`Reference ${reference} is not resolved: ${reason}`);
    this.name = 'UnresolvedReferenceError';
  }
}

const REFERENCE = /^\$var\.([^.\s]+)\.(.+)$/;

/** True for a string of the form `$var.job.<name>` or `$var.<taskId>.<name>`. */
export function isReference(value: unknown): value is string {
  return typeof value === 'string' && REFERENCE.test(value);
}

/** The job variable a `$var.job.<name>` reference writes to, or undefined for anything else. */
export function jobVariableOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const m = REFERENCE.exec(value);
  return m && m[1] === 'job' ? m[2] : undefined;
}

/** Task statuses whose outgoing values may be read. */
const FINISHED = new Set(['complete', 'error', 'running']);

function readPath(root: unknown, path: string): unknown {
  let current = root;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** What a reference to nothing gives: noted in the scope, then `value`. */
function unset(scope: ReferenceScope, reference: string, value: null | undefined): null | undefined {
  scope.unresolved?.push(reference);
  return value;
}

/** A job variable; one nobody set is undefined for a WorkFlowEngine task and null for an app's. */
function jobVariable(scope: ReferenceScope, name: string, reference: string, receiver: Receiver): unknown {
  if (Object.hasOwn(scope.variables, name)) return scope.variables[name];
  if (name.includes('.')) {
    const value = readPath(scope.variables, name);
    if (value !== undefined) return value;
  }
  return unset(scope, reference, receiver === 'engine' ? undefined : null);
}

/**
 * An outgoing value of a task (`error`: its error); null when it is not there (the task has not run,
 * or did not give that member), for every receiver. A task the job does not have fails the reference.
 */
function taskVariable(scope: ReferenceScope, taskId: string, name: string, reference: string): unknown {
  const task = Object.hasOwn(scope.tasks, taskId) ? scope.tasks[taskId] : undefined;
  if (task === undefined) throw new UnresolvedReferenceError(reference, `the workflow has no task "${taskId}"`);
  if (!FINISHED.has(String(task.status))) return unset(scope, reference, null);
  if (name === 'error') return task.variables?.error ?? null;
  const outgoing = task.variables?.outgoing ?? {};
  if (Object.hasOwn(outgoing, name)) return outgoing[name];
  const value = name.includes('.') ? readPath(outgoing, name) : undefined;
  if (value !== undefined) return value;
  return unset(scope, reference, null);
}

/**
 * The value of one `$var.…` reference as `receiver` gets it. One that names nothing set is not an
 * error: a job variable nobody set is undefined for a WorkFlowEngine task and null for an app's, an
 * outgoing value that is not there (its task has not run, or did not give it) is null; each such
 * reference is noted in `scope.unresolved`. Throws {@link UnresolvedReferenceError} for a task the
 * workflow does not have.
 */
export function resolveReference(reference: string, scope: ReferenceScope, receiver: Receiver = 'engine'): unknown {
  const m = REFERENCE.exec(reference);
  if (!m) return reference;
  const [, source, name] = m as unknown as [string, string, string];
  return source === 'job' ? jobVariable(scope, name, reference, receiver) : taskVariable(scope, source, name, reference);
}

/** A value that may be a reference string: the referenced value ({@link resolveReference}), else the value itself. */
export function resolveValue(value: unknown, scope: ReferenceScope, receiver: Receiver = 'engine'): unknown {
  return isReference(value) ? resolveReference(value, scope, receiver) : value;
}

/**
 * The incoming variables of a task with every top-level `$var.…` string replaced by its value, as
 * existing workflows expect (references are not searched inside nested objects, whose text is data).
 * A member whose value is undefined (a job variable nobody set, for a WorkFlowEngine task) is left out.
 */
export function resolveIncoming(
  incoming: Record<string, unknown> | undefined,
  scope: ReferenceScope,
  receiver: Receiver = 'engine',
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(incoming ?? {})) {
    const resolved = resolveValue(value, scope, receiver);
    if (resolved !== undefined) setOwn(out, name, resolved);
  }
  return out;
}

/** Built-in tasks with an incoming map whose members are references too: the transformation task's `variableMap` (JST incoming name → value). */
const REFERENCE_MAPS: Readonly<Record<string, string>> = Object.freeze({ transformation: 'variableMap' });

/**
 * The incoming variables of a task as it runs: {@link resolveIncoming} for its receiver
 * ({@link receiverOf}), and the members of a map that holds references one level down (a
 * transformation task's `variableMap`, where the fixtures' `"createVpcResponse": "$var.997d.result"`
 * names the value each JST incoming gets).
 */
export function resolveTaskIncoming(task: Task, scope: ReferenceScope): Record<string, unknown> {
  const receiver = receiverOf(task);
  const out = resolveIncoming(task.variables?.incoming, scope, receiver);
  const map = receiver === 'engine' ? REFERENCE_MAPS[String(task.name)] : undefined;
  const members = map === undefined ? undefined : out[map];
  if (map !== undefined && members !== null && typeof members === 'object' && !Array.isArray(members))
    out[map] = resolveIncoming(members as Record<string, unknown>, scope, receiver);
  return out;
}

/**
 * A structured operand as the evaluation, merge and childJob tasks write them: `{ task: 'static',
 * variable }` is the literal, `{ task: 'job', variable }` a job variable, `{ task: <id>, variable }`
 * an outgoing variable of that task. `value` stands for `variable` in childJob variables, also
 * beside an empty `variable` (`{ variable: '', task: '7096', value: 'devices' }`, as the editor
 * leaves a variable picked from a task's outgoing). Those tasks are the engine's: a job variable
 * nobody set is undefined, an outgoing value that is not there null ({@link resolveReference}).
 */
export function resolveOperand(operand: unknown, scope: ReferenceScope): unknown {
  if (operand === null || typeof operand !== 'object' || Array.isArray(operand) || !('task' in operand))
    return resolveValue(operand, scope);
  const { task, variable, value } = operand as { task?: unknown; variable?: unknown; value?: unknown };
  const named = 'variable' in operand && !(variable === '' && 'value' in operand) ? variable : value;
  if (task === 'static' || task === '' || task === undefined || task === null) return resolveValue(named, scope);
  const name = String(named);
  if (task === 'job') return jobVariable(scope, name, `$var.job.${name}`, 'engine');
  return taskVariable(scope, String(task), name, `$var.${String(task)}.${name}`);
}
