import type { JsonSchema } from '../catalog/types';
import { arr, bool, embed, epochMs, int, mapOf, nullable, num, obj, str, strings, timestamp } from './common';

/** Statuses of a job. `paused` jobs start no task until resumed; the last three are final. */
export const JOB_STATUSES = ['running', 'paused', 'complete', 'error', 'canceled'] as const;
/** One of {@link JOB_STATUSES}. */
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * Statuses of a task of a job: `incomplete` (not reached), `pending` (reached, waiting for the other
 * branches of a join), `running` (in flight, or a manual task or child job waiting), `complete`
 * (finished with finish_state success or failure), `error`, `canceled`.
 */
export const TASK_STATUSES = ['incomplete', 'pending', 'running', 'complete', 'error', 'canceled'] as const;
/** One of {@link TASK_STATUSES}. */
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Finish states of a task (`metrics.finish_state`): the state of the transitions it takes. */
export const FINISH_STATES = ['success', 'failure', 'error', 'canceled'] as const;
/** One of {@link FINISH_STATES}. */
export type FinishState = (typeof FINISH_STATES)[number];

/** Metrics of a job or a task. Times are epoch milliseconds. */
export interface Metrics {
  owner?: string;
  start_time?: number;
  end_time?: number;
  run_time?: number;
  /** Absent in job lists. */
  claim_time?: number;
  /** Values that occur: success, error, failure, complete, canceled. */
  finish_state?: string;
  server_id?: string;
  app?: { id?: string; version?: string };
}

/** Retry settings of a task. */
export interface RetrySettings {
  /** Finish states that trigger a retry; values that occur: success, failure, error. */
  state?: string[];
  autoRetry?: boolean;
  limit?: number;
  delay?: number;
  count?: number;
}

/** One entry of a job's `error` array. */
export interface JobErrorEntry {
  task: string;
  message: string;
  /** Epoch milliseconds. */
  timestamp: number;
}

/** A decorator of a job or task: `{ type: 'encryption', pointer: '/variables/password' }`. */
export interface Decorator {
  type: string;
  pointer: string;
}

/** A task of a job (member of `tasks`). */
export interface Task {
  name?: string;
  summary?: string;
  description?: string;
  displayName?: string;
  app?: string;
  type?: string;
  x?: number;
  y?: number;
  status?: string;
  groups?: string[];
  metrics?: Metrics;
  canvasName?: string;
  canvasTab?: string;
  sla?: number;
  view?: string;
  deprecated?: boolean;
  scheduled?: boolean;
  iterations?: string[];
  /** `resolved` holds the incoming values a manual task was shown (references resolved). */
  variables?: { incoming?: Record<string, unknown>; outgoing?: Record<string, unknown>; error?: string; decorators?: Decorator[]; resolved?: Record<string, unknown> };
  childJobs?: { _id: string; name?: string; iteration?: number }[];
  retrySettings?: RetrySettings;
  [member: string]: unknown;
}

/** The job document (jobsDocument). */
export interface JobDocument {
  _id: string;
  name: string;
  /** Task id to task; `workflow_start`, `workflow_end` and `error_handler` occur next to other ids. */
  tasks: Record<string, Task>;
  /** From-task id to to-task id to `{ type, state }`. */
  transitions?: Record<string, Record<string, { type?: string; state?: string }>>;
  font_size?: number;
  created?: string;
  created_by?: string;
  last_updated?: string;
  last_updated_by?: string;
  groups?: string[];
  type?: string;
  watchers?: string[];
  metrics?: Metrics;
  /** Values that occur: canceled, complete, running. */
  status: string;
  lastUpdatedVersion?: string;
  canvasVersion?: number;
  decorators?: Decorator[];
  ancestors?: string[];
  preAutomationTime?: number;
  error?: JobErrorEntry[];
  [member: string]: unknown;
}

/** Job page of `GET /operations-manager/jobs` (operation 4). */
export interface JobPage {
  items: Record<string, unknown>[];
  total: number;
  currentPageSize: number;
  hints: string[];
  skip: number;
  limit: number;
  /** Null on the last page. */
  nextPageSkip: number | null;
  /** Null on the first page. */
  previousPageSkip: number | null;
}

/** Job list of `getJobList` (operation 18). */
export interface JobList {
  results: JobDocument[];
  skip: number;
  limit: number;
  total: number;
}

/** The envelope of `GET /operations-manager/jobs/:jobId` (an addition). */
export interface JobEnvelope {
  message: 'Successfully retrieved item';
  data: JobDocument;
  metadata: Record<string, unknown>;
}

/** Metrics of a job or task. */
export const metricsSchema: JsonSchema = {
  $id: 'nap:schemas/metrics',
  ...obj({
    owner: str(),
    start_time: epochMs(),
    end_time: epochMs(),
    run_time: int({ description: 'milliseconds' }),
    claim_time: epochMs('epoch milliseconds; absent in job lists'),
    finish_state: str({ description: 'values that occur: success, error, failure, complete, canceled' }),
    server_id: str(),
    app: obj({ id: str(), version: str() }),
  }),
};

/** Retry settings of a task. */
export const retrySettingsSchema: JsonSchema = {
  $id: 'nap:schemas/retry-settings',
  ...obj({
    state: strings({ description: 'finish states that trigger a retry; values that occur: success, failure, error' }),
    autoRetry: bool(),
    limit: int({ minimum: 0 }),
    delay: int({ minimum: 0 }),
    count: int({ minimum: 0 }),
  }),
};

/** Entry of a job's `error` array. */
export const jobErrorEntrySchema: JsonSchema = {
  $id: 'nap:schemas/job-error-entry',
  ...obj({ task: str(), message: str(), timestamp: epochMs() }, ['task', 'message', 'timestamp']),
};

function decoratorSchema(): JsonSchema {
  return obj({ type: str({ description: 'value encryption in examples' }), pointer: str({ description: 'JSON pointer, for example /variables/password' }) }, ['type', 'pointer']);
}

function taskProperties(shallow: boolean): Record<string, JsonSchema> {
  const variables = shallow
    ? obj(
        { decorators: arr(decoratorSchema()) },
        [],
        { not: { anyOf: [{ required: ['incoming'] }, { required: ['outgoing'] }, { required: ['error'] }] }, description: 'shallow data: no incoming arguments, returned data or error' },
      )
    : obj({ incoming: { type: 'object' }, outgoing: { type: 'object' }, error: str(), decorators: arr(decoratorSchema()) });
  return {
    name: str(),
    summary: str(),
    description: str(),
    displayName: str(),
    ...(shallow ? {} : { app: str({ description: 'application that runs the task' }) }),
    type: str({ description: 'value automated in examples' }),
    x: num(),
    y: num(),
    status: str({ description: 'value complete in examples' }),
    groups: strings(),
    metrics: embed(metricsSchema),
    canvasName: str(),
    canvasTab: str(),
    sla: int(),
    view: str(),
    deprecated: bool(),
    scheduled: bool(),
    iterations: strings(),
    variables,
    childJobs: arr(obj({ _id: str(), name: str(), iteration: int() }, ['_id'])),
    retrySettings: embed(retrySettingsSchema),
  };
}

/** A task of a job document. */
export const taskSchema: JsonSchema = { $id: 'nap:schemas/task', ...obj(taskProperties(false)) };

/** A task of a shallow job: no `app`, and no incoming arguments, returned data or error in `variables`. */
export const shallowTaskSchema: JsonSchema = {
  $id: 'nap:schemas/shallow-task',
  ...obj(taskProperties(true), [], { not: { required: ['app'] } }),
};

function jobProperties(task: JsonSchema): Record<string, JsonSchema> {
  return {
    _id: str({ description: 'job id' }),
    name: str(),
    tasks: mapOf(task, { description: 'task id to task; workflow_start, workflow_end and error_handler occur next to other ids' }),
    transitions: mapOf(mapOf(obj({ type: str(), state: str() })), { description: 'from-task id to to-task id to { type, state }' }),
    font_size: int(),
    created: timestamp(),
    created_by: str(),
    last_updated: timestamp(),
    last_updated_by: str(),
    groups: strings(),
    type: str({ description: 'value automation in examples' }),
    watchers: strings(),
    metrics: embed(metricsSchema),
    status: str({ description: 'values that occur: canceled, complete, running' }),
    lastUpdatedVersion: str(),
    canvasVersion: int(),
    decorators: arr(decoratorSchema()),
    ancestors: strings(),
    preAutomationTime: int(),
    error: arr(embed(jobErrorEntrySchema)),
  };
}

/** The job document (jobsDocument). Extra members are accepted: the schema documents, it does not forbid. */
export const jobDocumentSchema: JsonSchema = {
  $id: 'nap:schemas/job-document',
  ...obj(jobProperties(embed(taskSchema)), ['_id', 'name', 'tasks', 'status']),
};

/** The shallow job data of `getJobShallow` (operation 16). */
export const shallowJobDocumentSchema: JsonSchema = {
  $id: 'nap:schemas/shallow-job-document',
  ...obj(jobProperties(embed(shallowTaskSchema)), ['_id', 'name', 'tasks', 'status']),
};

/** Job page of `GET /operations-manager/jobs`. */
export const jobPageSchema: JsonSchema = {
  $id: 'nap:schemas/job-page',
  ...obj(
    {
      items: arr({ type: 'object' }, { description: 'job-api items' }),
      total: int({ minimum: 0 }),
      currentPageSize: int({ minimum: 0 }),
      hints: strings({ description: 'context-sensitive messages, for example that limit was clamped' }),
      skip: int({ minimum: 0 }),
      limit: int({ minimum: 0 }),
      nextPageSkip: nullable(int({ minimum: 0, description: 'skip of the next page; null on the last page' })),
      previousPageSkip: nullable(int({ minimum: 0, description: 'skip of the previous page; null on the first page' })),
    },
    ['items', 'total', 'currentPageSize', 'hints', 'skip', 'limit'],
  ),
};

/** Job list of `getJobList` (operation 18). */
export const jobListSchema: JsonSchema = {
  $id: 'nap:schemas/job-list',
  ...obj(
    { results: arr(embed(jobDocumentSchema)), skip: int({ minimum: 0 }), limit: int({ minimum: 0 }), total: int({ minimum: 0 }) },
    ['results', 'skip', 'limit', 'total'],
  ),
};

/** `{ message, data, metadata }` envelope of `GET /operations-manager/jobs/:jobId`. */
export const jobEnvelopeSchema: JsonSchema = {
  $id: 'nap:schemas/job-envelope',
  ...obj({ message: { const: 'Successfully retrieved item' }, data: embed(jobDocumentSchema), metadata: { type: 'object' } }, ['message', 'data', 'metadata']),
};

/** Outcome of `POST /operations-manager/jobs/cancel`, one entry per job id. */
export interface CancelJobsResult {
  results: { jobId: string; success: boolean; message: string }[];
}

/** Outcome of `POST /operations-manager/jobs/cancel`. */
export const cancelJobsResultSchema: JsonSchema = {
  $id: 'nap:schemas/cancel-jobs-result',
  ...obj({ results: arr(obj({ jobId: str(), success: bool(), message: str() }, ['jobId', 'success', 'message'])) }, ['results']),
};

/** Body of `POST /workflow_engine/startJobWithOptions/:workflow` (operation 17). */
export interface StartJobWithOptionsBody {
  options: { description?: string; type?: string; variables?: Record<string, unknown>; groups?: string[]; [member: string]: unknown };
}

/** Body of `POST /workflow_engine/getJobList/:status` (operation 18). */
export interface GetJobListBody {
  options: {
    filter?: Record<string, unknown>;
    page?: { skip?: number; limit?: number };
    sort?: { field?: string; direction?: 1 | -1 };
    [member: string]: unknown;
  };
}

/** Body of `POST /workflow_engine/jobs/:jobId/retryTask` (operation 15). */
export interface RetryTaskBody {
  taskId: string;
  variables: Record<string, { value: unknown; [member: string]: unknown }>;
}

/** Body of operation 17: only `options`, whose members the spec lists (other members pass to the engine). */
export const startJobWithOptionsBodySchema: JsonSchema = {
  $id: 'nap:schemas/start-job-with-options-body',
  type: 'object',
  properties: {
    options: obj({
      description: str(),
      type: str({ description: 'example Automation' }),
      variables: { type: 'object', description: 'job variables; structure not shown by the spec' },
      groups: strings({ description: 'group ids' }),
    }),
  },
  required: ['options'],
  additionalProperties: false,
};

/** Body of operation 18: only `options`; the example members are typed, others pass through. */
export const getJobListBodySchema: JsonSchema = {
  $id: 'nap:schemas/get-job-list-body',
  type: 'object',
  properties: {
    options: obj({
      filter: { type: 'object', description: 'field to value, for example { name }' },
      page: obj({ skip: int({ minimum: 0 }), limit: int({ minimum: 0 }) }),
      sort: obj({ field: str(), direction: { type: 'integer', enum: [1, -1] } }),
    }),
  },
  required: ['options'],
  additionalProperties: false,
};

/** Body of operation 15: `taskId` and `variables` (each variable an object with a required `value`), nothing else. */
export const retryTaskBodySchema: JsonSchema = {
  $id: 'nap:schemas/retry-task-body',
  type: 'object',
  properties: {
    taskId: { type: 'string', minLength: 1, description: 'a workflow task id' },
    variables: mapOf(obj({ value: { description: 'replacement value, any JSON type' } }, ['value']), {
      description: 'variable name to { value }',
    }),
  },
  required: ['taskId', 'variables'],
  additionalProperties: false,
};
