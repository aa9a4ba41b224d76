import type { HandlerMap } from '@nap/bus';
import type { WorkflowContext } from '../context';
import { activateJobWorker } from './activate-job-worker';
import { activateTaskWorker } from './activate-task-worker';
import { archiveJobs } from './archive-jobs';
import { cancelJobs } from './cancel-jobs';
import { createAutomation } from './create-automation';
import { createTrigger } from './create-trigger';
import { deactivateJobWorker } from './deactivate-job-worker';
import { deactivateTaskWorker } from './deactivate-task-worker';
import { deleteAutomation } from './delete-automation';
import { deleteTrigger } from './delete-trigger';
import { deleteTriggersByAction } from './delete-triggers-by-action';
import { exportAutomation } from './export-automation';
import { exportTrigger } from './export-trigger';
import { finishTask } from './finish-task';
import { getAutomation } from './get-automation';
import { getAutomations } from './get-automations';
import { getJob } from './get-job';
import { deleteJobArchive } from './delete-job-archive';
import { getJobArchive } from './get-job-archive';
import { getJobArchives } from './get-job-archives';
import { getJobList } from './get-job-list';
import { getJobMetrics } from './get-job-metrics';
import { getJobShallow } from './get-job-shallow';
import { getJobs } from './get-jobs';
import { getTaskMetrics } from './get-task-metrics';
import { getTasks } from './get-tasks';
import { getTrigger } from './get-trigger';
import { getTriggers } from './get-triggers';
import { getWorkersStatus } from './get-workers-status';
import { importAutomations } from './import-automations';
import { importCatalogAutomations } from './import-catalog-automations';
import { importTriggers } from './import-triggers';
import { jobAudiences } from './job-audiences';
import { pauseJob } from './pause-job';
import { resumeJob } from './resume-job';
import { retryTask } from './retry-task';
import { runEndpointTrigger } from './run-endpoint-trigger';
import { runManualTrigger } from './run-manual-trigger';
import { startJob } from './start-job';
import { startJobWithOptions } from './start-job-with-options';
import { updateAutomation } from './update-automation';
import { updateTrigger } from './update-trigger';
import { watchEvents } from './watch-events';
import { watchJobEvents } from './watch-job-events';

/** Every operation of the workflow service, by catalog name: one file a handler, named as the catalog names it. */
export function workflowHandlers(svc: WorkflowContext): HandlerMap<'workflow'> {
  return {
    importCatalogAutomations: importCatalogAutomations(svc),
    importAutomations: importAutomations(svc),
    createAutomation: createAutomation(svc),
    getJobs: getJobs(svc),
    retryTask: retryTask(svc),
    getJobShallow: getJobShallow(svc),
    startJobWithOptions: startJobWithOptions(svc),
    getJobList: getJobList(svc),
    getJob: getJob(svc),
    finishTask: finishTask(svc),
    cancelJobs: cancelJobs(svc),
    pauseJob: pauseJob(svc),
    resumeJob: resumeJob(svc),
    watchJobEvents: watchJobEvents(svc),
    startJob: startJob(svc),
    getTasks: getTasks(svc),
    archiveJobs: archiveJobs(svc),
    getJobArchives: getJobArchives(svc),
    getJobArchive: getJobArchive(svc),
    deleteJobArchive: deleteJobArchive(svc),
    getAutomations: getAutomations(svc),
    getAutomation: getAutomation(svc),
    exportAutomation: exportAutomation(svc),
    updateAutomation: updateAutomation(svc),
    deleteAutomation: deleteAutomation(svc),
    getTriggers: getTriggers(svc),
    createTrigger: createTrigger(svc),
    importTriggers: importTriggers(svc),
    getTrigger: getTrigger(svc),
    updateTrigger: updateTrigger(svc),
    deleteTrigger: deleteTrigger(svc),
    exportTrigger: exportTrigger(svc),
    deleteTriggersByAction: deleteTriggersByAction(svc),
    runEndpointTrigger: runEndpointTrigger(svc),
    runManualTrigger: runManualTrigger(svc),
    getWorkersStatus: getWorkersStatus(svc),
    activateTaskWorker: activateTaskWorker(svc),
    deactivateTaskWorker: deactivateTaskWorker(svc),
    activateJobWorker: activateJobWorker(svc),
    deactivateJobWorker: deactivateJobWorker(svc),
    getJobMetrics: getJobMetrics(svc),
    getTaskMetrics: getTaskMetrics(svc),
    watchEvents: watchEvents(svc),
    jobAudiences: jobAudiences(svc),
  };
}
