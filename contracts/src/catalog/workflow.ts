import { ROLE_SETS } from '../roles';
import { anyObject, anyValue, arr, bool, closed, embed, name, obj, str } from '../schemas/common';
import {
  automationEnvelopeSchema,
  automationPageSchema,
  eventStreamFilterSchema,
  jobMetricsSchema,
  jobTaskPageSchema,
  startJobBodySchema,
  startedJobEnvelopeSchema,
  taskMetricsSchema,
  jobAudiencesSchema,
  jobIdsSchema,
  workersChangeSchema,
  workersStatusSchema,
} from '../schemas/engine';
import { envelopeOf } from '../schemas/envelope';
import {
  JOB_ARCHIVE_CONTENT_TYPE,
  archiveJobsBodySchema,
  jobArchiveDownloadQuerySchema,
  jobArchivePageSchema,
  jobArchiveSchema,
} from '../schemas/job-archive';
import {
  automationExportEnvelopeSchema,
  deletedCountSchema,
  triggerEnvelopeSchema,
  triggerImportResultSchema,
  triggerPageSchema,
} from '../schemas/trigger';
import {
  automationDocumentSchema,
  automationImportResultSchema,
  catalogImportResultSchema,
  createAutomationBodySchema,
  createdResultSchema,
  importAutomationsBodySchema,
  importCatalogAutomationsBodySchema,
  updateAutomationBodySchema,
} from '../schemas/automation';
import {
  cancelJobsResultSchema,
  getJobListBodySchema,
  jobDocumentSchema,
  MAX_TASK_RETRIES_KEPT,
  jobEnvelopeSchema,
  jobListSchema,
  jobPageSchema,
  retryTaskBodySchema,
  shallowJobDocumentSchema,
  startJobWithOptionsBodySchema,
} from '../schemas/job';
import { jobQueryParametersSchema, listQuerySchema } from '../schemas/query';
import { TIMEOUTS_MS, defineOperations, noQuery } from './define';

const deleted = (id: string) => envelopeOf(id, embed(deletedCountSchema));
/** Most jobs one `POST /operations-manager/jobs/cancel` cancels (each is a record of the audit trail). */
const MAX_CANCEL_JOBS = 1000;

/** Notes of both start routes on `options.groups`: who sees the job. */
const START_GROUPS_NOTES =
  "options.groups gives the job its groups (who sees its variables and results; left out, the workflow's groups). " +
  'A caller who is not an admin gives only groups it is in (403 GROUP_ACCESS_DENIED, one detail per other group, named body.options.groups[<i>]); ' +
  "its empty list gives the workflow's groups, as leaving groups out does (a job without groups is seen by every caller, and clients send groups: [] on every start). " +
  'An admin gives any groups, an empty list included. A group that does not exist is 400 VALIDATION_FAILED naming its member (body.options.groups[<i>]). Repeated ids count once.';

/**
 * Notes of the job lists on their size: a page reads back at most 4 × NAP_JOB_MAX_VALUE_BYTES of large
 * values (services/workflow README, LIST_VALUE_BYTES_PER_MAX_VALUE of the workflow service).
 */
const PAGE_VALUE_BYTES_NOTE =
  'A page stops early (it holds one job at least) before the job that would take the large values of its jobs ' +
  '(task outputs and variables kept apart from the job document, each reference counted) past 4 × NAP_JOB_MAX_VALUE_BYTES (60 MiB by default): ';

/** Notes shared by the operator routes that switch the engine's workers. */
const WORKER_NOTES =
  'Platform-wide: every engine replica follows the setting within a second (it is kept in the workflow store, so a replica that starts later follows it too). ' +
  'A deactivated job worker claims no new job (jobs started meanwhile wait, unclaimed, and run once a job worker is active); a deactivated task worker starts no task ' +
  '(tasks in flight finish). Use both to drain the engine before maintenance.';

/**
 * Operations of the `workflow` service: the workflow engine (`/workflow_engine/*`), the operations
 * manager (`/operations-manager/*`) and the automation catalog (`/automation_catalog/*`).
 */
export const WORKFLOW_OPERATIONS = defineOperations('workflow', [
  // the spec's POST /automation_catalog/automations/import
  {
    name: 'importCatalogAutomations',
    summary: 'Import automation documents into the automation catalog',
    http: { method: 'POST', path: '/automation_catalog/automations/import' },
    roles: ROLE_SETS.write,
    body: importCatalogAutomationsBodySchema,
    response: catalogImportResultSchema,
    notes:
      'Failures are reported per item (success false, created null); the response status stays success. ' +
      'An item whose repeatInterval is not a count and a unit (1 hour, 2 weeks; units second, minute, hour, day, week, month) fails naming repeatInterval.',
  },
  // the spec's PUT /operations-manager/automations
  {
    name: 'importAutomations',
    summary: 'Import automations into the operations manager',
    http: { method: 'PUT', path: '/operations-manager/automations' },
    roles: ROLE_SETS.write,
    body: importAutomationsBodySchema,
    response: automationImportResultSchema,
    notes:
      'The spec closes options (only adapterMap) but not the top level of this body; other top-level members are accepted. ' +
      "An automation's triggers member (as other platforms export it, and GET …/automations/:id/export) creates its triggers with it, each checked as POST /operations-manager/triggers checks one and started by this automation: " +
      'an automation whose trigger is refused is not imported (its item names the trigger, for example automations[0].triggers[1].routeName), and nothing of it is kept.',
  },
  // the spec's POST /operations-manager/automations
  {
    name: 'createAutomation',
    summary: 'Create an automation',
    http: { method: 'POST', path: '/operations-manager/automations' },
    roles: ['admin', 'apiwrite', 'engineering'],
    body: createAutomationBodySchema,
    response: createdResultSchema('nap:schemas/automation-created', embed(automationDocumentSchema)),
    notes:
      'The spec does not say which automation fields are required; a name is required to create one. A triggers member creates the triggers with it, as PUT /operations-manager/automations does; the answer holds them. ' +
      'gbac { read, write } holds group ids that must exist (404 GROUP_NOT_FOUND otherwise; a gbac that is not such an object is 400 naming it, on import too): ' +
      'an automation whose gbac lists groups is read (get, list, export) by members of its read or write groups and changed (delete, its triggers) by members of its write groups; admins pass (403 GROUP_ACCESS_DENIED otherwise). ' +
      "A name in use is 409 AUTOMATION_ALREADY_EXISTS naming the existing automation's id when the caller may read it.",
  },
  // the spec's GET /operations-manager/jobs
  {
    name: 'getJobs',
    summary: 'Get a page of job documents',
    http: { method: 'GET', path: '/operations-manager/jobs' },
    roles: ['admin', 'engineering', 'apiread', 'operations'],
    query: jobQueryParametersSchema,
    response: jobPageSchema,
    notes:
      'queryParameters arrive as flat query members; operators are bracketed per field (equals[status]=running, in[status]=running,complete). ' +
      'The spec types in, not-in, equals, contains, starts-with, ends-with, gt, gte, lt and lte as strings but does not say which field a plain value applies to ' +
      '(unlike queryOptions, which pairs equals with equalsField): a plain equals=<value> is refused (400 VALIDATION_FAILED naming query.equals), the field goes in the brackets. ' +
      'Default limit 25, at most 500 (a larger limit is clamped and hints says so); sorted by metrics.start_time, newest first, unless sort/order say otherwise; ' +
      'nextPageSkip and previousPageSkip are integers, left out where there is no such page (the last page, the first page). q is a JSON expression {"and":[…]}, {"or":[…]}, {"not":…} or a leaf {"<operator>":{"<field>":value}} ' +
      'with the operators above, or free text searched in name and description. dereference=ancestors,parent replaces job ids by { _id, name, status }. ' +
      'Field names are dotted paths of letters, digits, "_" and "-" (400 JOB_QUERY_INVALID otherwise); values are always data, never operators. ' +
      'Non-admin callers see jobs without groups, jobs of their groups and jobs they started. ' +
      'after=<nextPageAfter of the previous page> pages by keyset (same filters, sort and order): every page costs the same however deep; skip keeps working. ' +
      'total counts matches up to 10,000 past skip; totalExact is false (and hints say so) when the count stopped there. ' +
      PAGE_VALUE_BYTES_NOTE +
      'hints say so, and nextPageSkip (skip + the jobs it holds) and nextPageAfter go on after the last of them. ' +
      'Which index serves which filter and sort: docs/indexes.md.',
  },
  // the spec's POST /workflow_engine/jobs/:jobId/retryTask
  {
    name: 'retryTask',
    summary: 'Retry a task of a job with replacement variables',
    http: { method: 'POST', path: '/workflow_engine/jobs/:jobId/retryTask' },
    roles: ROLE_SETS.run,
    body: retryTaskBodySchema,
    response: jobDocumentSchema,
    notes:
      'Only for a job in status error (409 otherwise): the task runs again with its incoming variables replaced by the given values, and the job goes on from there. ' +
      `The task keeps the retry in its retries (the last ${MAX_TASK_RETRIES_KEPT}, oldest first): number, by, at, the finish_state and error it had, and the names (never the values) of the variables given another value. The job's jobResume event names the task (taskId).`,
  },
  // the spec's GET /workflow_engine/getJobShallow/:job_data
  {
    name: 'getJobShallow',
    summary: 'Get the shallow data of a job',
    http: { method: 'GET', path: '/workflow_engine/getJobShallow/:job_data' },
    roles: ROLE_SETS.read,
    params: { job_data: name('the job id') },
    query: noQuery(),
    response: shallowJobDocumentSchema,
  },
  // the spec's POST /workflow_engine/startJobWithOptions/:workflow
  {
    name: 'startJobWithOptions',
    summary: 'Start a job of a workflow with options',
    http: { method: 'POST', path: '/workflow_engine/startJobWithOptions/:workflow' },
    roles: ROLE_SETS.run,
    params: { workflow: name('name of the workflow') },
    body: startJobWithOptionsBodySchema,
    response: jobDocumentSchema,
    notes:
      'Answers once the job is created and running; it does not wait for the job to finish. ' +
      'A member of options that misspells one the engine reads (varibles, groupz, Description) is refused, 400 VALIDATION_FAILED ' +
      "naming it and the member meant (did you mean 'variables'?); other members are ignored. " +
      START_GROUPS_NOTES,
  },
  // the spec's POST /workflow_engine/getJobList/:status
  {
    name: 'getJobList',
    safe: true,
    summary: 'Get a list of jobs by status',
    http: { method: 'POST', path: '/workflow_engine/getJobList/:status' },
    roles: ROLE_SETS.read,
    params: { status: name('job status, for example running, complete, canceled; "all" for every status') },
    body: getJobListBodySchema,
    response: jobListSchema,
    notes:
      'A read although it is a POST. Allowed values of :status are not shown by the spec; the service answers 400 for an unknown status. ' +
      'options.page.after (nextPageAfter of the previous list) pages by keyset; total counts up to 10,000 past skip (totalExact). ' +
      PAGE_VALUE_BYTES_NOTE +
      'its limit then says how many jobs it holds (skip + limit pages on without a gap), and nextPageAfter goes on after the last of them.',
  },
  // additions
  {
    name: 'getJob',
    summary: 'Get one job document',
    http: { method: 'GET', path: '/operations-manager/jobs/:jobId' },
    roles: ROLE_SETS.read,
    response: jobEnvelopeSchema,
    addition: true,
  },
  {
    name: 'finishTask',
    summary: 'Finish a manual task of a job with the variables a person supplied',
    http: { method: 'POST', path: '/operations-manager/jobs/:jobId/tasks/:taskId/finish' },
    roles: ROLE_SETS.run,
    body: closed({ variables: anyObject('outgoing variables of the task') }, ['variables']),
    response: jobDocumentSchema,
    addition: true,
    notes:
      'The manual-task routes GET /mop/task/<name> show what a person needs to decide; this route finishes the task. ' +
      "variables become the task's outgoing; variables.finish_state (success, the default, or failure) chooses the transitions. 409 when the task is not a manual task waiting. " +
      "Once applied, the task's metrics.user is the caller's username and metrics.end_time the time of the answer (also when another engine applies it); its taskFinish event carries by.",
  },
  {
    name: 'cancelJobs',
    summary: 'Cancel jobs',
    http: { method: 'POST', path: '/operations-manager/jobs/cancel' },
    auditEach: 'jobIds',
    roles: ROLE_SETS.run,
    body: closed({ jobIds: arr(name(), { minItems: 1, maxItems: MAX_CANCEL_JOBS, uniqueItems: true }) }, ['jobIds']),
    response: cancelJobsResultSchema,
    addition: true,
    notes: `Reports per job; a job that is already finished is reported with success false. At most ${MAX_CANCEL_JOBS} jobs a request. The audit trail records one record per job.`,
  },
  {
    name: 'pauseJob',
    summary: 'Pause a running job',
    http: { method: 'POST', path: '/operations-manager/jobs/:jobId/pause' },
    roles: ROLE_SETS.run,
    response: jobDocumentSchema,
    addition: true,
  },
  {
    name: 'resumeJob',
    summary: 'Resume a paused job',
    http: { method: 'POST', path: '/operations-manager/jobs/:jobId/resume' },
    roles: ROLE_SETS.run,
    response: jobDocumentSchema,
    addition: true,
  },
  {
    name: 'watchJobEvents',
    summary: 'Stream the events of a job as server-sent events',
    http: { method: 'GET', path: '/operations-manager/jobs/:jobId/events' },
    roles: ROLE_SETS.read,
    response: jobDocumentSchema,
    contentType: 'text/event-stream',
    addition: true,
    notes:
      'Over the bus this operation answers the current job document after checking that the job exists and the caller may read it; ' +
      'the gateway sends that document as the first event (snapshot), then relays nap.evt.workflow.job.<jobId>.* ' +
      '(event name = the job event, data = its payload) until the job ends or the client leaves. ' +
      'Delivery is at least once: an event the snapshot already reflects (the start of a task it shows running) may follow it. ' +
      'A client that reads too slowly to keep up is sent a retry: line and closed: it reconnects and gets a new snapshot. ' +
      'A stream ends when its caller loses access (logout, a deactivated account, a change of groups or roles; a token is checked again every 60 s); a caller holds at most 100 streams per gateway (429 TOO_MANY_STREAMS beyond).',
  },
  {
    name: 'startJob',
    summary: 'Start a job of a workflow by name, with the options of startJobWithOptions',
    http: { method: 'POST', path: '/operations-manager/jobs/start' },
    roles: ROLE_SETS.run,
    body: startJobBodySchema,
    response: startedJobEnvelopeSchema,
    addition: true,
    notes:
      'Answers { message, data: <the job, status running>, metadata } once the job is created; it does not wait for the job to finish. ' +
      START_GROUPS_NOTES,
  },
  {
    name: 'getTasks',
    summary: 'Get a page of the tasks of jobs',
    http: { method: 'GET', path: '/operations-manager/tasks' },
    roles: ROLE_SETS.read,
    query: jobQueryParametersSchema,
    response: jobTaskPageSchema,
    addition: true,
    notes:
      'The query members of GET /operations-manager/jobs, applied to tasks: fields id, name, summary, app, type, status, metrics.*, job._id, job.name, job.status ' +
      '(equals[status]=running, include=name,status). Items are { _id: <jobId>:<taskId>, id, name, summary, app, type, status, metrics, job: { _id, name, status } }, ' +
      "by default sorted by the task's start time, newest first. When the query requires job.status to be running and/or paused (in[job.status]=running,paused, or the same in q), " +
      'or names job._id, the tasks of every such job are searched, whatever its age. Otherwise the tasks of the 2,000 most recently started jobs that match ' +
      "the query's job members (job._id, job.name, job.status) are searched, and metadata.bounded is true (with a hint) when older matching jobs were left out. " +
      'metadata.searchedJobs counts the jobs searched.',
  },
  // jobs kept and archived on purpose
  {
    name: 'archiveJobs',
    summary: 'Archive finished jobs that ended before a moment',
    http: { method: 'POST', path: '/operations-manager/jobs/archive' },
    auditKind: 'job-archive',
    roles: ROLE_SETS.admin,
    body: archiveJobsBodySchema,
    response: jobArchiveSchema,
    status: 202,
    addition: true,
    notes:
      'Moves finished root jobs (complete, error, canceled; or only those of status) that ended before `before`, each with its child jobs, out of the live job store into an archive: ' +
      'newline-delimited JSON, one job per line (the job as GET /operations-manager/jobs/:jobId shows it, large values included), gzip-compressed. ' +
      'A running or paused job is never archived, nor a root whose child jobs are not all finished. Answers 202 with the archive in state running; ' +
      'any workflow replica finishes it (in batches, resumed after a crash, no job lost or archived twice). Job and task metrics keep counting archived jobs.',
  },
  {
    name: 'getJobArchives',
    summary: 'List the job archives',
    http: { method: 'GET', path: '/operations-manager/jobs/archives' },
    roles: ROLE_SETS.admin,
    query: closed({ ...listQuerySchema.properties }),
    response: jobArchivePageSchema,
    addition: true,
    notes:
      "Archives made on request and by the active profile's retention, newest first. Filter fields: _id, state, origin, requestedBy; sort by createdAt, completedAt, jobs, bytes. Another query member is refused, 400 VALIDATION_FAILED naming it.",
  },
  {
    name: 'getJobArchive',
    summary: 'Download a job archive',
    http: { method: 'GET', path: '/operations-manager/jobs/archives/:archiveId' },
    roles: ROLE_SETS.admin,
    query: jobArchiveDownloadQuerySchema,
    response: str({ description: 'gzip of newline-delimited JSON, one job per line' }),
    contentType: JOB_ARCHIVE_CONTENT_TYPE,
    addition: true,
    notes:
      'An attachment named <archive id>.ndjson.gz (gunzip it, then read one job per line). 409 JOB_ARCHIVE_NOT_READY while the archive is still running; 404 JOB_ARCHIVE_NOT_FOUND for an unknown id; ' +
      '410 JOB_ARCHIVE_DELETED once it was deleted.',
  },
  {
    name: 'deleteJobArchive',
    summary: "Delete a job archive's file",
    http: { method: 'DELETE', path: '/operations-manager/jobs/archives/:archiveId' },
    auditKind: 'job-archive',
    roles: ROLE_SETS.admin,
    response: jobArchiveSchema,
    addition: true,
    notes:
      'Frees the store of a complete archive (download it first: nothing brings it back): its file is deleted, and the archive stays listed in state deleted, ' +
      'with deletedAt and deletedBy, so that the list and the audit trail say where its jobs went. Its jobs still count in the job and task metrics. ' +
      'Deleting a deleted archive answers it again (its file parts left by an interrupted deletion are removed). 409 JOB_ARCHIVE_NOT_READY while the archive is running; ' +
      '404 JOB_ARCHIVE_NOT_FOUND for an unknown id.',
  },
  {
    name: 'getAutomations',
    summary: 'Get a page of automations',
    http: { method: 'GET', path: '/operations-manager/automations' },
    roles: ROLE_SETS.read,
    query: closed({ ...listQuerySchema.properties }),
    response: automationPageSchema,
    addition: true,
    notes:
      'Filter fields: _id, name, description, componentType, componentName, componentId, createdBy (equals, contains, startsWith; another query member is refused, 400 naming it). ' +
      'Default limit 50, at most 500. A caller who is not an admin sees the automations whose gbac lists none of the groups, or one of theirs (read or write).',
  },
  {
    name: 'getAutomation',
    summary: 'Get one automation',
    http: { method: 'GET', path: '/operations-manager/automations/:id' },
    roles: ROLE_SETS.read,
    response: automationEnvelopeSchema,
    addition: true,
  },
  {
    name: 'exportAutomation',
    summary: 'Export an automation with its triggers',
    http: { method: 'GET', path: '/operations-manager/automations/:id/export' },
    roles: ROLE_SETS.read,
    response: automationExportEnvelopeSchema,
    addition: true,
    notes:
      'The automation with a triggers member holding each of its triggers as GET …/triggers/:id/export gives it: what PUT /operations-manager/automations takes back, automation and triggers together.',
  },
  {
    name: 'updateAutomation',
    summary: 'Change an automation',
    http: { method: 'PATCH', path: '/operations-manager/automations/:id' },
    roles: ['admin', 'apiwrite', 'engineering'],
    body: updateAutomationBodySchema,
    response: automationEnvelopeSchema,
    addition: true,
    notes:
      "Itential's updateAutomation: the members given change, the others stay; a member this body does not list (_id, created, triggers, …) is 400 VALIDATION_FAILED naming it. " +
      'gbac is checked as on creation (group ids that must exist, 404 GROUP_NOT_FOUND) and replaces the gbac whole, a list it leaves out being empty. ' +
      'componentName and componentId name one workflow: changing one without the other sets the other to null, so that the automation runs the workflow named. ' +
      "A caller outside the automation's gbac write groups, or one that points it (componentName, componentId, componentType) at a workflow shared with groups the caller is in none of " +
      '(its schedules and event triggers run as whoever last changed them, not as the caller): 403 GROUP_ACCESS_DENIED; an unknown id 404 AUTOMATION_NOT_FOUND; a name in use 409 AUTOMATION_ALREADY_EXISTS naming the automation that has it (its id when the caller may read it). ' +
      'The id stays, so its triggers keep starting it (they read the automation when they fire). ' +
      'Pointing it at another workflow gives its schedules and event triggers that act as another account the identity of the caller (as a change of the trigger itself does), before the automation changes: the message says so, and the audit record lists each as triggers.<id>.runAs.',
  },
  {
    name: 'deleteAutomation',
    summary: 'Delete an automation and its triggers',
    http: { method: 'DELETE', path: '/operations-manager/automations/:id' },
    roles: ROLE_SETS.write,
    response: envelopeOf(
      'nap:schemas/automation-deleted',
      obj({ automation: embed(deletedCountSchema), triggers: embed(deletedCountSchema) }, ['automation', 'triggers']),
    ),
    addition: true,
    notes:
      "The automation's triggers are deleted first, so that none is left pointing at nothing. A caller outside the automation's gbac write groups: 403 GROUP_ACCESS_DENIED.",
  },
  // triggers
  {
    name: 'getTriggers',
    summary: 'Get a page of triggers',
    http: { method: 'GET', path: '/operations-manager/triggers' },
    roles: ROLE_SETS.read,
    query: closed({
      ...listQuerySchema.properties,
      enabled: bool({ description: 'only enabled (true) or disabled (false) triggers' }),
      actionId: str({ description: 'only the triggers of this automation' }),
    }),
    response: triggerPageSchema,
    addition: true,
    notes:
      'Filter fields: _id, name, description, type, actionId, routeName, topic, formId, createdBy. equals=endpoint&equalsField=type or equals[type]=endpoint ' +
      '(equals, contains, startsWith; another query member is refused, 400 naming it). Default limit 50, at most 500; sorted by name. ' +
      "A caller who is not an admin sees the triggers of the automations they may read (the automation's gbac); get, export, change, delete and run " +
      "of a trigger of another group's automation are 403 GROUP_ACCESS_DENIED.",
  },
  {
    name: 'createTrigger',
    summary: 'Create a trigger',
    http: { method: 'POST', path: '/operations-manager/triggers' },
    roles: ROLE_SETS.write,
    body: anyObject('the trigger itself, or { trigger: <the trigger> }'),
    response: triggerEnvelopeSchema,
    addition: true,
    notes:
      'Members by type: endpoint routeName (unique, one path segment), verb POST, schema (JSON Schema of the body; any object when absent), jst (optional transformation id); ' +
      'manual formId, formData; schedule firstRunAt (epoch ms), repeatUnit (second, minute, hour, day, week, month; none: fires once), repeatFrequency, processMissedRuns (none, last, all); ' +
      'eventSystem topic (jobComplete, jobError, … or <service>.<entity>.<event>), schema (the payload must match), jst. ' +
      'A problem answers 400 VALIDATION_FAILED naming the member; an unknown actionId 404 AUTOMATION_NOT_FOUND; an automation the caller may not change (its gbac write groups) 403 GROUP_ACCESS_DENIED. ' +
      'Schedules and event triggers run as whoever created or last changed them (their roles and groups then): an enabled one whose workflow the caller may not run is 403 GROUP_ACCESS_DENIED. ' +
      'A schema is checked with a time limit (1 s per value): a pattern that backtracks without end answers 422 UNPROCESSABLE, and that schema version is not used again until the trigger changes. ' +
      'An event trigger fires only for job events of jobs its creator may see, never for a job its own firing led to (directly or through other event triggers), and not past 10 triggers in a row. ' +
      'A schedule or event trigger whose account was deleted or made inactive starts nothing; why it last failed to start is its lastError { at, code, message }.',
  },
  {
    name: 'importTriggers',
    summary: 'Import triggers',
    http: { method: 'PUT', path: '/operations-manager/triggers' },
    roles: ROLE_SETS.write,
    body: obj({ triggers: arr(anyObject('a trigger, as exported'), { minItems: 1 }) }, ['triggers']),
    response: triggerImportResultSchema,
    timeoutMs: TIMEOUTS_MS.long,
    addition: true,
    notes:
      'Each trigger is checked and stored on its own and reported per item (success false, message, created null for a refused one). An _id of letters, digits, _ and - is kept.',
  },
  {
    name: 'getTrigger',
    summary: 'Get one trigger',
    http: { method: 'GET', path: '/operations-manager/triggers/:id' },
    roles: ROLE_SETS.read,
    response: triggerEnvelopeSchema,
    addition: true,
  },
  {
    name: 'updateTrigger',
    summary: 'Change a trigger',
    http: { method: 'PATCH', path: '/operations-manager/triggers/:id' },
    roles: ROLE_SETS.write,
    body: anyObject('the members to change (or { changes: { … } }); type and _id cannot change'),
    response: triggerEnvelopeSchema,
    addition: true,
    notes:
      'The changed trigger is checked as on creation; a member no trigger has (including { trigger: … }, the form of creation) is 400 VALIDATION_FAILED naming it. ' +
      "Changing a schedule's firstRunAt or repeat computes its next due time again. The trigger runs as the caller from then on (a schedule or event trigger changed by " +
      "another account takes that account's roles and groups, never keeps its creator's): 403 GROUP_ACCESS_DENIED when the caller may not change its automation or run its workflow.",
  },
  {
    name: 'deleteTrigger',
    summary: 'Delete a trigger',
    http: { method: 'DELETE', path: '/operations-manager/triggers/:id' },
    roles: ROLE_SETS.write,
    response: deleted('nap:schemas/trigger-deleted'),
    addition: true,
  },
  {
    name: 'exportTrigger',
    summary: 'Export a trigger',
    http: { method: 'GET', path: '/operations-manager/triggers/:id/export' },
    roles: ROLE_SETS.read,
    response: triggerEnvelopeSchema,
    addition: true,
    notes: 'The trigger as PUT /operations-manager/triggers takes it back.',
  },
  {
    name: 'deleteTriggersByAction',
    summary: 'Delete every trigger of an automation',
    http: { method: 'DELETE', path: '/operations-manager/triggers/action/:id' },
    auditKind: 'automation',
    roles: ROLE_SETS.write,
    response: deleted('nap:schemas/triggers-deleted'),
    addition: true,
  },
  {
    name: 'runEndpointTrigger',
    summary: 'Start the automation of an endpoint trigger',
    http: { method: 'POST', path: '/operations-manager/triggers/endpoint/:routeName' },
    auditKind: 'trigger',
    roles: ROLE_SETS.run,
    body: anyValue({ description: "checked against the trigger's schema" }),
    response: startedJobEnvelopeSchema,
    addition: true,
    notes:
      "The body is checked against the trigger's schema (400 VALIDATION_FAILED naming the member), transformed by its jst if it has one (studio.runTransformation), " +
      'and becomes the job variables of the automation\'s workflow. Answers { message: "Successfully created the requested item", data: <the job>, metadata: {} }. ' +
      '404 TRIGGER_NOT_FOUND for an unknown route name, 409 TRIGGER_DISABLED for a disabled trigger.',
  },
  {
    name: 'runManualTrigger',
    summary: 'Run a manual trigger with form data',
    http: { method: 'POST', path: '/operations-manager/triggers/manual/:id/run' },
    auditKind: 'trigger',
    roles: ROLE_SETS.run,
    body: closed({ formData: anyObject("the form's data; becomes the job variables") }),
    response: startedJobEnvelopeSchema,
    addition: true,
    notes:
      "formData (over the trigger's formData defaults) is checked against the form's validation schema when the form has one (studio forms), then starts the job.",
  },
  // the engine's operator routes
  {
    name: 'getWorkersStatus',
    summary: 'Status of the job and task workers of every engine replica',
    http: { method: 'GET', path: '/workflow_engine/workers/status' },
    roles: ROLE_SETS.read,
    response: workersStatusSchema,
    addition: true,
  },
  {
    name: 'activateTaskWorker',
    summary: 'Let the engine replicas start tasks',
    http: { method: 'POST', path: '/workflow_engine/activate' },
    roles: ROLE_SETS.admin,
    response: workersChangeSchema,
    addition: true,
    notes: WORKER_NOTES,
  },
  {
    name: 'deactivateTaskWorker',
    summary: 'Stop the engine replicas from starting tasks',
    http: { method: 'POST', path: '/workflow_engine/deactivate' },
    roles: ROLE_SETS.admin,
    response: workersChangeSchema,
    addition: true,
    notes: WORKER_NOTES,
  },
  {
    name: 'activateJobWorker',
    summary: 'Let the engine replicas claim jobs',
    http: { method: 'POST', path: '/workflow_engine/jobWorker/activate' },
    roles: ROLE_SETS.admin,
    response: workersChangeSchema,
    addition: true,
    notes: WORKER_NOTES,
  },
  {
    name: 'deactivateJobWorker',
    summary: 'Stop the engine replicas from claiming jobs',
    http: { method: 'POST', path: '/workflow_engine/jobWorker/deactivate' },
    roles: ROLE_SETS.admin,
    response: workersChangeSchema,
    addition: true,
    notes: WORKER_NOTES,
  },
  {
    name: 'getJobMetrics',
    summary: 'Counts and durations of jobs per workflow',
    http: { method: 'GET', path: '/workflow_engine/jobs/metrics' },
    roles: ROLE_SETS.read,
    query: closed({ ...listQuerySchema.properties }),
    response: jobMetricsSchema,
    addition: true,
    notes:
      'From the job store. Filter fields: workflow, _id; sorted by workflow. Durations are run_time of finished jobs, in milliseconds. Another query member is refused, 400 VALIDATION_FAILED naming it.',
  },
  {
    name: 'getTaskMetrics',
    summary: 'Counts and durations of tasks per workflow',
    http: { method: 'GET', path: '/workflow_engine/tasks/metrics' },
    roles: ROLE_SETS.read,
    query: closed({ ...listQuerySchema.properties }),
    response: taskMetricsSchema,
    addition: true,
    notes:
      'From the job store, per workflow and task id. Filter fields: workflow, taskId, name, app, taskType; sorted by workflow then task id. Another query member is refused, 400 VALIDATION_FAILED naming it.',
  },
  // events
  {
    name: 'watchEvents',
    summary: 'Stream the job events the caller may see as server-sent events',
    http: { method: 'GET', path: '/operations-manager/events' },
    roles: ROLE_SETS.read,
    query: obj({
      workflow: str({ description: 'only jobs of these workflows (comma-separated names)' }),
      event: str({
        description:
          'only these job events (comma-separated: jobStart, jobComplete, jobError, jobCancel, jobPause, jobResume, taskStart, taskFinish)',
      }),
    }),
    response: eventStreamFilterSchema,
    contentType: 'text/event-stream',
    addition: true,
    notes:
      'Over the bus this operation checks the filter and answers it normalized; the gateway then relays every nap.evt.workflow.job.*.* event that matches it and that the caller may see ' +
      '(event name = the job event, data = its payload, id = its position in the event stream). Reconnect with Last-Event-ID: <the last id> to resume after it (events are kept 7 days; standalone keeps the last NAP_MEMORY_EVENTS_MAX_BYTES of them). ' +
      'A resume goes back at most 10,000 positions from the end of the event stream: from further back (or from an id the platform never handed out, when the stream holds more than that) ' +
      'the stream starts with an event named gap (id = the position before the first event it sends; data = {lastEventId, resumesAt, reason: window, message}), then the events from resumesAt on: ' +
      'read the jobs you follow again (GET /operations-manager/jobs) for what happened before. A resume after events the stream no longer keeps (older than its retention) starts the same way, with reason retention. A caller has two resumed streams replaying at once (a gateway eight); ' +
      'more wait their turn, open, with comment lines. ' +
      'Delivery is in order per job, at least once. Comment lines keep idle connections open. A client that reads too slowly to keep up is sent a retry: line and closed: ' +
      'it reconnects with Last-Event-ID.' +
      ' A stream ends when its caller loses access (logout, a deactivated account, a change of groups or roles; a token is checked again every 60 s); a caller holds at most 100 streams per gateway (429 TOO_MANY_STREAMS beyond).',
  },
  {
    name: 'jobAudiences',
    summary: 'Who may see each of the given jobs',
    roles: ROLE_SETS.admin,
    body: jobIdsSchema,
    response: jobAudiencesSchema,
    addition: true,
    notes:
      "Bus-only; the gateway's event streams ask it, as the platform, for jobs they have not met before, and decide once per job and " +
      'group set which of their clients see its events (audienceAdmits). Jobs that do not exist are left out.',
  },
]);
