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
  };
}
