import type { JsonSchema } from '../catalog/types';
import { arr, bool, embed, int, mapOf, name, nullable, num, obj, str, strings, timestamp } from './common';
import type { Decorator, RetrySettings } from './job';

/**
 * The workflow document of the studio service (`/automation-studio/automations`): a graph of tasks
 * joined by transitions. The workflow engine reads it over the bus (`studio.getWorkflow`) and copies
 * its tasks and transitions into each job.
 */

/** Id of the task every job starts from. */
export const WORKFLOW_START = 'workflow_start';
/** Id of the task that ends a job. */
export const WORKFLOW_END = 'workflow_end';
/** Id of the task that runs when a job errors; it is not reached through transitions. */
export const ERROR_HANDLER = 'error_handler';

/** Finish states a transition follows: `loop` is taken by forEach iterations. */
export const TRANSITION_STATES = ['success', 'error', 'failure', 'loop'] as const;
/** One of {@link TRANSITION_STATES}. */
export type TransitionState = (typeof TRANSITION_STATES)[number];

/** Kinds of transition: `revert` goes back to an earlier task (retry loops). */
export const TRANSITION_TYPES = ['standard', 'revert'] as const;
/** One of {@link TRANSITION_TYPES}. */
export type TransitionType = (typeof TRANSITION_TYPES)[number];

/** Kinds of task: `automatic` and `operation` run by themselves, `manual` waits for a person. */
export const TASK_TYPES = ['automatic', 'operation', 'manual'] as const;
/** One of {@link TASK_TYPES}. */
export type TaskType = (typeof TASK_TYPES)[number];

/** Variables of a workflow task. */
export interface WorkflowTaskVariables {
  /** Input name to value; strings such as `$var.job.device` or `$var.<taskId>.<outgoing>` are references. */
  incoming?: Record<string, unknown>;
  /** Output name to value; `"$var.job.<name>"` writes the output to a job variable. */
  outgoing?: Record<string, unknown>;
  /** Where the error of the task goes, for example `$var.job.netboxError`. */
  error?: unknown;
  decorators?: Decorator[];
  [member: string]: unknown;
}

/**
 * A task of a workflow (member of `tasks`). `workflow_start` and `workflow_end` of real documents
 * carry only `name`, `groups` and `nodeLocation`; canvas positions are `x`/`y` or `nodeLocation`.
 */
export interface WorkflowTask {
  /** The method: `childJob`, `RunCommandTemplate`, `workflow_start`, … */
  name: string;
  /** Application or adapter that runs the method: `WorkFlowEngine`, `MOP`, `NetboxV33`, … */
  app?: string;
  type?: TaskType | string;
  summary?: string;
  description?: string;
  displayName?: string;
  variables?: WorkflowTaskVariables;
  groups?: string[];
  x?: number;
  y?: number;
  nodeLocation?: { x?: number; y?: number };
  retrySettings?: RetrySettings | null;
  [member: string]: unknown;
}

/** A transition between two tasks: taken when the from-task finishes in `state`. */
export interface WorkflowTransition {
  state: TransitionState;
  type: TransitionType;
  [member: string]: unknown;
}

/**
 * A stored workflow document. Members beyond those named are kept as submitted. The studio service
 * always sets `description`, `type`, `groups`, `inputSchema`, `outputSchema`, `decorators` and the
 * audit fields; they are optional here so that other code can build workflow-shaped values (tests,
 * the engine's copies). Each task has the shape of {@link WorkflowTask} and each transition of
 * {@link WorkflowTransition} once the studio service has accepted the document.
 */
export interface WorkflowDocument {
  _id: string;
  name: string;
  description?: string;
  /** `automation`. */
  type?: string;
  /** Task id (`workflow_start`, `workflow_end`, `error_handler` or a short hex id) to task. */
  tasks: Record<string, Record<string, unknown>>;
  /** From-task id to to-task id to `{ state, type }`. */
  transitions: Record<string, Record<string, { type?: string; state?: string }>>;
  /** Group ids that may see and change the workflow; empty means every caller with the route's role. */
  groups?: string[];
  /** JSON Schema of the job variables a job of this workflow starts with. */
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  font_size?: number;
  canvasVersion?: number;
  /** Job-variable decorators, for example `{ type: 'encryption', pointer: '/variables/password' }`. */
  decorators?: Decorator[];
  created?: string;
  created_by?: string;
  last_updated?: string;
  last_updated_by?: string;
  [member: string]: unknown;
}

/** A workflow document as the studio service stores and answers it: every member it sets is present. */
export type StoredWorkflowDocument = WorkflowDocument &
  Required<Pick<WorkflowDocument, 'description' | 'type' | 'groups' | 'inputSchema' | 'outputSchema' | 'decorators' | 'created' | 'created_by' | 'last_updated' | 'last_updated_by'>>;

/** A workflow as a client submits it: a name and the graph; `_id` and the audit fields are the service's. */
export interface WorkflowInput {
  _id?: string;
  name: string;
  description?: string;
  type?: string;
  tasks?: Record<string, WorkflowTask>;
  transitions?: Record<string, Record<string, Partial<WorkflowTransition>>>;
  groups?: string[];
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  font_size?: number;
  canvasVersion?: number;
  decorators?: Decorator[];
  [member: string]: unknown;
}

/**
 * One problem (or warning) found in a workflow. `member` is the dotted path inside the workflow
 * (`transitions.6f52.2cd3.state`); `task` and `transition` name the parts of the graph involved.
 */
export interface WorkflowProblem {
  /** Kind of problem, for example `TRANSITION_TO_UNKNOWN_TASK` or `TASK_WITHOUT_ERROR_TRANSITION`. */
  code: string;
  member: string;
  message: string;
  task?: string;
  transition?: { from: string; to: string };
}

/** Answer of a workflow creation or replacement: the stored workflow and the risky-but-legal findings. */
export interface WorkflowSaveResult {
  status: string;
  message: string;
  data: StoredWorkflowDocument;
  warnings: WorkflowProblem[];
}

function decorator(): JsonSchema {
  return obj({ type: str(), pointer: str({ description: 'JSON pointer into the job, for example /variables/password' }) });
}

function retrySettings(): JsonSchema {
  return nullable(
    obj({
      autoRetry: bool(),
      limit: int({ minimum: 0, description: 'most automatic retries' }),
      delay: num({ minimum: 0, description: 'milliseconds between retries' }),
      state: strings({ description: 'finish states that trigger a retry' }),
    }),
  );
}

function taskSchema(): JsonSchema {
  return obj(
    {
      name: str({ description: 'the method (workflow_start and workflow_end for those tasks)' }),
      app: str(),
      type: str({ description: 'automatic, operation or manual' }),
      summary: str(),
      description: str(),
      displayName: str(),
      variables: obj({ incoming: { type: 'object' }, outgoing: { type: 'object' }, decorators: arr(decorator()) }),
      groups: strings(),
      x: num(),
      y: num(),
      nodeLocation: obj({ x: num(), y: num() }),
      retrySettings: retrySettings(),
    },
    [],
    { description: 'task; members beyond these are kept' },
  );
}

function transitionSchema(checked: boolean): JsonSchema {
  if (checked) return obj({ state: { type: 'string', enum: [...TRANSITION_STATES] }, type: { type: 'string', enum: [...TRANSITION_TYPES] } }, ['state', 'type']);
  return obj({ state: str({ description: TRANSITION_STATES.join(', ') }), type: str({ description: TRANSITION_TYPES.join(', ') }) });
}

function workflowProperties(checked: boolean): Record<string, JsonSchema> {
  // stored: the service's values; submitted: whatever another system wrote there, replaced on save
  const owned = (schema: JsonSchema): JsonSchema => (checked ? schema : { description: 'set by the service; a submitted value is replaced' });
  return {
    _id: checked ? str() : { description: 'kept when it is a word of letters, digits, _ and - (up to 64); made otherwise' },
    name: name('workflow name, unique'),
    description: str(),
    type: str({ description: 'automation' }),
    tasks: mapOf(taskSchema(), { description: 'task id to task; workflow_start and workflow_end are the entry and exit' }),
    transitions: mapOf(mapOf(transitionSchema(checked)), { description: 'from-task id to to-task id to { state, type }' }),
    groups: strings({ description: 'group ids that may see and change the workflow; empty: everyone with the role' }),
    inputSchema: { type: 'object', description: 'JSON Schema of the job variables' },
    outputSchema: { type: 'object' },
    font_size: num(),
    canvasVersion: num(),
    decorators: arr(decorator()),
    created: owned(timestamp()),
    created_by: owned(str()),
    last_updated: owned(timestamp()),
    last_updated_by: owned(str()),
  };
}

/** A stored workflow document; transitions hold only the states and types of the engine. */
export const workflowDocumentSchema: JsonSchema = {
  $id: 'nap:schemas/workflow-document',
  ...obj(workflowProperties(true), [
    '_id',
    'name',
    'description',
    'type',
    'tasks',
    'transitions',
    'groups',
    'inputSchema',
    'outputSchema',
    'decorators',
    'created',
    'created_by',
    'last_updated',
    'last_updated_by',
  ]),
};

/**
 * A workflow document as a client submits it: a name is required; the shape of the graph is checked
 * here, its meaning (known tasks, reachable tasks, states and types) by the service, which answers
 * 400 `WORKFLOW_INVALID` naming each problem.
 */
export const workflowInputSchema: JsonSchema = {
  $id: 'nap:schemas/workflow-input',
  ...obj(workflowProperties(false), ['name']),
};

/** One problem or warning about a workflow. */
export const workflowProblemSchema: JsonSchema = {
  $id: 'nap:schemas/workflow-problem',
  ...obj(
    {
      code: str(),
      member: str({ description: 'dotted path inside the workflow' }),
      message: str(),
      task: str({ description: 'task id' }),
      transition: obj({ from: str(), to: str() }, ['from', 'to']),
    },
    ['code', 'member', 'message'],
  ),
};

/** `{ status, message, data: <stored workflow>, warnings }`; `status` is the given constant. */
export function workflowSaveResultSchema(id: string, status: string): JsonSchema {
  return {
    $id: id,
    ...obj(
      {
        status: { const: status },
        message: str(),
        data: embed(workflowDocumentSchema),
        warnings: arr(embed(workflowProblemSchema), { description: 'legal but risky: a task without an error transition, an unreachable workflow_end, …' }),
      },
      ['status', 'message', 'data', 'warnings'],
    ),
  };
}
