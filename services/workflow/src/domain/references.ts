import type { Task } from '@nap/contracts';

/** What references resolve against: the job's variables and its tasks (their outgoing values). */
export interface ReferenceScope {
  variables: Record<string, unknown>;
  tasks: Record<string, Task>;
}

/** A reference that names nothing: the task that holds it fails with this message. */
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

function jobVariable(scope: ReferenceScope, name: string, reference: string): unknown {
  if (Object.hasOwn(scope.variables, name)) return scope.variables[name];
  if (name.includes('.')) {
    const value = readPath(scope.variables, name);
    if (value !== undefined) return value;
  }
  throw new UnresolvedReferenceError(reference, `the job has no variable "${name}"`);
}

function taskVariable(scope: ReferenceScope, taskId: string, name: string, reference: string): unknown {
  const task = scope.tasks[taskId];
  if (task === undefined) throw new UnresolvedReferenceError(reference, `the job has no task "${taskId}"`);
  if (!FINISHED.has(String(task.status))) throw new UnresolvedReferenceError(reference, `task "${taskId}" has not run`);
  if (name === 'error') return task.variables?.error ?? null;
  const outgoing = task.variables?.outgoing ?? {};
  if (Object.hasOwn(outgoing, name)) return outgoing[name];
  const value = name.includes('.') ? readPath(outgoing, name) : undefined;
  if (value !== undefined) return value;
  throw new UnresolvedReferenceError(reference, `task "${taskId}" has no outgoing variable "${name}"`);
}

/** The value of one `$var.…` reference; throws {@link UnresolvedReferenceError}. */
export function resolveReference(reference: string, scope: ReferenceScope): unknown {
  const m = REFERENCE.exec(reference);
  if (!m) return reference;
  const [, source, name] = m as unknown as [string, string, string];
  return source === 'job' ? jobVariable(scope, name, reference) : taskVariable(scope, source, name, reference);
}

/** A value that may be a reference string: the referenced value, else the value itself. */
export function resolveValue(value: unknown, scope: ReferenceScope): unknown {
  return isReference(value) ? resolveReference(value, scope) : value;
}

/**
 * The incoming variables of a task with every top-level `$var.…` string replaced by its value, as
 * existing workflows expect (references are not searched inside nested objects, whose text is data).
 */
export function resolveIncoming(incoming: Record<string, unknown> | undefined, scope: ReferenceScope): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(incoming ?? {})) out[name] = resolveValue(value, scope);
  return out;
}

/** Built-in tasks with an incoming map whose members are references too: the transformation task's `variableMap` (JST incoming name → value). */
const REFERENCE_MAPS: Readonly<Record<string, string>> = Object.freeze({ transformation: 'variableMap' });

/**
 * The incoming variables of a task as it runs: {@link resolveIncoming}, and the members of a map
 * that holds references one level down (a transformation task's `variableMap`, where the fixtures'
 * `"createVpcResponse": "$var.997d.result"` names the value each JST incoming gets).
 */
export function resolveTaskIncoming(task: Task, scope: ReferenceScope): Record<string, unknown> {
  const out = resolveIncoming(task.variables?.incoming, scope);
  const map = task.app === 'WorkFlowEngine' ? REFERENCE_MAPS[String(task.name)] : undefined;
  const members = map === undefined ? undefined : out[map];
  if (map !== undefined && members !== null && typeof members === 'object' && !Array.isArray(members))
    out[map] = resolveIncoming(members as Record<string, unknown>, scope);
  return out;
}

/**
 * A structured operand as the evaluation, merge and childJob tasks write them: `{ task: 'static',
 * variable }` is the literal, `{ task: 'job', variable }` a job variable, `{ task: <id>, variable }`
 * an outgoing variable of that task. `value` stands for `variable` in childJob variables, also
 * beside an empty `variable` (`{ variable: '', task: '7096', value: 'devices' }`, as the editor
 * leaves a variable picked from a task's outgoing).
 */
export function resolveOperand(operand: unknown, scope: ReferenceScope): unknown {
  if (operand === null || typeof operand !== 'object' || Array.isArray(operand) || !('task' in operand))
    return resolveValue(operand, scope);
  const { task, variable, value } = operand as { task?: unknown; variable?: unknown; value?: unknown };
  const named = 'variable' in operand && !(variable === '' && 'value' in operand) ? variable : value;
  if (task === 'static' || task === '' || task === undefined || task === null) return resolveValue(named, scope);
  const name = String(named);
  if (task === 'job') return jobVariable(scope, name, `$var.job.${name}`);
  return taskVariable(scope, String(task), name, `$var.${String(task)}.${name}`);
}
