import type { HandlerMap } from '@nap/bus';
import type { StudioContext } from '../context';
import { createAutomation } from './create-automation';
import { createComponentGroup } from './create-component-group';
import { createForm } from './create-form';
import { createTemplate } from './create-template';
import { createTransformation } from './create-transformation';
import { deleteAutomation } from './delete-automation';
import { deleteComponentGroup } from './delete-component-group';
import { deleteForm } from './delete-form';
import { addProjectComponents } from './add-project-components';
import { createProject } from './create-project';
import { deleteProject } from './delete-project';
import { deleteTemplate } from './delete-template';
import { deleteTransformation } from './delete-transformation';
import { exportForm } from './export-form';
import { exportProject } from './export-project';
import { exportTemplate } from './export-template';
import { getAutomation } from './get-automation';
import { getAutomations } from './get-automations';
import { getComponentGroup } from './get-component-group';
import { getComponentGroups } from './get-component-groups';
import { getForm } from './get-form';
import { getForms } from './get-forms';
import { getMethodOptions } from './get-method-options';
import { getProject } from './get-project';
import { getProjects } from './get-projects';
import { getReferencesTo } from './get-references-to';
import { getTemplate } from './get-template';
import { getTemplates } from './get-templates';
import { getTransformation } from './get-transformation';
import { getTransformations } from './get-transformations';
import { getWorkflow } from './get-workflow';
import { getWorkflows } from './get-workflows';
import { importAutomations } from './import-automations';
import { importComponentGroups } from './import-component-groups';
import { importForms } from './import-forms';
import { importProject } from './import-project';
import { removeProjectComponent } from './remove-project-component';
import { importTemplates } from './import-templates';
import { importTransformation } from './import-transformation';
import { importTransformations } from './import-transformations';
import { createJsonForm } from './create-json-form';
import { deleteJsonForms } from './delete-json-forms';
import { getJsonForm } from './get-json-form';
import { getJsonForms } from './get-json-forms';
import { importJsonForms } from './import-json-forms';
import { deleteWorkflowByName } from './delete-workflow-by-name';
import { exportWorkflow } from './export-workflow';
import { parseTemplate } from './parse-template';
import { renderJinjaTemplate } from './render-jinja-template';
import { renderJinjaText } from './render-jinja-text';
import { runTransformationById } from './run-transformation-by-id';
import { runTransformation } from './run-transformation';
import { updateAutomation } from './update-automation';
import { updateComponentGroup } from './update-component-group';
import { updateForm } from './update-form';
import { updateProject } from './update-project';
import { updateTemplate } from './update-template';
import { updateTransformation } from './update-transformation';
import { validateTransformation } from './validate-transformation';
import { visibleWorkflows } from './visible-workflows';
import { createTag } from './create-tag';
import { createTagReference } from './create-tag-reference';
import { deleteTag } from './delete-tag';
import { getTag } from './get-tag';
import { getTagReferences } from './get-tag-references';
import { getTags } from './get-tags';
import { getTagsByReference } from './get-tags-by-reference';
import { handleTagReferences } from './handle-tag-references';
import { updateTag } from './update-tag';

/**
 * The handlers of the studio's operations by catalog name: `studio.*` in `contracts/src/catalog/studio.ts`
 * and the template builder's (`template-builder.ts`), one file each, named as the catalog names them.
 */
export function studioHandlers(svc: StudioContext): HandlerMap<'studio'> {
  return {
    createAutomation: createAutomation(svc),
    createComponentGroup: createComponentGroup(svc),
    createForm: createForm(svc),
    createTemplate: createTemplate(svc),
    createTransformation: createTransformation(svc),
    deleteAutomation: deleteAutomation(svc),
    deleteComponentGroup: deleteComponentGroup(svc),
    updateForm: updateForm(svc),
    deleteForm: deleteForm(svc),
    updateProject: updateProject(svc),
    createProject: createProject(svc),
    addProjectComponents: addProjectComponents(svc),
    removeProjectComponent: removeProjectComponent(svc),
    deleteProject: deleteProject(svc),
    deleteTemplate: deleteTemplate(svc),
    deleteTransformation: deleteTransformation(svc),
    exportForm: exportForm(svc),
    exportProject: exportProject(svc),
    exportTemplate: exportTemplate(svc),
    getAutomation: getAutomation(svc),
    getAutomations: getAutomations(svc),
    getComponentGroup: getComponentGroup(svc),
    getComponentGroups: getComponentGroups(svc),
    getForm: getForm(svc),
    getForms: getForms(svc),
    getMethodOptions: getMethodOptions(svc),
    getProject: getProject(svc),
    getProjects: getProjects(svc),
    getReferencesTo: getReferencesTo(svc),
    getTemplate: getTemplate(svc),
    getTemplates: getTemplates(svc),
    getTransformation: getTransformation(svc),
    getTransformations: getTransformations(svc),
    getWorkflow: getWorkflow(svc),
    getWorkflows: getWorkflows(svc),
    importAutomations: importAutomations(svc),
    importComponentGroups: importComponentGroups(svc),
    importForms: importForms(svc),
    importProject: importProject(svc),
    importTemplates: importTemplates(svc),
    importTransformations: importTransformations(svc),
    importTransformation: importTransformation(svc),
    getJsonForms: getJsonForms(svc),
    getJsonForm: getJsonForm(svc),
    createJsonForm: createJsonForm(svc),
    deleteJsonForms: deleteJsonForms(svc),
    importJsonForms: importJsonForms(svc),
    deleteWorkflowByName: deleteWorkflowByName(svc),
    exportWorkflow: exportWorkflow(svc),
    parseTemplate: parseTemplate(svc),
    renderJinjaTemplate: renderJinjaTemplate(svc),
    renderJinjaText: renderJinjaText(svc),
    runTransformationById: runTransformationById(svc),
    runTransformation: runTransformation(svc),
    updateAutomation: updateAutomation(svc),
    updateComponentGroup: updateComponentGroup(svc),
    updateTemplate: updateTemplate(svc),
    updateTransformation: updateTransformation(svc),
    validateTransformation: validateTransformation(svc),
    visibleWorkflows: visibleWorkflows(svc),
    getTags: getTags(svc),
    getTag: getTag(svc),
    createTag: createTag(svc),
    updateTag: updateTag(svc),
    deleteTag: deleteTag(svc),
    getTagsByReference: getTagsByReference(svc),
    createTagReference: createTagReference(svc),
    getTagReferences: getTagReferences(svc),
    handleTagReferences: handleTagReferences(svc),
  };
}
