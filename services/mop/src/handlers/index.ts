import type { HandlerMap } from '@nap/bus';
import type { MopContext } from '../context';
import { chooseDevice } from './choose-device';
import { createAnalyticTemplate } from './create-analytic-template';
import { createTemplate } from './create-template';
import { deleteAnalyticTemplate } from './delete-analytic-template';
import { deleteTemplate } from './delete-template';
import { diffConfig } from './diff-config';
import { exportTemplate } from './export-template';
import { getBootFlash } from './get-boot-flash';
import { getDeviceObjectsFiltered } from './get-device-objects-filtered';
import { getDevicesFiltered } from './get-devices-filtered';
import { getDevicesFilteredDetailedResults } from './get-devices-filtered-detailed-results';
import { getDiff } from './get-diff';
import { getTemplateRun } from './get-template-run';
import { getTemplateRuns } from './get-template-runs';
import { importTemplate } from './import-template';
import { listATemplate } from './list-a-template';
import { listAnAnalyticTemplate } from './list-an-analytic-template';
import { listAnalyticTemplates } from './list-analytic-templates';
import { listTemplates } from './list-templates';
import { passThru } from './pass-thru';
import { reattempt } from './reattempt';
import { reloadFailed } from './reload-failed';
import { reviewSummary } from './review-summary';
import { runAnalyticsTemplate } from './run-analytics-template';
import { runAnalyticsTemplateDevices } from './run-analytics-template-devices';
import { runCommand } from './run-command';
import { runCommandDevices } from './run-command-devices';
import { runCommandTemplate } from './run-command-template';
import { runCommandTemplateSingleCommand } from './run-command-template-single-command';
import { runTemplatesDiff } from './run-templates-diff';
import { updateAnalyticTemplate } from './update-analytic-template';
import { updateTemplate } from './update-template';
import { updateTemplateByName } from './update-template-by-name';
import { verifyConfig } from './verify-config';
import { viewTemplateResults } from './view-template-results';

/** Every operation of the mop service, by catalog name (`contracts/src/catalog/mop.ts`). */
export function mopHandlers(svc: MopContext): HandlerMap<'mop'> {
  return {
    createTemplate: createTemplate(svc),
    updateTemplate: updateTemplate(svc),
    updateTemplateByName: updateTemplateByName(svc),
    deleteTemplate: deleteTemplate(svc),
    listATemplate: listATemplate(svc),
    listTemplates: listTemplates(svc),
    createAnalyticTemplate: createAnalyticTemplate(svc),
    updateAnalyticTemplate: updateAnalyticTemplate(svc),
    deleteAnalyticTemplate: deleteAnalyticTemplate(svc),
    listAnAnalyticTemplate: listAnAnalyticTemplate(svc),
    listAnalyticTemplates: listAnalyticTemplates(svc),
    exportTemplate: exportTemplate(svc),
    importTemplate: importTemplate(svc),
    RunCommand: runCommand(),
    RunCommandDevices: runCommandDevices(svc),
    RunCommandTemplate: runCommandTemplate(svc),
    RunCommandTemplateSingleCommand: runCommandTemplateSingleCommand(svc),
    runAnalyticsTemplate: runAnalyticsTemplate(svc),
    runAnalyticsTemplateDevices: runAnalyticsTemplateDevices(svc),
    passThru: passThru(),
    GetBootFlash: getBootFlash(),
    reattempt: reattempt(svc),
    getDiff: getDiff(svc),
    getDeviceObjectsFiltered: getDeviceObjectsFiltered(),
    getDevicesFiltered: getDevicesFiltered(),
    getDevicesFilteredDetailedResults: getDevicesFilteredDetailedResults(),
    getTemplateRuns: getTemplateRuns(svc),
    getTemplateRun: getTemplateRun(svc),
    chooseDevice: chooseDevice(),
    diffConfig: diffConfig(svc),
    reloadFailed: reloadFailed(),
    reviewSummary: reviewSummary(),
    runTemplatesDiff: runTemplatesDiff(svc),
    verifyConfig: verifyConfig(),
    viewTemplateResults: viewTemplateResults(),
  };
}
