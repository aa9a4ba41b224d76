import {
  ERROR_HANDLER,
  TASK_TYPES,
  TRANSITION_STATES,
  TRANSITION_TYPES,
  WORKFLOW_END,
  WORKFLOW_START,
  isReservedKey,
} from '@nap/contracts';
import type { WorkflowProblem } from '@nap/contracts';
import { isRecord } from '@nap/util';

/**
 * Validation of a workflow document on save. Pure: no I/O, no clock. What breaks a job (a transition
 * to a task that does not exist, a task no job can reach, an unknown state) is an error and the save
 * is refused; what is legal but risky (a task without an `error` transition, an unreachable
 * `workflow_end`) is a warning the caller sees in the answer.
 */

/** Codes of the problems that refuse a workflow. */
export const WORKFLOW_ERRORS = {
  /** A member has the wrong JSON type for the workflow schema (found by the catalog schema, not here). */
  SHAPE_INVALID: 'SHAPE_INVALID',
  NOT_AN_OBJECT: 'NOT_AN_OBJECT',
  NAME_MISSING: 'NAME_MISSING',
  TASKS_MISSING: 'TASKS_MISSING',
  TRANSITIONS_NOT_AN_OBJECT: 'TRANSITIONS_NOT_AN_OBJECT',
  START_MISSING: 'START_MISSING',
  END_MISSING: 'END_MISSING',
  TASK_ID_INVALID: 'TASK_ID_INVALID',
  TASK_NOT_AN_OBJECT: 'TASK_NOT_AN_OBJECT',
  TASK_NAME_MISSING: 'TASK_NAME_MISSING',
  TASK_VARIABLES_INVALID: 'TASK_VARIABLES_INVALID',
  TASK_RETRY_SETTINGS_INVALID: 'TASK_RETRY_SETTINGS_INVALID',
  TASK_UNREACHABLE: 'TASK_UNREACHABLE',
  TRANSITION_FROM_UNKNOWN_TASK: 'TRANSITION_FROM_UNKNOWN_TASK',
  TRANSITION_TO_UNKNOWN_TASK: 'TRANSITION_TO_UNKNOWN_TASK',
  TRANSITION_NOT_AN_OBJECT: 'TRANSITION_NOT_AN_OBJECT',
  TRANSITION_STATE_INVALID: 'TRANSITION_STATE_INVALID',
  TRANSITION_TYPE_INVALID: 'TRANSITION_TYPE_INVALID',
} as const;
export type WorkflowErrorCode = (typeof WORKFLOW_ERRORS)[keyof typeof WORKFLOW_ERRORS];

/** Codes of the findings that are legal but risky. */
export const WORKFLOW_WARNINGS = {
  TASK_WITHOUT_ERROR_TRANSITION: 'TASK_WITHOUT_ERROR_TRANSITION',
  TASK_DEAD_END: 'TASK_DEAD_END',
  TASK_TYPE_UNKNOWN: 'TASK_TYPE_UNKNOWN',
  END_UNREACHABLE: 'END_UNREACHABLE',
  TRANSITION_FROM_END: 'TRANSITION_FROM_END',
  TRANSITION_TO_START: 'TRANSITION_TO_START',
} as const;
export type WorkflowWarningCode = (typeof WORKFLOW_WARNINGS)[keyof typeof WORKFLOW_WARNINGS];

/** Outcome of {@link validateWorkflow}: the workflow may be saved when `errors` is empty. */
export interface WorkflowCheck {
  errors: WorkflowProblem[];
  warnings: WorkflowProblem[];
}

/**
 * Task ids end up in job variable references (`$var.<taskId>.<outgoing>`) and in store field paths,
 * so they are plain words: letters, digits, `_` and `-`, and none of the reserved keys.
 */
const TASK_ID = /^[A-Za-z0-9_-]{1,64}$/;

const STATES: ReadonlySet<string> = new Set(TRANSITION_STATES);
const TYPES: ReadonlySet<string> = new Set(TRANSITION_TYPES);
const TASK_KINDS: ReadonlySet<string> = new Set(TASK_TYPES);
/** Tasks that are not steps of their own: no error transition or way out is expected of them. */
const FRAME_TASKS: ReadonlySet<string> = new Set([WORKFLOW_START, WORKFLOW_END, ERROR_HANDLER]);

function quote(id: string): string {
  return JSON.stringify(id);
}

/** True when `id` may name a task. */
export function isValidTaskId(id: string): boolean {
  return TASK_ID.test(id) && !isReservedKey(id);
}

/** Checks a workflow document (as submitted or stored) and lists every error and warning. */
export function validateWorkflow(workflow: unknown): WorkflowCheck {
  const errors: WorkflowProblem[] = [];
  const warnings: WorkflowProblem[] = [];
  const error = (problem: WorkflowProblem): void => {
    errors.push(problem);
  };
  const warn = (problem: WorkflowProblem): void => {
    warnings.push(problem);
  };

  if (!isRecord(workflow)) {
    error({ code: WORKFLOW_ERRORS.NOT_AN_OBJECT, member: '', message: 'The workflow is not a JSON object' });
    return { errors, warnings };
  }
  if (typeof workflow.name !== 'string' || workflow.name.trim() === '') {
    error({ code: WORKFLOW_ERRORS.NAME_MISSING, member: 'name', message: 'The workflow has no name; give it a non-empty name' });
  }
  if (!isRecord(workflow.tasks)) {
    error({
      code: WORKFLOW_ERRORS.TASKS_MISSING,
      member: 'tasks',
      message: 'The workflow has no tasks object (task id to task); it needs at least workflow_start and workflow_end',
    });
    return { errors, warnings };
  }
  const tasks = workflow.tasks;
  const transitions: Record<string, unknown> =
    workflow.transitions === undefined ? {} : isRecord(workflow.transitions) ? workflow.transitions : {};
  if (workflow.transitions !== undefined && !isRecord(workflow.transitions)) {
    error({
      code: WORKFLOW_ERRORS.TRANSITIONS_NOT_AN_OBJECT,
      member: 'transitions',
      message: 'transitions is not an object of from-task id to to-task id to { state, type }',
    });
  }

  checkTasks(tasks, error, warn);
  const has = (id: string): boolean => Object.hasOwn(tasks, id);
  if (!has(WORKFLOW_START))
    error({
      code: WORKFLOW_ERRORS.START_MISSING,
      member: 'tasks',
      message: 'The workflow has no workflow_start task; every job starts there',
    });
  if (!has(WORKFLOW_END))
    error({ code: WORKFLOW_ERRORS.END_MISSING, member: 'tasks', message: 'The workflow has no workflow_end task; jobs end there' });

  // the edges that exist, for reachability and the warnings below
  const edges = new Map<string, { to: string; state: string }[]>();
  for (const [from, targets] of Object.entries(transitions)) {
    if (!isRecord(targets)) {
      error({
        code: WORKFLOW_ERRORS.TRANSITION_NOT_AN_OBJECT,
        member: `transitions.${from}`,
        task: from,
        message: `The transitions of task ${quote(from)} are not an object of to-task id to { state, type }`,
      });
      continue;
    }
    const entries = Object.entries(targets);
    if (!has(from)) {
      // an empty entry for a deleted task is what real editors leave behind: kept, harmless, not reported
      for (const [to] of entries) {
        error({
          code: WORKFLOW_ERRORS.TRANSITION_FROM_UNKNOWN_TASK,
          member: `transitions.${from}.${to}`,
          task: from,
          transition: { from, to },
          message: `The transition from ${quote(from)} to ${quote(to)} starts at a task that does not exist`,
        });
      }
      continue;
    }
    const out: { to: string; state: string }[] = [];
    for (const [to, transition] of entries) {
      const at = { member: `transitions.${from}.${to}`, task: from, transition: { from, to } };
      if (!has(to)) {
        error({
          code: WORKFLOW_ERRORS.TRANSITION_TO_UNKNOWN_TASK,
          ...at,
          message: `The transition from ${quote(from)} to ${quote(to)} leads to a task that does not exist`,
        });
        continue;
      }
      if (!isRecord(transition)) {
        error({
          code: WORKFLOW_ERRORS.TRANSITION_NOT_AN_OBJECT,
          ...at,
          message: `The transition from ${quote(from)} to ${quote(to)} is not an object { state, type }`,
        });
        continue;
      }
      const { state, type } = transition;
      if (typeof state !== 'string' || !STATES.has(state)) {
        error({
          code: WORKFLOW_ERRORS.TRANSITION_STATE_INVALID,
          ...at,
          member: `${at.member}.state`,
          message: `The transition from ${quote(from)} to ${quote(to)} has state ${JSON.stringify(state ?? null)}; use one of ${TRANSITION_STATES.join(', ')}`,
        });
      }
      if (typeof type !== 'string' || !TYPES.has(type)) {
        error({
          code: WORKFLOW_ERRORS.TRANSITION_TYPE_INVALID,
          ...at,
          member: `${at.member}.type`,
          message: `The transition from ${quote(from)} to ${quote(to)} has type ${JSON.stringify(type ?? null)}; use one of ${TRANSITION_TYPES.join(', ')}`,
        });
      }
      if (to === WORKFLOW_START)
        warn({
          code: WORKFLOW_WARNINGS.TRANSITION_TO_START,
          ...at,
          message: `The transition from ${quote(from)} leads back to workflow_start`,
        });
      out.push({ to, state: typeof state === 'string' ? state : '' });
    }
    if (from === WORKFLOW_END && out.length > 0) {
      warn({
        code: WORKFLOW_WARNINGS.TRANSITION_FROM_END,
        member: `transitions.${from}`,
        task: from,
        message: 'workflow_end has transitions out of it; a job ends at workflow_end and never takes them',
      });
    }
    edges.set(from, out);
  }

  if (has(WORKFLOW_START)) {
    const reached = reachable([WORKFLOW_START], edges);
    // the error handler runs when a job errors, not through transitions; so does what follows it
    const handled = has(ERROR_HANDLER) ? reachable([ERROR_HANDLER], edges) : new Set<string>();
    for (const id of Object.keys(tasks)) {
      if (reached.has(id) || handled.has(id)) continue;
      if (id === WORKFLOW_END) {
        warn({
          code: WORKFLOW_WARNINGS.END_UNREACHABLE,
          member: `tasks.${id}`,
          task: id,
          message: 'No path leads from workflow_start to workflow_end; jobs of this workflow cannot complete',
        });
      } else {
        error({
          code: WORKFLOW_ERRORS.TASK_UNREACHABLE,
          member: `tasks.${id}`,
          task: id,
          message: `Task ${quote(id)} cannot be reached from workflow_start; connect it with a transition or remove it`,
        });
      }
    }
    for (const id of reached) {
      const task = tasks[id];
      if (FRAME_TASKS.has(id) || !isRecord(task)) continue;
      const out = edges.get(id) ?? [];
      if (out.length === 0) {
        warn({
          code: WORKFLOW_WARNINGS.TASK_DEAD_END,
          member: `transitions.${id}`,
          task: id,
          message: `Task ${quote(id)} has no transition out of it; a job that reaches it ends in error`,
        });
      } else if (task.type !== 'manual' && !out.some((e) => e.state === 'error')) {
        warn({
          code: WORKFLOW_WARNINGS.TASK_WITHOUT_ERROR_TRANSITION,
          member: `transitions.${id}`,
          task: id,
          message: `Task ${quote(id)} has no error transition; if it errors, the job ends in error`,
        });
      }
    }
  }
  return { errors, warnings };
}

function checkTasks(tasks: Record<string, unknown>, error: (p: WorkflowProblem) => void, warn: (p: WorkflowProblem) => void): void {
  for (const [id, task] of Object.entries(tasks)) {
    const member = `tasks.${id}`;
    if (!isValidTaskId(id)) {
      error({
        code: WORKFLOW_ERRORS.TASK_ID_INVALID,
        member,
        task: id,
        message: `Task id ${quote(id)} is not allowed; use letters, digits, _ and - (up to 64), such as a short hex id`,
      });
    }
    if (!isRecord(task)) {
      error({ code: WORKFLOW_ERRORS.TASK_NOT_AN_OBJECT, member, task: id, message: `Task ${quote(id)} is not an object` });
      continue;
    }
    if (typeof task.name !== 'string' || task.name === '') {
      error({
        code: WORKFLOW_ERRORS.TASK_NAME_MISSING,
        member: `${member}.name`,
        task: id,
        message: `Task ${quote(id)} has no name (the method it runs)`,
      });
    }
    if (task.type !== undefined && (typeof task.type !== 'string' || !TASK_KINDS.has(task.type))) {
      warn({
        code: WORKFLOW_WARNINGS.TASK_TYPE_UNKNOWN,
        member: `${member}.type`,
        task: id,
        message: `Task ${quote(id)} has type ${JSON.stringify(task.type)}; the engine knows ${TASK_TYPES.join(', ')} and runs others as automatic`,
      });
    }
    checkVariables(id, task.variables, error);
    checkRetrySettings(id, task.retrySettings, error);
  }
}

function checkVariables(id: string, variables: unknown, error: (p: WorkflowProblem) => void): void {
  if (variables === undefined) return;
  const member = `tasks.${id}.variables`;
  if (!isRecord(variables)) {
    error({
      code: WORKFLOW_ERRORS.TASK_VARIABLES_INVALID,
      member,
      task: id,
      message: `The variables of task ${quote(id)} are not an object { incoming, outgoing, error, decorators }`,
    });
    return;
  }
  for (const part of ['incoming', 'outgoing'] as const) {
    if (variables[part] !== undefined && !isRecord(variables[part])) {
      error({
        code: WORKFLOW_ERRORS.TASK_VARIABLES_INVALID,
        member: `${member}.${part}`,
        task: id,
        message: `variables.${part} of task ${quote(id)} is not an object of name to value`,
      });
    }
  }
  if (variables.decorators !== undefined && !Array.isArray(variables.decorators)) {
    error({
      code: WORKFLOW_ERRORS.TASK_VARIABLES_INVALID,
      member: `${member}.decorators`,
      task: id,
      message: `variables.decorators of task ${quote(id)} is not an array`,
    });
  }
}

function checkRetrySettings(id: string, settings: unknown, error: (p: WorkflowProblem) => void): void {
  if (settings === undefined || settings === null) return;
  const member = `tasks.${id}.retrySettings`;
  const bad = (what: string): void => {
    error({ code: WORKFLOW_ERRORS.TASK_RETRY_SETTINGS_INVALID, member, task: id, message: `retrySettings of task ${quote(id)}: ${what}` });
  };
  if (!isRecord(settings)) return bad('not an object { autoRetry, limit, delay, state }');
  if (settings.autoRetry !== undefined && typeof settings.autoRetry !== 'boolean') bad('autoRetry is not a boolean');
  if (settings.limit !== undefined && !(typeof settings.limit === 'number' && Number.isInteger(settings.limit) && settings.limit >= 0))
    bad('limit is not a whole number of retries (0 or more)');
  if (settings.delay !== undefined && !(typeof settings.delay === 'number' && settings.delay >= 0))
    bad('delay is not a number of milliseconds (0 or more)');
  if (
    settings.state !== undefined &&
    !(Array.isArray(settings.state) && settings.state.every((s) => typeof s === 'string' && STATES.has(s)))
  ) {
    bad(`state is not a list of finish states among ${TRANSITION_STATES.join(', ')}`);
  }
}

function reachable(from: readonly string[], edges: ReadonlyMap<string, readonly { to: string }[]>): Set<string> {
  const seen = new Set<string>(from);
  const stack = [...from];
  for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
    for (const edge of edges.get(id) ?? []) {
      if (!seen.has(edge.to)) {
        seen.add(edge.to);
        stack.push(edge.to);
      }
    }
  }
  return seen;
}
