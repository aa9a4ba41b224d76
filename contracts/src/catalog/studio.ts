import { ROLE_SETS } from '../roles';
import { acknowledgement, anyObject, arr, embed, name, obj, pageOf, str } from '../schemas/common';
import { importResultItemSchema, importResultSchema } from '../schemas/automation';
import { exportFormBodySchema, formSchema } from '../schemas/form';
import { listQuerySchema } from '../schemas/query';
import { workflowDocumentSchema, workflowInputSchema } from '../schemas/studio';
import type { JsonSchema } from './types';
import { defineOperations } from './define';

/** A studio document whose fields the spec does not show: a name and anything else. */
function namedDocument(description: string): JsonSchema {
  return obj({ name: name() }, ['name'], { description });
}

/** A stored studio document: an id and a name, other fields open. */
function storedDocument(): JsonSchema {
  return obj({ _id: str(), name: str() }, ['_id', 'name']);
}

function importResult(id: string, item: JsonSchema): JsonSchema {
  return importResultSchema(id, importResultItemSchema(item, storedDocument()));
}

const workflow = embed(workflowDocumentSchema);
const workflowInput = embed(workflowInputSchema);

/**
 * Operations of the `studio` service: workflow documents (`/automation-studio/automations`), studio
 * templates, component groups, JSON-form helpers, JST transformations and forms (`/formbuilder/*`).
 */
export const STUDIO_OPERATIONS = defineOperations('studio', [
  {
    name: 'createAutomation',
    summary: 'Create a workflow document',
    http: { method: 'POST', path: '/automation-studio/automations' },
    roles: ROLE_SETS.write,
    body: obj({ automation: workflowInput }, ['automation']),
    response: obj({ created: workflow, edit: str({ description: 'path of the editor view' }) }, ['created']),
    notes: 'Payload not shown by the spec; the body carries the workflow under automation and the answer the stored document under created.',
  },
  {
    name: 'importAutomations',
    summary: 'Import workflow documents',
    http: { method: 'POST', path: '/automation-studio/automations/import' },
    roles: ROLE_SETS.write,
    body: obj({ automations: arr(workflowInput, { minItems: 1 }) }, ['automations']),
    response: importResult('nap:schemas/workflow-import-result', workflowInput),
    timeoutMs: 120_000,
    notes: 'Reports per item like the other import routes.',
  },
  {
    name: 'updateAutomation',
    summary: 'Replace a workflow document',
    http: { method: 'PUT', path: '/automation-studio/automations/:id' },
    roles: ROLE_SETS.write,
    body: obj({ update: workflowInput }, ['update']),
    response: obj({ updated: workflow, edit: str() }, ['updated']),
  },
  {
    name: 'createComponentGroup',
    summary: 'Create a component group document',
    http: { method: 'POST', path: '/automation-studio/component-groups' },
    roles: ROLE_SETS.write,
    body: obj({ componentGroup: namedDocument('component group: name and members') }, ['componentGroup']),
    response: storedDocument(),
  },
  {
    name: 'deleteComponentGroup',
    summary: 'Delete a component group',
    http: { method: 'DELETE', path: '/automation-studio/component-groups/:id' },
    roles: ROLE_SETS.write,
    response: acknowledgement(),
  },
  {
    name: 'getComponentGroup',
    summary: 'Get one component group',
    http: { method: 'GET', path: '/automation-studio/component-groups/:id' },
    roles: ROLE_SETS.read,
    response: storedDocument(),
  },
  {
    name: 'getComponentGroups',
    summary: 'Get a page of component groups',
    http: { method: 'GET', path: '/automation-studio/component-groups' },
    roles: ROLE_SETS.read,
    query: listQuerySchema,
    response: pageOf(storedDocument()),
  },
  {
    name: 'importComponentGroups',
    summary: 'Import component groups',
    http: { method: 'POST', path: '/automation-studio/component-groups/import' },
    roles: ROLE_SETS.write,
    body: obj({ componentGroups: arr(namedDocument('component group'), { minItems: 1 }) }, ['componentGroups']),
    response: importResult('nap:schemas/component-group-import-result', namedDocument('component group')),
  },
  {
    name: 'updateComponentGroup',
    summary: 'Replace a component group',
    http: { method: 'PUT', path: '/automation-studio/component-groups/:id' },
    roles: ROLE_SETS.write,
    body: obj({ update: namedDocument('component group') }, ['update']),
    response: storedDocument(),
  },
  {
    name: 'createTemplate',
    summary: 'Create a template document',
    http: { method: 'POST', path: '/automation-studio/templates' },
    roles: ROLE_SETS.write,
    body: obj({ template: namedDocument('studio template (text or JST document)') }, ['template']),
    response: storedDocument(),
  },
  {
    name: 'deleteTemplate',
    summary: 'Delete a template',
    http: { method: 'DELETE', path: '/automation-studio/templates/:id' },
    roles: ROLE_SETS.write,
    response: acknowledgement(),
  },
  {
    name: 'exportTemplate',
    summary: 'Export a template',
    http: { method: 'GET', path: '/automation-studio/templates/:id/export' },
    roles: ROLE_SETS.read,
    response: storedDocument(),
  },
  {
    name: 'getTemplate',
    summary: 'Get one template',
    http: { method: 'GET', path: '/automation-studio/templates/:id' },
    roles: ROLE_SETS.read,
    response: storedDocument(),
  },
  {
    name: 'getTemplates',
    summary: 'Get a page of templates',
    http: { method: 'GET', path: '/automation-studio/templates' },
    roles: ROLE_SETS.read,
    query: listQuerySchema,
    response: pageOf(storedDocument()),
  },
  {
    name: 'importTemplates',
    summary: 'Import templates',
    http: { method: 'POST', path: '/automation-studio/templates/import' },
    roles: ROLE_SETS.write,
    body: obj({ templates: arr(namedDocument('studio template'), { minItems: 1 }) }, ['templates']),
    response: importResult('nap:schemas/template-import-result', namedDocument('studio template')),
  },
  {
    name: 'updateTemplate',
    summary: 'Replace a template',
    http: { method: 'PUT', path: '/automation-studio/templates/:id' },
    roles: ROLE_SETS.write,
    body: obj({ update: namedDocument('studio template') }, ['update']),
    response: storedDocument(),
  },
  {
    name: 'getMethodOptions',
    summary: 'List all available REST calls',
    http: { method: 'GET', path: '/automation-studio/json-forms/method-options' },
    roles: ROLE_SETS.read,
    response: arr(obj({ name: str(), app: str(), path: str(), method: str() })),
    timeoutMs: 5_000,
  },
  {
    name: 'getReferencesTo',
    summary: 'List the references to a document',
    http: { method: 'GET', path: '/automation-studio/references-to' },
    roles: ROLE_SETS.read,
    query: obj(
      { target: name('id or name of the referenced document'), type: str({ description: 'kind of the referenced document, for example workflow, template, form' }) },
      ['target'],
    ),
    response: obj({ references: arr(obj({ type: str(), _id: str(), name: str() })), total: { type: 'integer', minimum: 0 } }, ['references']),
  },
  {
    name: 'runTransformation',
    summary: 'Transform data with a JST transformation document',
    http: { method: 'POST', path: '/automation-studio/json-forms/runTransformation/:transformationId' },
    roles: ROLE_SETS.run,
    body: obj({ incoming: anyObject('input data, by the transformation\'s incoming names'), options: anyObject() }, ['incoming']),
    response: anyObject('outgoing data, by the transformation\'s outgoing names'),
  },
  // operation 19
  {
    name: 'exportForm',
    summary: 'Export a form',
    http: { method: 'POST', path: '/formbuilder/forms/export' },
    roles: ['admin', 'apiread'],
    body: exportFormBodySchema,
    response: formSchema,
    notes: '"No other member" is applied both to the top level (only options) and to options (only _id and name).',
  },
  // additions
  {
    name: 'getAutomations',
    summary: 'Get a page of workflow documents',
    http: { method: 'GET', path: '/automation-studio/automations' },
    roles: ROLE_SETS.read,
    query: listQuerySchema,
    response: pageOf(workflow),
    addition: true,
  },
  {
    name: 'getAutomation',
    summary: 'Get one workflow document',
    http: { method: 'GET', path: '/automation-studio/automations/:id' },
    roles: ROLE_SETS.read,
    response: workflow,
    addition: true,
  },
  {
    name: 'deleteAutomation',
    summary: 'Delete a workflow document',
    http: { method: 'DELETE', path: '/automation-studio/automations/:id' },
    roles: ROLE_SETS.write,
    response: acknowledgement(),
    addition: true,
  },
  {
    name: 'getWorkflow',
    summary: 'Get a workflow document by name or id (for the workflow engine)',
    roles: ROLE_SETS.read,
    body: obj({ name: name(), id: name() }, [], { anyOf: [{ required: ['name'] }, { required: ['id'] }] }),
    response: workflow,
    addition: true,
    notes: 'Bus-only; the workflow engine reads the document it starts a job from.',
  },
]);
