import type { Static, TSchema } from '@sinclair/typebox';
import {
  Type,
  anyObject,
  anyValue,
  arr,
  bool,
  closed,
  embed,
  epochMs,
  int,
  literal,
  mapOf,
  name,
  nullable,
  num,
  obj,
  open,
  str,
  strings,
  timestamp,
  withId,
} from './common';
import { MAX_SKIP } from './query';

/** Most groups a job is given at its start (`options.groups`): each is looked up among the platform's groups. */
export const MAX_JOB_GROUPS = 1000;

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

/** Metrics of a job or task. Times are epoch milliseconds. */
export const metricsSchema = withId(
  'nap:schemas/metrics',
  obj({
    owner: str(),
    start_time: epochMs(),
    end_time: epochMs(),
    run_time: int({ description: 'milliseconds' }),
    claim_time: epochMs('epoch milliseconds; absent in job lists'),
    finish_state: str({ description: 'values that occur: success, error, failure, complete, canceled' }),
    user: str({
      description: 'a finished manual task: the username of who answered it (their answer is finish_state; end_time is when they answered)',
    }),
    server_id: str(),
    app: obj({ id: str(), version: str() }),
  }),
);
/** Metrics of a job or a task. */
export type Metrics = Static<typeof metricsSchema>;

/** Retry settings of a task. */
export const retrySettingsSchema = withId(
  'nap:schemas/retry-settings',
  obj({
    state: strings({ description: 'finish states that trigger a retry; values that occur: success, failure, error' }),
    autoRetry: bool(),
    limit: int({ minimum: 0 }),
    delay: int({ minimum: 0 }),
    count: int({ minimum: 0 }),
  }),
);
/** Retry settings of a task. */
export type RetrySettings = Static<typeof retrySettingsSchema>;

/** How many retries by hand a task keeps in `retries`: the most recent ones. */
export const MAX_TASK_RETRIES_KEPT = 10;
/** The longest previous error a retry entry keeps, in characters (an adapter's error can be a page long). */
export const MAX_TASK_RETRY_ERROR_CHARS = 500;

/**
 * A retry by hand of a task (`POST /workflow_engine/jobs/:jobId/retryTask`), as the task keeps it:
 * who retried it and when, how the task had ended before, and the names of the incoming variables
 * the retry changed. Values are not kept (the task's incoming holds the new ones), so no secret is.
 */
export const taskRetrySchema = withId(
  'nap:schemas/task-retry',
  obj(
    {
      number: int({ minimum: 1, description: "this retry's place among the task's retries by hand, from 1 (older entries may be gone)" }),
      by: str({ description: 'username of who retried the task' }),
      at: epochMs('when the task was retried, epoch milliseconds'),
      finish_state: str({ description: 'how the task had finished before the retry: error, failure or canceled' }),
      error: str({
        description: `why it had failed: the task's error, else the job's error entry for it; at most ${MAX_TASK_RETRY_ERROR_CHARS} characters, secret values of its variables masked`,
      }),
      variables: strings({ description: 'names of the incoming variables the retry gave another value (names only, never values)' }),
    },
    ['number', 'by', 'at', 'variables'],
  ),
);
/** One retry by hand of a task (member of a task's `retries`). */
export type TaskRetry = Static<typeof taskRetrySchema>;

/** Entry of a job's `error` array. */
export const jobErrorEntrySchema = withId(
  'nap:schemas/job-error-entry',
  obj({ task: str(), message: str(), timestamp: epochMs() }, ['task', 'message', 'timestamp']),
);
/** One entry of a job's `error` array. */
export type JobErrorEntry = Static<typeof jobErrorEntrySchema>;

function decoratorSchema() {
  return obj(
    {
      type: str({ description: 'value encryption in examples' }),
      pointer: str({ description: 'JSON pointer, for example /variables/password' }),
    },
    ['type', 'pointer'],
  );
}
/** A decorator of a job or task: `{ type: 'encryption', pointer: '/variables/password' }`. */
export type Decorator = Static<ReturnType<typeof decoratorSchema>>;

function commonTaskProperties() {
  return {
    name: str(),
    summary: str(),
    description: str(),
    displayName: str(),
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
    childJobs: arr(obj({ _id: str(), name: str(), iteration: int() }, ['_id'])),
    retrySettings: nullable(embed(retrySettingsSchema)),
    retries: arr(embed(taskRetrySchema), {
      maxItems: MAX_TASK_RETRIES_KEPT,
      description: `retries by hand of the task, oldest first: the last ${MAX_TASK_RETRIES_KEPT} (number counts them all); absent until one`,
    }),
  };
}

/** A task of a job document. `variables.resolved` holds the incoming values a manual task was shown. */
export const taskSchema = withId(
  'nap:schemas/task',
  open({
    ...commonTaskProperties(),
    app: str({ description: 'application that runs the task' }),
    variables: obj({
      incoming: anyObject(),
      outgoing: anyObject(),
      error: str(),
      decorators: arr(decoratorSchema()),
      resolved: anyObject('the incoming values a manual task was shown (references resolved)'),
    }),
  }),
);
/** A task of a job (member of `tasks`). */
export type Task = Static<typeof taskSchema>;

/** A task of a shallow job: no `app`, and no incoming arguments, returned data or error in `variables`. */
export const shallowTaskSchema = withId(
  'nap:schemas/shallow-task',
  open(
    {
      ...commonTaskProperties(),
      variables: obj({ decorators: arr(decoratorSchema()) }, [], {
        not: { anyOf: [{ required: ['incoming'] }, { required: ['outgoing'] }, { required: ['error'] }] },
        description: 'shallow data: no incoming arguments, returned data or error',
      }),
    },
    [],
    { not: { required: ['app'] } },
  ),
);

function jobProperties<T extends TSchema>(task: T) {
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
    trigger: obj(
      {
        _id: str({ description: 'trigger id' }),
        name: str(),
        type: str({ description: 'endpoint, manual, schedule or eventSystem' }),
        automationId: str({ description: 'the automation the trigger starts' }),
        due: int({ description: 'schedule: the due time the job was started for, epoch milliseconds' }),
      },
      ['_id', 'name', 'type', 'automationId'],
      { description: 'the trigger that started the job; absent when a person, a script or a parent job started it' },
    ),
  };
}

/** The job document (jobsDocument). Extra members are accepted: the schema documents, it does not forbid. */
export const jobDocumentSchema = withId(
  'nap:schemas/job-document',
  open(jobProperties(embed(taskSchema)), ['_id', 'name', 'tasks', 'status']),
);
/** The job document (jobsDocument). */
export type JobDocument = Static<typeof jobDocumentSchema>;

/** The shallow job data of `GET /workflow_engine/getJobShallow/:job_data`. */
export const shallowJobDocumentSchema = withId(
  'nap:schemas/shallow-job-document',
  open(jobProperties(embed(shallowTaskSchema)), ['_id', 'name', 'tasks', 'status']),
);

/** Job page of `GET /operations-manager/jobs`. */
export const jobPageSchema = withId(
  'nap:schemas/job-page',
  obj(
    {
      items: arr(anyObject(), { description: 'job-api items' }),
      total: int({ minimum: 0, description: 'jobs that match, counted up to a limit (see totalExact)' }),
      totalExact: bool({
        description: 'false when the count stopped at its limit (10,000 past skip): total is then a lower bound',
      }),
      currentPageSize: int({ minimum: 0 }),
      hints: strings({ description: 'context-sensitive messages, for example that limit was clamped' }),
      skip: int({ minimum: 0 }),
      limit: int({ minimum: 0 }),
      nextPageSkip: int({ minimum: 0, description: 'skip of the next page; left out on the last page' }),
      previousPageSkip: int({ minimum: 0, description: 'skip of the previous page; left out on the first page' }),
      nextPageAfter: nullable(
        str({
          description:
            'after of the next page (keyset paging, the same cost at any depth); null on the last page, and when the sort field holds values other than text or numbers (then page with skip)',
        }),
      ),
    },
    ['items', 'total', 'currentPageSize', 'hints', 'skip', 'limit'],
  ),
);
/** Job page of `GET /operations-manager/jobs`. */
export type JobPage = Static<typeof jobPageSchema>;

/** Job list of `POST /workflow_engine/getJobList/:status`. */
export const jobListSchema = withId(
  'nap:schemas/job-list',
  obj(
    {
      results: arr(embed(jobDocumentSchema)),
      skip: int({ minimum: 0 }),
      limit: int({ minimum: 0 }),
      total: int({ minimum: 0, description: 'jobs that match, counted up to a limit (see totalExact)' }),
      totalExact: bool({ description: 'false when the count stopped at its limit (10,000 past skip): total is then a lower bound' }),
      nextPageAfter: nullable(str({ description: 'page.after of the next page (keyset paging); null on the last page' })),
    },
    ['results', 'skip', 'limit', 'total'],
  ),
);
/** Job list of `POST /workflow_engine/getJobList/:status`. */
export type JobList = Static<typeof jobListSchema>;

/** `{ message, data, metadata }` envelope of `GET /operations-manager/jobs/:jobId`. */
export const jobEnvelopeSchema = withId(
  'nap:schemas/job-envelope',
  obj({ message: literal('Successfully retrieved item'), data: embed(jobDocumentSchema), metadata: anyObject() }, [
    'message',
    'data',
    'metadata',
  ]),
);
/** The envelope of `GET /operations-manager/jobs/:jobId` (an addition). */
export type JobEnvelope = Static<typeof jobEnvelopeSchema>;

/** Outcome of `POST /operations-manager/jobs/cancel`, one entry per job id. */
export const cancelJobsResultSchema = withId(
  'nap:schemas/cancel-jobs-result',
  obj({ results: arr(obj({ jobId: str(), success: bool(), message: str() }, ['jobId', 'success', 'message'])) }, ['results']),
);
/** Outcome of `POST /operations-manager/jobs/cancel`. */
export type CancelJobsResult = Static<typeof cancelJobsResultSchema>;

/**
 * Body of `POST /workflow_engine/startJobWithOptions/:workflow`: only `options`, whose members the spec lists; other members are
 * ignored by the engine, and one that misspells a listed member is refused by the workflow service (`varibles`).
 */
export const startJobWithOptionsBodySchema = withId(
  'nap:schemas/start-job-with-options-body',
  closed(
    {
      options: open({
        description: str(),
        type: str({ description: 'example Automation' }),
        variables: anyObject('job variables; structure not shown by the spec'),
        groups: strings({ maxItems: MAX_JOB_GROUPS, description: 'group ids' }),
        pinned: mapOf(anyObject("the task's outgoing variables, for example { result: {...} }"), {
          description:
            'pinned task outputs, keyed by task id or by app.method: a pinned task returns its pin without calling anything (also in child jobs), and the job records it',
        }),
      }),
    },
    ['options'],
  ),
);
/** Body of `POST /workflow_engine/startJobWithOptions/:workflow`. */
export type StartJobWithOptionsBody = Static<typeof startJobWithOptionsBodySchema>;

/** Body of `POST /workflow_engine/getJobList/:status`: only `options`; the example members are typed, others pass through. */
export const getJobListBodySchema = withId(
  'nap:schemas/get-job-list-body',
  closed(
    {
      options: open({
        filter: anyObject('field to value, for example { name }'),
        page: obj({
          skip: int({ minimum: 0, maximum: MAX_SKIP }),
          limit: int({ minimum: 0 }),
          after: str({ description: 'nextPageAfter of the previous list (same status, filter and sort): keyset paging' }),
        }),
        sort: obj({ field: str(), direction: sortDirection() }),
      }),
    },
    ['options'],
  ),
);
/** Body of `POST /workflow_engine/getJobList/:status`. */
export type GetJobListBody = Static<typeof getJobListBodySchema>;

function sortDirection() {
  return Type.Unsafe<1 | -1>({ type: 'integer', enum: [1, -1] });
}

/** Body of `POST /workflow_engine/jobs/:jobId/retryTask`: `taskId` and `variables` (each variable an object with a required `value`), nothing else. */
export const retryTaskBodySchema = withId(
  'nap:schemas/retry-task-body',
  closed(
    {
      taskId: name('a workflow task id'),
      variables: mapOf(open({ value: anyValue({ description: 'replacement value, any JSON type' }) }, ['value']), {
        description: 'variable name to { value }',
      }),
    },
    ['taskId', 'variables'],
  ),
);
/** Body of `POST /workflow_engine/jobs/:jobId/retryTask`. */
export type RetryTaskBody = Static<typeof retryTaskBodySchema>;
