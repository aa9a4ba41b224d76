import type { Static } from '@sinclair/typebox';
import { arr, bool, closed, embed, epochMs, int, literal, name, num, obj, open, resultsOf, str, strings, withId } from './common';
import { automationDocumentSchema } from './automation';
import { envelopeOf, envelopePageOf } from './envelope';
import { jobDocumentSchema, metricsSchema, startJobWithOptionsBodySchema } from './job';

/**
 * The workflow engine's operator routes (workers, metrics), the task list of the operations
 * manager, `POST /operations-manager/jobs/start` and the automations in the envelope.
 */

/** The two workers of an engine replica: the job worker claims jobs, the task worker starts tasks. */
export const WORKER_KINDS = ['jobWorker', 'taskWorker'] as const;
/** One of {@link WORKER_KINDS}. */
export type WorkerKind = (typeof WORKER_KINDS)[number];

/** One engine replica as its heartbeat says. */
function replicaStatus() {
  return obj(
    {
      serverId: str({ description: 'the engine replica (metrics.server_id of its jobs)' }),
      jobWorker: bool({ description: 'true: this replica claims new jobs' }),
      taskWorker: bool({ description: 'true: this replica starts tasks' }),
      jobs: int({ minimum: 0, description: 'jobs this replica drives now' }),
      lastSeen: epochMs("the replica's last heartbeat"),
    },
    ['serverId', 'jobWorker', 'taskWorker', 'jobs', 'lastSeen'],
  );
}

/** `GET /workflow_engine/workers/status` and the answer of the activate/deactivate routes. */
export const workersStatusSchema = withId(
  'nap:schemas/workers-status',
  obj(
    {
      jobWorker: obj({ active: bool({ description: 'the platform-wide setting: replicas claim new jobs' }) }, ['active']),
      taskWorker: obj({ active: bool({ description: 'the platform-wide setting: replicas start tasks' }) }, ['active']),
      replicas: arr(replicaStatus(), { description: 'engine replicas with a heartbeat within the lease time' }),
    },
    ['jobWorker', 'taskWorker', 'replicas'],
  ),
);
/** Status of the workers of every engine replica. */
export type WorkersStatus = Static<typeof workersStatusSchema>;

function durations() {
  return {
    totalRunTime: num({ minimum: 0, description: 'milliseconds, summed over the finished ones' }),
    averageRunTime: num({ minimum: 0, description: 'milliseconds, over the finished ones' }),
    minRunTime: num({ minimum: 0, description: 'milliseconds' }),
    maxRunTime: num({ minimum: 0, description: 'milliseconds' }),
  };
}

/** Counts and durations of the jobs of one workflow. */
export const jobMetricSchema = withId(
  'nap:schemas/job-metric',
  obj(
    {
      _id: str({ description: 'the workflow name' }),
      workflow: str(),
      jobsTotal: int({ minimum: 0 }),
      jobsRunning: int({ minimum: 0 }),
      jobsPaused: int({ minimum: 0 }),
      jobsComplete: int({ minimum: 0 }),
      jobsError: int({ minimum: 0 }),
      jobsCanceled: int({ minimum: 0 }),
      ...durations(),
      lastStarted: epochMs(),
    },
    [
      '_id',
      'workflow',
      'jobsTotal',
      'jobsRunning',
      'jobsPaused',
      'jobsComplete',
      'jobsError',
      'jobsCanceled',
      'totalRunTime',
      'averageRunTime',
    ],
  ),
);
/** Counts and durations of the jobs of one workflow. */
export type JobMetric = Static<typeof jobMetricSchema>;

/** Counts and durations of one task of one workflow. */
export const taskMetricSchema = withId(
  'nap:schemas/task-metric',
  obj(
    {
      _id: str({ description: '<workflow>/<taskId>' }),
      workflow: str(),
      taskId: str(),
      name: str(),
      app: str(),
      taskType: str({ description: 'automatic, operation or manual' }),
      metrics: obj(
        {
          runs: int({ minimum: 0, description: 'times the task ran (finished or running)' }),
          running: int({ minimum: 0 }),
          success: int({ minimum: 0 }),
          failure: int({ minimum: 0 }),
          error: int({ minimum: 0 }),
          canceled: int({ minimum: 0 }),
          ...durations(),
        },
        ['runs', 'running', 'success', 'failure', 'error', 'canceled', 'totalRunTime', 'averageRunTime'],
      ),
    },
    ['_id', 'workflow', 'taskId', 'name', 'app', 'taskType', 'metrics'],
  ),
);
/** Counts and durations of one task of one workflow. */
export type TaskMetric = Static<typeof taskMetricSchema>;

/** `{ results, total }` of the job metrics. */
export const jobMetricsSchema = withId('nap:schemas/job-metrics', resultsOf(embed(jobMetricSchema)));
/** `{ results, total }` of the task metrics. */
export const taskMetricsSchema = withId('nap:schemas/task-metrics', resultsOf(embed(taskMetricSchema)));

/** A task of a job as `GET /operations-manager/tasks` lists it. */
export const jobTaskItemSchema = withId(
  'nap:schemas/job-task-item',
  open(
    {
      _id: str({ description: '<jobId>:<taskId>' }),
      id: str({ description: 'the task id within the job' }),
      name: str(),
      summary: str(),
      app: str(),
      type: str(),
      status: str(),
      metrics: embed(metricsSchema),
      job: obj({ _id: str(), name: str(), status: str() }, ['_id', 'name', 'status']),
    },
    ['_id'],
  ),
);
/** A task of a job in the task list (with `include`, only the members asked for and `_id`). */
export type JobTaskItem = Static<typeof jobTaskItemSchema>;

/**
 * `{ message, data, metadata }` page of tasks; the metadata also says how many jobs were searched
 * and whether the search stopped at its window of recent jobs (`bounded`).
 */
export const jobTaskPageSchema = envelopePageOf('nap:schemas/job-task-page', embed(jobTaskItemSchema), {
  searchedJobs: int({ minimum: 0, description: 'jobs whose tasks were searched' }),
  bounded: bool({
    description:
      'true when the search stopped at its window of the 2,000 most recently started jobs that match the job members of the query, ' +
      'and older matching jobs exist: their tasks are in neither data nor total. Constrain job.status to running/paused, or job._id, to search every job',
  }),
  hints: strings({ description: 'what the service changed or could not do (a limit clamped, the window reached)' }),
});

/** Body of `POST /operations-manager/jobs/start`: the workflow by name and the options of startJobWithOptions. */
export const startJobBodySchema = withId(
  'nap:schemas/start-job-body',
  closed({ workflow: name('name of the workflow'), options: embed(startJobWithOptionsBodySchema).properties.options }, ['workflow']),
);
/** Body of `POST /operations-manager/jobs/start`. */
export type StartJobBody = Static<typeof startJobBodySchema>;

/** `{ message, data: job, metadata }`: a job started by a trigger or by `POST /operations-manager/jobs/start`. */
export const startedJobEnvelopeSchema = envelopeOf('nap:schemas/started-job-envelope', embed(jobDocumentSchema));

/** An automation in the envelope. */
export const automationEnvelopeSchema = envelopeOf('nap:schemas/automation-envelope', embed(automationDocumentSchema));
/** A page of automations in the envelope. */
export const automationPageSchema = envelopePageOf('nap:schemas/automation-page', embed(automationDocumentSchema));

/** The filter of the platform-wide job event stream, as the workflow service normalized it. */
export const eventStreamFilterSchema = withId(
  'nap:schemas/event-stream-filter',
  obj(
    {
      workflows: strings({ description: 'workflow (job) names; empty: every workflow' }),
      events: strings({ description: 'job event names; empty: every job event' }),
      allJobs: bool({ description: 'true when the caller may see every job (no per-job check needed)' }),
    },
    ['workflows', 'events', 'allJobs'],
  ),
);
/** The filter of `GET /operations-manager/events`. */
export type EventStreamFilter = Static<typeof eventStreamFilterSchema>;

/** Body of the bus-only `workflow.jobAudiences`: the jobs whose audience is asked for. */
export const jobIdsSchema = withId('nap:schemas/job-ids', closed({ jobIds: arr(name(), { maxItems: 500 }) }, ['jobIds']));

/** Who may see one job: see {@link audienceAdmits}. */
export const jobAudienceSchema = withId(
  'nap:schemas/job-audience',
  closed(
    {
      jobId: name(),
      groups: strings({ description: "the job's groups; empty: every caller who may read jobs sees it" }),
      owner: str({ description: 'username of the person who started the job (metrics.owner): sees it whatever its groups' }),
      runAsId: str({ description: 'id of the caller the job acts as (runAs.id): sees it whatever its groups' }),
    },
    ['jobId', 'groups'],
  ),
);
/** Who may see a job. */
export type JobAudience = Static<typeof jobAudienceSchema>;

/** Answer of the bus-only `workflow.jobAudiences`: one audience per job that exists, in no particular order. */
export const jobAudiencesSchema = withId(
  'nap:schemas/job-audiences',
  closed({ jobs: arr(embed(jobAudienceSchema), { maxItems: 500 }) }, ['jobs']),
);

/** An acknowledgement that also says what the operation left behind. */
export const workersChangeSchema = withId(
  'nap:schemas/workers-change',
  obj({ status: literal('success'), message: str(), data: embed(workersStatusSchema) }, ['status', 'message', 'data']),
);
