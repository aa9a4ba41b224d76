import type { Static, TSchema } from '@sinclair/typebox';
import type { OpenStatic } from './common';
import { PRINTABLE_NAME_PATTERN } from '../names';
import {
  anyObject,
  anyValue,
  arr,
  bool,
  embed,
  int,
  literal,
  mapOf,
  name,
  nullable,
  num,
  obj,
  oneOf,
  open,
  printableName,
  str,
  strings,
  timestamp,
  withId,
} from './common';

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

function decorator() {
  return obj({ type: str(), pointer: str({ description: 'JSON pointer into the job, for example /variables/password' }) });
}
/** A decorator of a workflow or of its task, for example `{ type: 'encryption', pointer: '/variables/password' }`. */
export type WorkflowDecorator = Static<ReturnType<typeof decorator>>;

function retrySettings() {
  return nullable(
    obj({
      autoRetry: bool(),
      limit: int({ minimum: 0, description: 'most automatic retries' }),
      delay: num({ minimum: 0, description: 'milliseconds between retries' }),
      state: strings({ description: 'finish states that trigger a retry' }),
    }),
  );
}
/** Retry settings of a workflow task (`null` in documents whose editor cleared them). */
export type WorkflowRetrySettings = Static<ReturnType<typeof retrySettings>>;

function taskVariables() {
  return open({
    incoming: anyObject('input name to value; strings such as $var.job.device or $var.<taskId>.<outgoing> are references'),
    outgoing: anyObject('output name to value; "$var.job.<name>" writes the output to a job variable'),
    decorators: arr(decorator()),
  });
}
/**
 * Variables of a workflow task: `incoming` (input name to value, references as `$var.job.device`),
 * `outgoing` (output name to value, `"$var.job.<name>"` writes a job variable), `decorators`; other
 * members such as `error` (where the error of the task goes, `$var.job.netboxError`) are kept.
 */
export type WorkflowTaskVariables = Static<ReturnType<typeof taskVariables>>;

function taskProperties() {
  return {
    name: str({ description: 'the method (workflow_start and workflow_end for those tasks)' }),
    app: str({ description: 'application or adapter that runs the method: WorkFlowEngine, MOP, NetboxV33, …' }),
    type: str({ description: 'automatic, operation or manual' }),
    summary: str(),
    description: str(),
    displayName: str(),
    variables: taskVariables(),
    groups: strings(),
    x: num(),
    y: num(),
    nodeLocation: obj({ x: num(), y: num() }),
    retrySettings: retrySettings(),
  };
}

/** A task of a stored workflow: the service refuses a task without a name (the method it runs). */
function storedTask() {
  return open(taskProperties(), ['name'], { description: 'task; members beyond these are kept' });
}

/**
 * A task as submitted: its name is checked by the service (TASK_NAME_MISSING), not by the schema.
 * Its summary and displayName label it in the canvas and in a job's list of tasks: one line of
 * printable text each ({@link PRINTABLE_NAME_PATTERN}). Its description may run over several lines
 * (those of the shared assets do), so it is not held to the rule.
 */
function submittedTask() {
  const label = (description: string) => str({ pattern: PRINTABLE_NAME_PATTERN, description });
  return open(
    {
      ...taskProperties(),
      summary: label('what the task does, as lists of tasks show it'),
      displayName: label('the name the canvas shows'),
    },
    [],
    { description: 'task; members beyond these are kept' },
  );
}

/**
 * A task of a workflow (member of `tasks`). `workflow_start` and `workflow_end` of real documents
 * carry only `name`, `groups` and `nodeLocation`; canvas positions are `x`/`y` or `nodeLocation`.
 * `type` is one of {@link TASK_TYPES} or another string the engine runs as automatic.
 */
export type WorkflowTask = Static<ReturnType<typeof storedTask>>;

function checkedTransition() {
  return open({ state: oneOf(TRANSITION_STATES), type: oneOf(TRANSITION_TYPES) }, ['state', 'type']);
}

function submittedTransition() {
  return open({ state: str({ description: TRANSITION_STATES.join(', ') }), type: str({ description: TRANSITION_TYPES.join(', ') }) });
}

/** A transition between two tasks of a stored workflow: taken when the from-task finishes in `state`. */
export type WorkflowTransition = Static<ReturnType<typeof checkedTransition>>;

function graphProperties<Task extends TSchema, Transition extends TSchema>(task: Task, transition: Transition) {
  return {
    name: name('workflow name, unique'),
    description: str(),
    type: str({ description: 'automation' }),
    tasks: mapOf(task, { description: 'task id to task; workflow_start and workflow_end are the entry and exit' }),
    transitions: mapOf(mapOf(transition), { description: 'from-task id to to-task id to { state, type }' }),
    groups: strings({ description: 'group ids that may see and change the workflow; empty: everyone with the role' }),
    inputSchema: anyObject('JSON Schema of the job variables'),
    outputSchema: anyObject(),
    font_size: num(),
    canvasVersion: num(),
    decorators: arr(decorator()),
  };
}

/** Members of a stored workflow: the service's values in `_id` and the audit fields. */
function storedWorkflowProperties() {
  return {
    _id: str(),
    ...graphProperties(storedTask(), checkedTransition()),
    created: timestamp(),
    created_by: str(),
    last_updated: timestamp(),
    last_updated_by: str(),
  };
}

/** Members of a submitted workflow: whatever another system wrote in the service's members is accepted, and replaced on save. */
function submittedWorkflowProperties() {
  const owned = () => anyValue({ description: 'set by the service; a submitted value is replaced' });
  return {
    _id: anyValue({ description: 'kept when it is a word of letters, digits, _ and - (up to 64); made otherwise' }),
    ...graphProperties(submittedTask(), submittedTransition()),
    name: printableName('workflow name, unique'),
    created: owned(),
    created_by: owned(),
    last_updated: owned(),
    last_updated_by: owned(),
  };
}

/**
 * A stored workflow document, as the studio service stores and answers it (`studio.getWorkflow`,
 * `GET /automation-studio/automations/:id`): every member the service sets is present, each task has
 * a name, transitions hold only the states and types of the engine. Members beyond those named are
 * kept as submitted.
 */
export const workflowDocumentSchema = withId(
  'nap:schemas/workflow-document',
  open(storedWorkflowProperties(), [
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
);
/** A workflow document as the studio service stores and answers it: every member it sets is present. */
export type StoredWorkflowDocument = Static<typeof workflowDocumentSchema>;

/**
 * A workflow-shaped value: the members of {@link StoredWorkflowDocument}, of which only `_id`,
 * `name`, `tasks` and `transitions` are required, so that other code can build workflows (tests, the
 * engine's copies). Every stored workflow is one.
 */
export type WorkflowDocument = OpenStatic<ReturnType<typeof storedWorkflowProperties>, '_id' | 'name' | 'tasks' | 'transitions'>;

/**
 * A workflow document as a client submits it: a name is required; the shape of the graph is checked
 * here, its meaning (known tasks, reachable tasks, states and types) by the service, which answers
 * 400 `WORKFLOW_INVALID` naming each problem.
 */
export const workflowInputSchema = withId('nap:schemas/workflow-input', open(submittedWorkflowProperties(), ['name']));
/** A workflow as a client submits it: a name and the graph; `_id` and the audit fields are the service's. */
export type WorkflowInput = Static<typeof workflowInputSchema>;

/** One problem or warning about a workflow. */
export const workflowProblemSchema = withId(
  'nap:schemas/workflow-problem',
  obj(
    {
      code: str({ description: 'kind of problem, for example TRANSITION_TO_UNKNOWN_TASK or TASK_WITHOUT_ERROR_TRANSITION' }),
      member: str({ description: 'dotted path inside the workflow' }),
      message: str(),
      task: str({ description: 'task id' }),
      transition: obj({ from: str(), to: str() }, ['from', 'to']),
    },
    ['code', 'member', 'message'],
  ),
);
/**
 * One problem (or warning) found in a workflow. `member` is the dotted path inside the workflow
 * (`transitions.6f52.2cd3.state`); `task` and `transition` name the parts of the graph involved.
 */
export type WorkflowProblem = Static<typeof workflowProblemSchema>;

/** `{ status, message, data: <stored workflow>, warnings }`; `status` is the given constant. */
export function workflowSaveResultSchema<const S extends string>(id: string, status: S) {
  return withId(
    id,
    obj(
      {
        status: literal(status),
        message: str(),
        data: embed(workflowDocumentSchema),
        warnings: arr(embed(workflowProblemSchema), {
          description: 'legal but risky: a task without an error transition, an unreachable workflow_end, …',
        }),
      },
      ['status', 'message', 'data', 'warnings'],
    ),
  );
}
/** Answer of a workflow creation or replacement: the stored workflow and the risky-but-legal findings. */
export type WorkflowSaveResult = Static<ReturnType<typeof workflowSaveResultSchema>>;
