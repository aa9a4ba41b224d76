import { ROLE_SETS } from '../roles';
import { anyObject, arr, closed, embed, name } from '../schemas/common';
import {
  automationDocumentSchema,
  automationImportResultSchema,
  catalogImportResultSchema,
  createAutomationBodySchema,
  createdResultSchema,
  importAutomationsBodySchema,
  importCatalogAutomationsBodySchema,
} from '../schemas/automation';
import {
  cancelJobsResultSchema,
  getJobListBodySchema,
  jobDocumentSchema,
  jobEnvelopeSchema,
  jobListSchema,
  jobPageSchema,
  retryTaskBodySchema,
  shallowJobDocumentSchema,
  startJobWithOptionsBodySchema,
} from '../schemas/job';
import { jobQueryParametersSchema } from '../schemas/query';
import { defineOperations, noQuery } from './define';

/**
 * Operations of the `workflow` service: the workflow engine (`/workflow_engine/*`), the operations
 * manager (`/operations-manager/*`) and the automation catalog (`/automation_catalog/*`).
 */
export const WORKFLOW_OPERATIONS = defineOperations('workflow', [
  // operation 1
  {
    name: 'importCatalogAutomations',
    summary: 'Import automation documents into the automation catalog',
    http: { method: 'POST', path: '/automation_catalog/automations/import' },
    roles: ROLE_SETS.write,
    body: importCatalogAutomationsBodySchema,
    response: catalogImportResultSchema,
    notes: 'Failures are reported per item (success false, created null); the response status stays success.',
  },
  // operation 2
  {
    name: 'importAutomations',
    summary: 'Import automations into the operations manager',
    http: { method: 'PUT', path: '/operations-manager/automations' },
    roles: ROLE_SETS.write,
    body: importAutomationsBodySchema,
    response: automationImportResultSchema,
    notes: 'The spec closes options (only adapterMap) but not the top level of this body; other top-level members are accepted.',
  },
  // operation 3
  {
    name: 'createAutomation',
    summary: 'Create an automation',
    http: { method: 'POST', path: '/operations-manager/automations' },
    roles: ['admin', 'apiwrite', 'engineering'],
    body: createAutomationBodySchema,
    response: createdResultSchema('nap:schemas/automation-created', embed(automationDocumentSchema)),
    notes: 'The spec does not say which automation fields are required; a name is required to create one.',
  },
  // operation 4
  {
    name: 'getJobs',
    summary: 'Get a page of job documents',
    http: { method: 'GET', path: '/operations-manager/jobs' },
    roles: ['admin', 'engineering', 'apiread', 'operations'],
    query: jobQueryParametersSchema,
    response: jobPageSchema,
    notes:
      'queryParameters arrive as flat query members; operators are bracketed per field (equals[status]=running, in[status]=running,complete). ' +
      'Default limit 25, at most 500 (a larger limit is clamped and hints says so); sorted by metrics.start_time, newest first, unless sort/order say otherwise; ' +
      'nextPageSkip and previousPageSkip are null at the ends. q is a JSON expression {"and":[…]}, {"or":[…]}, {"not":…} or a leaf {"<operator>":{"<field>":value}} ' +
      'with the operators above, or free text searched in name and description. dereference=ancestors,parent replaces job ids by { _id, name, status }. ' +
      'Field names are dotted paths of letters, digits, "_" and "-" (400 JOB_QUERY_INVALID otherwise); values are always data, never operators. ' +
      'Non-admin callers see jobs without groups, jobs of their groups and jobs they started.',
  },
  // operation 15
  {
    name: 'retryTask',
    summary: 'Retry a task of a job with replacement variables',
    http: { method: 'POST', path: '/workflow_engine/jobs/:jobId/retryTask' },
    roles: ROLE_SETS.run,
    body: retryTaskBodySchema,
    response: jobDocumentSchema,
    notes: 'Only for a job in status error (409 otherwise): the task runs again with its incoming variables replaced by the given values, and the job goes on from there.',
  },
  // operation 16
  {
    name: 'getJobShallow',
    summary: 'Get the shallow data of a job',
    http: { method: 'GET', path: '/workflow_engine/getJobShallow/:job_data' },
    roles: ROLE_SETS.read,
    params: { job_data: name('the job id') },
    query: noQuery(),
    response: shallowJobDocumentSchema,
  },
  // operation 17
  {
    name: 'startJobWithOptions',
    summary: 'Start a job of a workflow with options',
    http: { method: 'POST', path: '/workflow_engine/startJobWithOptions/:workflow' },
    roles: ROLE_SETS.run,
    params: { workflow: name('name of the workflow') },
    body: startJobWithOptionsBodySchema,
    response: jobDocumentSchema,
    notes: 'Answers once the job is created and running; it does not wait for the job to finish.',
  },
  // operation 18
  {
    name: 'getJobList',
    summary: 'Get a list of jobs by status',
    http: { method: 'POST', path: '/workflow_engine/getJobList/:status' },
    roles: ROLE_SETS.read,
    params: { status: name('job status, for example running, complete, canceled; "all" for every status') },
    body: getJobListBodySchema,
    response: jobListSchema,
    notes: 'A read although it is a POST. Allowed values of :status are not shown by the spec; the service answers 400 for an unknown status.',
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
      'variables become the task\'s outgoing; variables.finish_state (success, the default, or failure) chooses the transitions. 409 when the task is not a manual task waiting.',
  },
  {
    name: 'cancelJobs',
    summary: 'Cancel jobs',
    http: { method: 'POST', path: '/operations-manager/jobs/cancel' },
    roles: ROLE_SETS.run,
    body: closed({ jobIds: arr(name(), { minItems: 1, uniqueItems: true }) }, ['jobIds']),
    response: cancelJobsResultSchema,
    addition: true,
    notes: 'Reports per job; a job that is already finished is reported with success false.',
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
      'Delivery is at least once: an event the snapshot already reflects (the start of a task it shows running) may follow it.',
  },
]);
