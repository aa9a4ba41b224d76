import type { HandlerMap } from '@nap/bus';
import { cancelJobs } from './cancel-jobs';
import type { WorkflowHandlerContext } from './context';
import { createAutomation } from './create-automation';
import { finishTask } from './finish-task';
import { getJob } from './get-job';
import { getJobList } from './get-job-list';
import { getJobShallow } from './get-job-shallow';
import { getJobs } from './get-jobs';
import { importAutomations } from './import-automations';
import { importCatalogAutomations } from './import-catalog-automations';
import { pauseJob } from './pause-job';
import { resumeJob } from './resume-job';
import { retryTask } from './retry-task';
import { startJobWithOptions } from './start-job-with-options';
import { watchJobEvents } from './watch-job-events';
import { createTrigger } from './create-trigger';
import { deleteAutomation } from './delete-automation';
import { deleteTrigger } from './delete-trigger';
import { deleteTriggersByAction } from './delete-triggers-by-action';
import { exportTrigger } from './export-trigger';
import { getAutomation } from './get-automation';
import { getAutomations } from './get-automations';
import { getJobMetrics } from './get-job-metrics';
import { getTaskMetrics } from './get-task-metrics';
import { getTasks } from './get-tasks';
import { getTrigger } from './get-trigger';
import { getTriggers } from './get-triggers';
import { getWorkersStatus } from './get-workers-status';
import { importTriggers } from './import-triggers';
import { runEndpointTrigger } from './run-endpoint-trigger';
import { runManualTrigger } from './run-manual-trigger';
import { startJob } from './start-job';
import { activateJobWorker, activateTaskWorker, deactivateJobWorker, deactivateTaskWorker } from './switch-workers';
import { updateTrigger } from './update-trigger';
import { visibleJobs } from './visible-jobs';
import { watchEvents } from './watch-events';

export type { WorkflowHandlerContext } from './context';

/** Every operation of the workflow service, by catalog name. */
export function workflowHandlers(c: WorkflowHandlerContext): HandlerMap<'workflow'> {
  return {
    importCatalogAutomations: importCatalogAutomations(c),
    importAutomations: importAutomations(c),
    createAutomation: createAutomation(c),
    getJobs: getJobs(c),
    retryTask: retryTask(c),
    getJobShallow: getJobShallow(c),
    startJobWithOptions: startJobWithOptions(c),
    getJobList: getJobList(c),
    getJob: getJob(c),
    finishTask: finishTask(c),
    cancelJobs: cancelJobs(c),
    pauseJob: pauseJob(c),
    resumeJob: resumeJob(c),
    watchJobEvents: watchJobEvents(c),
    startJob: startJob(c),
    getTasks: getTasks(c),
    getAutomations: getAutomations(c),
    getAutomation: getAutomation(c),
    deleteAutomation: deleteAutomation(c),
    getTriggers: getTriggers(c),
    createTrigger: createTrigger(c),
    importTriggers: importTriggers(c),
    getTrigger: getTrigger(c),
    updateTrigger: updateTrigger(c),
    deleteTrigger: deleteTrigger(c),
    exportTrigger: exportTrigger(c),
    deleteTriggersByAction: deleteTriggersByAction(c),
    runEndpointTrigger: runEndpointTrigger(c),
    runManualTrigger: runManualTrigger(c),
    getWorkersStatus: getWorkersStatus(c),
    activateTaskWorker: activateTaskWorker(c),
    deactivateTaskWorker: deactivateTaskWorker(c),
    activateJobWorker: activateJobWorker(c),
    deactivateJobWorker: deactivateJobWorker(c),
    getJobMetrics: getJobMetrics(c),
    getTaskMetrics: getTaskMetrics(c),
    watchEvents: watchEvents(c),
    visibleJobs: visibleJobs(c),
  };
}
