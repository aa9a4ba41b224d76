import type { HandlerMap } from '@nap/bus';
import { createAutomation } from './create-automation';
import { createComponentGroup } from './create-component-group';
import { createForm } from './create-form';
import { createTemplate } from './create-template';
import { deleteAutomation } from './delete-automation';
import { deleteComponentGroup } from './delete-component-group';
import { deleteForm } from './delete-form';
import { deleteTemplate } from './delete-template';
import type { StudioDeps } from './deps';
import type { Projects } from '../projects/projects';
import { deleteProject } from './delete-project';
import { exportProject } from './export-project';
import { getProject } from './get-project';
import { getProjects } from './get-projects';
import { getWorkflows } from './get-workflows';
import { importProject } from './import-project';
import { exportForm } from './export-form';
import { exportTemplate } from './export-template';
import { getAutomation } from './get-automation';
import { getAutomations } from './get-automations';
import { getComponentGroup } from './get-component-group';
import { getComponentGroups } from './get-component-groups';
import { getForm } from './get-form';
import { getForms } from './get-forms';
import { getMethodOptions } from './get-method-options';
import { getReferencesTo } from './get-references-to';
import { getTemplate } from './get-template';
import { getTemplates } from './get-templates';
import { getWorkflow } from './get-workflow';
import { importAutomations } from './import-automations';
import { importComponentGroups } from './import-component-groups';
import { importForms } from './import-forms';
import { importTemplates } from './import-templates';
import { parseTemplate } from './parse-template';
import { renderJinjaTemplate } from './render-jinja-template';
import { renderJinjaText } from './render-jinja-text';
import { updateAutomation } from './update-automation';
import { updateComponentGroup } from './update-component-group';
import { updateTemplate } from './update-template';
import { createTransformation } from './create-transformation';
import { deleteTransformation } from './delete-transformation';
import { getTransformation } from './get-transformation';
import { getTransformations } from './get-transformations';
import { importTransformations } from './import-transformations';
import { runTransformation, runTransformationById } from './run-transformation';
import { updateTransformation } from './update-transformation';
import { validateTransformation } from './validate-transformation';

export type { StudioDeps } from './deps';

/** Handlers of the studio operations by catalog name; the project routes use `projects`. */
export function studioHandlers(deps: StudioDeps, projects: Projects): HandlerMap<'studio'> {
  return {
    getWorkflows: getWorkflows(deps),
    getProjects: getProjects(deps),
    getProject: getProject(deps),
    deleteProject: deleteProject(projects),
    importProject: importProject(projects),
    exportProject: exportProject(projects),
    createAutomation: createAutomation(deps),
    importAutomations: importAutomations(deps),
    updateAutomation: updateAutomation(deps),
    getAutomations: getAutomations(deps),
    getAutomation: getAutomation(deps),
    deleteAutomation: deleteAutomation(deps),
    getWorkflow: getWorkflow(deps),
    renderJinjaTemplate: renderJinjaTemplate(deps),
    parseTemplate: parseTemplate(deps),
    renderJinjaText: renderJinjaText(deps),
    createComponentGroup: createComponentGroup(deps),
    importComponentGroups: importComponentGroups(deps),
    updateComponentGroup: updateComponentGroup(deps),
    getComponentGroup: getComponentGroup(deps),
    getComponentGroups: getComponentGroups(deps),
    deleteComponentGroup: deleteComponentGroup(deps),
    createTemplate: createTemplate(deps),
    importTemplates: importTemplates(deps),
    updateTemplate: updateTemplate(deps),
    getTemplate: getTemplate(deps),
    getTemplates: getTemplates(deps),
    deleteTemplate: deleteTemplate(deps),
    exportTemplate: exportTemplate(deps),
    getMethodOptions: getMethodOptions(),
    getReferencesTo: getReferencesTo(deps),
    exportForm: exportForm(deps),
    createForm: createForm(deps),
    importForms: importForms(deps),
    getForms: getForms(deps),
    getForm: getForm(deps),
    deleteForm: deleteForm(deps),
    // JST transformations
    createTransformation: createTransformation(deps),
    getTransformations: getTransformations(deps),
    getTransformation: getTransformation(deps),
    updateTransformation: updateTransformation(deps),
    deleteTransformation: deleteTransformation(deps),
    importTransformations: importTransformations(deps),
    validateTransformation: validateTransformation(deps),
    runTransformation: runTransformation(deps),
    runTransformationById: runTransformationById(deps),
  };
}
