import { ROLE_SETS } from '../roles';
import { withPrintableNames } from '../names';
import { Type } from '@sinclair/typebox';
import type { Static, TObject, TProperties, TSchema } from '@sinclair/typebox';
import {
  acknowledgement,
  anyObject,
  anyValue,
  arr,
  bool,
  closed,
  embed,
  int,
  literal,
  name,
  nullable,
  obj,
  oneOf,
  pageOf,
  printableName,
  str,
  timestamp,
  withId,
  withOneOf,
} from '../schemas/common';
import { createdResultSchema } from '../schemas/automation';
import { exportFormBodySchema, formSchema } from '../schemas/form';
import { listQuerySchema } from '../schemas/query';
import {
  addProjectComponentsBodySchema,
  createProjectBodySchema,
  exportedProjectSchema,
  projectEnvelopeSchema,
  projectPageSchema,
  removeProjectComponentBodySchema,
  updateProjectBodySchema,
} from '../schemas/project';
import { envelopeOf } from '../schemas/envelope';
import {
  componentGroupInputSchema,
  componentGroupSchema,
  formInputSchema,
  storedFormSchema,
  studioTemplateInputSchema,
  studioTemplateSchema,
  workflowDocumentSchema,
  workflowInputSchema,
  workflowProblemSchema,
  workflowSaveResultSchema,
} from '../schemas/studio';
import {
  transformationInputSchema,
  transformationRunBodySchema,
  transformationSchema,
  transformationValidationSchema,
} from '../schemas/transformation';
import { TIMEOUTS_MS, defineOperations } from './define';
import { TEMPLATE_BUILDER_OPERATIONS } from './template-builder';

/**
 * An import result (`{ status: 'success', message, imported }`) whose items carry the submitted
 * document in `original` and the stored one (or null) in `created`; `extra` adds item members.
 */
function importResult<C extends TSchema, X extends TProperties>(id: string, created: C, extra: X) {
  const item = obj(
    {
      success: bool({ description: 'outcome for this item' }),
      message: str(),
      original: anyObject('the submitted document'),
      created: nullable(created),
      ...extra,
    },
    ['success', 'message', 'original', 'created'],
  );
  return withId(
    id,
    obj({ status: literal('success'), message: str({ description: 'how many were imported' }), imported: arr(item) }, [
      'status',
      'message',
      'imported',
    ]),
  );
}

/** `result` with one more member, `created`: the stored document again, where ipctl reads it. */
function withCreated<P extends TProperties, C extends TSchema>(id: string, result: TObject<P>, created: C) {
  // the optional members of result stay optional: their schemas carry the modifier
  return withId(id, Type.Object({ ...result.properties, created }));
}

const workflow = embed(workflowDocumentSchema);
const workflowInput = embed(workflowInputSchema);
const problem = embed(workflowProblemSchema);
const template = embed(studioTemplateSchema);
const templateInput = embed(studioTemplateInputSchema);
const componentGroup = embed(componentGroupSchema);
const componentGroupInput = embed(componentGroupInputSchema);
const storedForm = embed(storedFormSchema);
/** A stored form as the json-forms routes answer it: with id, its _id, where the original platform puts it. */
const jsonForm = Type.Intersect([storedForm, obj({ id: str({ description: 'the same as _id' }) }, ['id'])]);
const transformation = embed(transformationSchema);
const transformationInput = embed(transformationInputSchema);
const transformationRunBody = embed(transformationRunBodySchema);
const transformationValidation = embed(transformationValidationSchema);
const transformationProblem = transformationValidation.properties.errors.items;
const transformationsImportBody = obj({ transformations: arr(anyObject('a transformation document'), { minItems: 1 }) }, [
  'transformations',
]);
const transformationImportResult = importResult('nap:schemas/transformation-import-result', transformation, {
  problems: arr(transformationProblem, { description: 'why the item was refused (failed items)' }),
});

/**
 * The query of the studio's list routes: the shared list options and no other member, so that a
 * filter the route does not support (`in[name]=…`, `gt[created]=…`, a misspelt member) is refused
 * with 400 VALIDATION_FAILED naming it, never ignored with every document answered.
 */
const listQuery = closed({ ...listQuerySchema.properties });

const LIST_QUERY_NOTE =
  'Query: equals, contains and startsWith (as text with equalsField/containsField/startsWithField, or field-wise: equals[name]=x), skip, limit, sort and order; ' +
  'any other member (in[...], not-in[...], gt[...], …) is refused with 400 VALIDATION_FAILED naming it, as is a field outside the filter fields.';

/** The kinds of studio document a tag can be put on (`type` of a tag reference): the studio's own, whose existence it checks. */
export const TAG_REFERENCE_TYPES = ['workflow', 'transformation', 'template', 'jsonForm'] as const;
/** One of {@link TAG_REFERENCE_TYPES}. */
export type TagReferenceType = (typeof TAG_REFERENCE_TYPES)[number];

/** A tag as the `/tags/*` routes answer it: `{ _id, name, description }` (what ipctl reads) and its audit members. */
export const tagSchema = withId(
  'nap:schemas/tag',
  obj(
    {
      _id: str(),
      name: str({ description: 'unique' }),
      description: str({ description: 'empty when none was given' }),
      created: timestamp(),
      createdBy: str(),
      lastUpdated: timestamp(),
      lastUpdatedBy: str(),
    },
    ['_id', 'name', 'description', 'created', 'createdBy', 'lastUpdated', 'lastUpdatedBy'],
  ),
);
/** A tag: a unique name and a description, put on studio documents by tag references. */
export type Tag = Static<typeof tagSchema>;

/** A tag reference: tag `tag_id` is on the document `ref_id` of kind `type`. */
export const tagReferenceSchema = withId(
  'nap:schemas/tag-reference',
  obj(
    {
      _id: str({ description: "the reference's own id" }),
      tag_id: str(),
      ref_id: str({ description: 'id of the tagged document' }),
      type: oneOf(TAG_REFERENCE_TYPES, { description: 'kind of the tagged document' }),
    },
    ['_id', 'tag_id', 'ref_id', 'type'],
  ),
);
/** One tag on one studio document. */
export type TagReference = Static<typeof tagReferenceSchema>;

const tag = embed(tagSchema);
const tagReference = embed(tagReferenceSchema);
/** A tag's description as a request gives it: one paragraph of text at most 1000 characters long. */
const tagDescription = str({ maxLength: 1000, description: 'free text, up to 1000 characters; empty when left out' });
const tagId = name('id of a tag');
const refId = name('id of the tagged document');
const refType = oneOf(TAG_REFERENCE_TYPES, { description: 'kind of the tagged document' });
const TAG_ACCESS_NOTE =
  'A workflow or form shared with groups the caller is in none of is refused with 403 GROUP_ACCESS_DENIED (admins may), as its own routes refuse it.';

/**
 * Operations of the `studio` service: workflow documents (`/automation-studio/automations`), studio
 * templates, component groups, JSON-form helpers, JST transformations and forms (`/formbuilder/*`).
 *
 * Access: a workflow or form whose `groups` is not empty is seen and changed only by members of one
 * of those groups and by callers with the admin role; lists leave out what the caller may not see.
 */
export const STUDIO_OPERATIONS = defineOperations('studio', [
  {
    name: 'createAutomation',
    summary: 'Create a workflow document',
    http: { method: 'POST', path: '/automation-studio/automations' },
    auditKind: 'workflow',
    roles: ROLE_SETS.write,
    body: obj({ automation: workflowInput }, ['automation']),
    response: withCreated('nap:schemas/workflow-created', workflowSaveResultSchema('nap:schemas/workflow-saved', 'Created'), workflow),
    notes:
      'Payload not shown by the spec. Answers { status: Created, message, data: <stored workflow>, created: <the same>, warnings } (ipctl reads created). The graph is validated: ' +
      'transitions name existing tasks, workflow_start and workflow_end exist, every task is reachable from workflow_start, states and types are known; ' +
      'a problem answers 400 WORKFLOW_INVALID whose details list each one; what is legal but risky comes back in warnings. Names are unique (409 WORKFLOW_ALREADY_EXISTS). ' +
      "A submitted _id made of letters, digits, _ and - (up to 64) is kept, so references survive an export; the audit fields are always the service's.",
  },
  {
    name: 'importAutomations',
    summary: 'Import workflow documents',
    http: { method: 'POST', path: '/automation-studio/automations/import' },
    auditKind: 'workflow',
    roles: ROLE_SETS.write,
    body: obj({ automations: arr(anyObject('a workflow document'), { minItems: 1 }) }, ['automations']),
    response: importResult('nap:schemas/workflow-import-result', workflow, {
      warnings: arr(problem, { description: 'legal but risky findings (imported items)' }),
      problems: arr(problem, { description: 'why the item was refused (failed items)' }),
    }),
    timeoutMs: TIMEOUTS_MS.long,
    notes:
      'Reports per item like the other import routes: a refused item has success false, a message, created null and its problems; the response status stays success.',
  },
  {
    name: 'updateAutomation',
    summary: 'Replace a workflow document',
    http: { method: 'PUT', path: '/automation-studio/automations/:id' },
    auditKind: 'workflow',
    roles: ROLE_SETS.write,
    body: obj({ update: workflowInput }, ['update']),
    response: workflowSaveResultSchema('nap:schemas/workflow-updated', 'success'),
    notes: 'Replaces the whole document (created and created_by stay); validated as on creation.',
  },
  {
    name: 'createComponentGroup',
    summary: 'Create a component group document',
    http: { method: 'POST', path: '/automation-studio/component-groups' },
    roles: ROLE_SETS.write,
    body: obj({ componentGroup: componentGroupInput }, ['componentGroup']),
    response: createdResultSchema('nap:schemas/component-group-created', componentGroup),
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
    response: componentGroup,
  },
  {
    name: 'getComponentGroups',
    summary: 'Get a page of component groups',
    http: { method: 'GET', path: '/automation-studio/component-groups' },
    roles: ROLE_SETS.read,
    query: listQuery,
    response: pageOf(componentGroup),
    notes:
      'Filter fields: name, _id, description, type, group, createdBy, lastUpdatedBy; sort also by created and lastUpdated. ' +
      LIST_QUERY_NOTE,
  },
  {
    name: 'importComponentGroups',
    summary: 'Import component groups',
    http: { method: 'POST', path: '/automation-studio/component-groups/import' },
    roles: ROLE_SETS.write,
    body: obj({ componentGroups: arr(anyObject('a component group'), { minItems: 1 }) }, ['componentGroups']),
    response: importResult('nap:schemas/component-group-import-result', componentGroup, {}),
    timeoutMs: TIMEOUTS_MS.long,
  },
  {
    name: 'updateComponentGroup',
    summary: 'Replace a component group',
    http: { method: 'PUT', path: '/automation-studio/component-groups/:id' },
    roles: ROLE_SETS.write,
    body: obj({ update: componentGroupInput }, ['update']),
    response: componentGroup,
  },
  {
    name: 'createTemplate',
    summary: 'Create a template document',
    http: { method: 'POST', path: '/automation-studio/templates' },
    roles: ROLE_SETS.write,
    body: obj({ template: templateInput }, ['template']),
    response: withCreated(
      'nap:schemas/studio-template-created',
      createdResultSchema('nap:schemas/studio-template-saved', template),
      template,
    ),
    notes:
      'A studio template is a jinja2 or textfsm text with sample data; names are unique (409 TEMPLATE_ALREADY_EXISTS). ' +
      'Answers { status: Created, message, data: <stored template>, created: <the same> } (ipctl reads created).',
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
    response: template,
    notes: 'The stored document, as importTemplates takes it back.',
  },
  {
    name: 'getTemplate',
    summary: 'Get one template',
    http: { method: 'GET', path: '/automation-studio/templates/:id' },
    roles: ROLE_SETS.read,
    response: template,
  },
  {
    name: 'getTemplates',
    summary: 'Get a page of templates',
    http: { method: 'GET', path: '/automation-studio/templates' },
    roles: ROLE_SETS.read,
    query: listQuery,
    response: pageOf(template),
    notes:
      'Filter fields: name, _id, description, type, group, createdBy, lastUpdatedBy; sort also by created and lastUpdated. ' +
      LIST_QUERY_NOTE,
  },
  {
    name: 'importTemplates',
    summary: 'Import templates',
    http: { method: 'POST', path: '/automation-studio/templates/import' },
    roles: ROLE_SETS.write,
    body: obj({ templates: arr(anyObject('a studio template'), { minItems: 1 }) }, ['templates']),
    response: importResult('nap:schemas/template-import-result', template, {}),
    timeoutMs: TIMEOUTS_MS.long,
  },
  {
    name: 'updateTemplate',
    summary: 'Replace a template',
    http: { method: 'PUT', path: '/automation-studio/templates/:id' },
    roles: ROLE_SETS.write,
    body: obj({ update: templateInput }, ['update']),
    response: template,
  },
  {
    name: 'getMethodOptions',
    summary: 'List all available REST calls',
    http: { method: 'GET', path: '/automation-studio/json-forms/method-options' },
    roles: ROLE_SETS.read,
    response: arr(obj({ name: str(), app: str(), path: str(), method: str() }, ['name', 'app', 'path', 'method'])),
    timeoutMs: TIMEOUTS_MS.short,
    notes: "The HTTP routes of the catalog that the caller's roles allow; app is the owning service.",
  },
  {
    name: 'getReferencesTo',
    summary: 'List the references to a document',
    http: { method: 'GET', path: '/automation-studio/references-to' },
    roles: ROLE_SETS.read,
    query: closed(
      {
        target: name('id or name of the referenced document'),
        type: oneOf(['workflow', 'transformation', 'template', 'mopTemplate', 'form'], {
          description: 'kind of the referenced document; every kind when absent',
        }),
      },
      ['target'],
    ),
    response: obj(
      {
        references: arr(
          obj(
            {
              type: str({ description: 'kind of the referring document: workflow or componentGroup' }),
              _id: str(),
              name: str(),
              tasks: arr(str(), { description: 'referring task ids (workflows)' }),
            },
            ['type', '_id', 'name'],
          ),
        ),
        total: int({ minimum: 0 }),
      },
      ['references', 'total'],
    ),
    notes:
      'Workflows refer to a workflow by childJob workflow, to a JST by transformation tr_id or childJob transformation, to a studio template by TemplateBuilder name or template, ' +
      'to a command template by MOP template; component groups refer by member id or name. A target that is the id of a stored workflow, template or form also matches its name, and the name of a stored transformation its id (tasks name a JST by id). ' +
      'A project member that refers by a plain name refers to the member of its own project of that name when there is one (as it runs), and so is found by that member. ' +
      'A query member other than target and type is refused with 400 VALIDATION_FAILED naming it.',
  },
  {
    name: 'runTransformation',
    summary: 'Transform data with a JST transformation document',
    http: { method: 'POST', path: '/automation-studio/json-forms/runTransformation/:transformationId' },
    roles: ROLE_SETS.run,
    body: transformationRunBody,
    response: anyValue({
      description: 'the result itself: an object keyed by outgoing $id, or any JSON value when extractOutput answers a bare one',
    }),
    notes:
      'Runs the JST (by id or name) on { incoming, options }; a body with data and no incoming runs with data as incoming. Answers the result with no envelope. ' +
      '404 TRANSFORMATION_NOT_FOUND; 400 TRANSFORMATION_INCOMING_INVALID (validateIncoming); 422 TRANSFORMATION_STEP_FAILED naming the step id and method; 422 TRANSFORMATION_LIMIT_EXCEEDED.',
  },
  // the spec's POST /formbuilder/forms/export
  {
    name: 'exportForm',
    summary: 'Export a form',
    http: { method: 'POST', path: '/formbuilder/forms/export' },
    roles: ['admin', 'apiread'],
    body: exportFormBodySchema,
    response: formSchema,
    notes:
      '"No other member" is applied both to the top level (only options) and to options (only _id and name). With both _id and name, both must match. ' +
      "The answer is the spec's Form: children and elements are [] when the form has none.",
  },
  // additions
  {
    name: 'getAutomations',
    summary: 'Get a page of workflow documents',
    http: { method: 'GET', path: '/automation-studio/automations' },
    auditKind: 'workflow',
    roles: ROLE_SETS.read,
    query: listQuery,
    response: pageOf(workflow),
    addition: true,
    notes:
      'Filter fields: _id, name, description, type, created_by, last_updated_by; sort also by created and last_updated. Default limit 50, at most 500. ' +
      LIST_QUERY_NOTE,
  },
  {
    name: 'getAutomation',
    summary: 'Get one workflow document',
    http: { method: 'GET', path: '/automation-studio/automations/:id' },
    auditKind: 'workflow',
    roles: ROLE_SETS.read,
    response: workflow,
    addition: true,
  },
  {
    name: 'deleteAutomation',
    summary: 'Delete a workflow document',
    http: { method: 'DELETE', path: '/automation-studio/automations/:id' },
    auditKind: 'workflow',
    roles: ROLE_SETS.write,
    response: acknowledgement(),
    addition: true,
  },
  {
    name: 'getWorkflow',
    summary: 'Get a workflow document by name or id (for the workflow engine)',
    roles: ROLE_SETS.read,
    body: withOneOf(obj({ name: name(), id: name(), from: name('the workflow whose childJob task names this one') }), ['name', 'id']),
    response: workflow,
    addition: true,
    notes:
      'Bus-only; the workflow engine reads the document it starts a job from. With both name and id, both must match. ' +
      "With from (a project member `@<project id>: <name>`), a plain name means that project's member of the name first, then the workflow of that plain name. " +
      '404 WORKFLOW_NOT_FOUND, 403 GROUP_ACCESS_DENIED.',
  },
  {
    name: 'visibleWorkflows',
    summary: 'Which of the given workflow names the caller may see',
    roles: ROLE_SETS.read,
    body: closed({ names: arr(str(), { maxItems: 500 }) }, ['names']),
    response: closed({ names: arr(str(), { maxItems: 500 }) }, ['names']),
    addition: true,
    notes:
      "Bus-only; the workflow engine's metrics routes ask it which workflows a caller who is not an admin may see figures of. Names of no workflow are left out.",
  },
  ...TEMPLATE_BUILDER_OPERATIONS,
  {
    name: 'createForm',
    summary: 'Create a form',
    http: { method: 'POST', path: '/formbuilder/forms' },
    roles: ROLE_SETS.write,
    body: obj({ form: embed(formInputSchema) }, ['form']),
    response: createdResultSchema('nap:schemas/form-created', storedForm),
    addition: true,
    notes:
      'Names are unique (409 FORM_ALREADY_EXISTS); _id is a UUID v4, kept when the form brings one; a brought _id that is not a UUID v4 is refused with 400 VALIDATION_FAILED naming body.form._id. ' +
      'children and elements are [] when the form brings none.',
  },
  {
    name: 'importForms',
    summary: 'Import forms',
    http: { method: 'POST', path: '/formbuilder/forms/import' },
    roles: ROLE_SETS.write,
    body: obj({ forms: arr(anyObject('a form (formbuilder or JSON form)'), { minItems: 1 }) }, ['forms']),
    response: importResult('nap:schemas/form-import-result', storedForm, {}),
    timeoutMs: TIMEOUTS_MS.long,
    addition: true,
    notes:
      'Reports per item like the other import routes. Forms come from other systems as they are: an _id that is a UUID v4 is kept, another one (an ObjectId) is replaced by a new UUID v4, ' +
      "which the item's created answers. children and elements are [] when the form brings none.",
  },
  {
    name: 'getForms',
    summary: 'Get a page of forms',
    http: { method: 'GET', path: '/formbuilder/forms' },
    roles: ROLE_SETS.read,
    query: listQuery,
    response: pageOf(storedForm),
    addition: true,
    notes: 'Filter fields: name, _id, description, created_by, last_updated_by; sort also by created and last_updated. ' + LIST_QUERY_NOTE,
  },
  {
    name: 'getForm',
    summary: 'Get one form',
    http: { method: 'GET', path: '/formbuilder/forms/:id' },
    roles: ROLE_SETS.read,
    response: storedForm,
    addition: true,
    notes:
      "Found by its id, then by its name (a project member's @<project id>: <name>, as exported manual triggers name their form in formId), then by the id member other platforms give a form; 404 FORM_NOT_FOUND otherwise.",
  },
  {
    name: 'updateForm',
    summary: 'Replace a form',
    http: { method: 'PUT', path: '/formbuilder/forms/:id' },
    roles: ROLE_SETS.write,
    body: closed({ form: embed(formInputSchema) }, ['form']),
    response: withId(
      'nap:schemas/form-updated',
      obj({ status: literal('success'), message: str(), data: storedForm }, ['status', 'message', 'data']),
    ),
    addition: true,
    notes:
      'Replaces the whole form by body.form, checked as on creation (POST /formbuilder/forms); its id, created and created_by stay. ' +
      'An _id in the form must be the id of the route (400 VALIDATION_FAILED naming body.form._id otherwise); leave it out. ' +
      'A form shared with groups the caller is in none of, or groups given that the caller is in none of, is 403 GROUP_ACCESS_DENIED (admins may); ' +
      'an unknown id 404 FORM_NOT_FOUND; a name another form has 409 FORM_ALREADY_EXISTS. ' +
      'The form is replaced only as it was read and checked (compare-and-set on last_updated, tried again up to 20 times): a change made meanwhile is never written over unchecked.',
  },
  {
    name: 'deleteForm',
    summary: 'Delete a form',
    http: { method: 'DELETE', path: '/formbuilder/forms/:id' },
    roles: ROLE_SETS.write,
    response: acknowledgement(),
    addition: true,
  },
  {
    name: 'getWorkflows',
    summary: "Get a page of workflow documents (the platform's own name for the automations list)",
    http: { method: 'GET', path: '/automation-studio/workflows' },
    roles: ROLE_SETS.read,
    query: listQuery,
    response: pageOf(workflow),
    addition: true,
    notes:
      'The same list as GET /automation-studio/automations: { items, total, skip, limit }; equals[name]=<name> finds one by name, project members included. ' +
      LIST_QUERY_NOTE,
  },
  // the original platform's routes that ipctl calls: workflow_builder and json-forms (additions)
  {
    name: 'deleteWorkflowByName',
    summary: 'Delete a workflow document by name',
    http: { method: 'DELETE', path: '/workflow_builder/workflows/delete/:name' },
    auditKind: 'workflow',
    roles: ROLE_SETS.write,
    response: acknowledgement(),
    addition: true,
    notes:
      'As DELETE /automation-studio/automations/:id, the workflow named by its exact name (a project member by its @<project id>: <name>). 404 WORKFLOW_NOT_FOUND.',
  },
  {
    name: 'exportWorkflow',
    summary: 'Export a workflow document by name or id',
    http: { method: 'POST', path: '/workflow_builder/export' },
    auditKind: 'workflow',
    roles: ROLE_SETS.read,
    body: closed({ options: withOneOf(closed({ name: name('workflow name'), _id: name('workflow id') }), ['name', '_id']) }, ['options']),
    response: workflow,
    addition: true,
    notes:
      'A read although it is a POST: the stored document, as POST /automation-studio/automations/import takes it back. With both name and _id, both must match. 404 WORKFLOW_NOT_FOUND.',
  },
  {
    name: 'getJsonForms',
    summary: 'List every JSON form',
    http: { method: 'GET', path: '/json-forms/forms' },
    roles: ROLE_SETS.read,
    response: arr(jsonForm),
    addition: true,
    notes:
      'The forms of GET /formbuilder/forms (studio forms: JSON forms and form-builder forms are one kind), all of them the caller may see, as a bare array sorted by name, ' +
      'each with id: its _id (where the original platform and ipctl read it).',
  },
  {
    name: 'getJsonForm',
    summary: 'Get one JSON form',
    http: { method: 'GET', path: '/json-forms/forms/:id' },
    roles: ROLE_SETS.read,
    response: withId('nap:schemas/json-form', jsonForm),
    addition: true,
    notes: 'As GET /formbuilder/forms/:id, with id: its _id. 404 FORM_NOT_FOUND.',
  },
  {
    name: 'createJsonForm',
    summary: 'Create a JSON form',
    http: { method: 'POST', path: '/json-forms/forms' },
    roles: ROLE_SETS.write,
    body: embed(formInputSchema),
    response: withId(
      'nap:schemas/json-form-created',
      obj({ status: literal('success'), n: int({ minimum: 1 }), message: str(), doc: jsonForm }, ['status', 'n', 'message', 'doc']),
    ),
    addition: true,
    notes:
      "Takes the bare form (as ipctl sends it) and stores it as POST /formbuilder/forms does; an empty id and the audit members it brings are the service's to set. " +
      'Answers { status: success, n: 1, message, doc: <the stored form with id> }. 409 FORM_ALREADY_EXISTS.',
  },
  {
    name: 'deleteJsonForms',
    summary: 'Delete JSON forms by id',
    http: { method: 'DELETE', path: '/json-forms/forms' },
    // a refusal is recorded against each form asked for, as each deleted form is
    auditEach: 'ids',
    roles: ROLE_SETS.write,
    body: closed({ ids: arr(name('form id'), { minItems: 1, maxItems: 500 }) }, ['ids']),
    response: withId(
      'nap:schemas/json-forms-deleted',
      obj({ status: literal('success'), n: int({ minimum: 0 }), message: str() }, ['status', 'n', 'message']),
    ),
    addition: true,
    notes:
      'All or nothing: every id is checked first (an unknown one 404 FORM_NOT_FOUND naming it; a form shared with groups the caller is in none of 403 GROUP_ACCESS_DENIED), then each is deleted. n: how many were.',
  },
  {
    name: 'importJsonForms',
    summary: 'Import JSON forms',
    http: { method: 'POST', path: '/json-forms/import/forms' },
    roles: ROLE_SETS.write,
    body: obj({ forms: arr(anyObject('a JSON form'), { minItems: 1 }) }, ['forms']),
    response: importResult('nap:schemas/json-form-import-result', storedForm, {}),
    timeoutMs: TIMEOUTS_MS.long,
    addition: true,
    notes:
      "As POST /formbuilder/forms/import: per item; created is the stored form, whose _id GET /json-forms/forms/:id takes. A form's own id (another platform's) is kept as a member, and GET /formbuilder/forms/:id finds it by it.",
  },
  {
    name: 'getProjects',
    summary: 'Get a page of projects',
    http: { method: 'GET', path: '/automation-studio/projects' },
    roles: ROLE_SETS.read,
    query: listQuery,
    response: projectPageSchema,
    addition: true,
    notes:
      'Filter fields: _id, name, description, createdBy. Default limit 50, at most 500; sorted by name. ' +
      "Components shared with groups the caller is in none of (workflows and forms; admins see all) are left out of each project's components, " +
      'and so are components deleted through their own routes; components renamed through their own routes are listed under their names now. ' +
      LIST_QUERY_NOTE,
  },
  {
    name: 'getProject',
    summary: 'Get one project',
    http: { method: 'GET', path: '/automation-studio/projects/:id' },
    roles: ROLE_SETS.read,
    response: projectEnvelopeSchema,
    addition: true,
    notes:
      'Components shared with groups the caller is in none of (workflows and forms; admins see all) are left out of components; metadata.componentsLeftOut says how many. ' +
      'A project holds its components by id: a component renamed through its own route is answered under its name now; one deleted through its own route is left out, and metadata.componentsGone ({ iid, type, name }) and metadata.note name it ' +
      '(a deleted workflow or form by its iid and type alone, its name only to admins: who it was shared with is not known once it is gone).',
  },
  {
    name: 'updateProject',
    summary: 'Change a project: its name or description',
    http: { method: 'PATCH', path: '/automation-studio/projects/:id' },
    roles: ROLE_SETS.write,
    body: updateProjectBodySchema,
    response: projectEnvelopeSchema,
    addition: true,
    notes:
      'The members given change, the others stay; another member (components, folders, _id, …) is 400 VALIDATION_FAILED naming it: components change through their own routes. ' +
      'A project has no members or roles of its own; who may change it is who may delete it: ' +
      'a project with a component shared with groups the caller is in none of (workflows and forms; admins may) is refused with 403 GROUP_ACCESS_DENIED naming each such component by its iid and type alone (details: count, components), as GET leaves them out. ' +
      "Renaming keeps the components' stored names (they carry the project's id, not its name). " +
      'An unknown id 404 PROJECT_NOT_FOUND; a name another project has 409 PROJECT_ALREADY_EXISTS; a project whose import is still under way 409 CONFLICT. ' +
      'The answer is the project as GET …/projects/:id answers it to the caller (components under their names now, those deleted through their own routes named in metadata.componentsGone and metadata.note).',
  },
  {
    name: 'deleteProject',
    summary: 'Delete a project and its components',
    http: { method: 'DELETE', path: '/automation-studio/projects/:id' },
    roles: ROLE_SETS.write,
    response: envelopeOf(
      'nap:schemas/project-deleted',
      obj({ deleted: int({ minimum: 0, description: 'components deleted' }) }, ['deleted']),
    ),
    timeoutMs: TIMEOUTS_MS.long,
    addition: true,
    notes:
      'Each component is deleted through its owning service, whatever it is named now (a project holds its components by id); components deleted through their own routes before are skipped and not counted. ' +
      'A project with a component shared with groups the caller is in none of (workflows and forms; admins may) is refused with 403 GROUP_ACCESS_DENIED naming each such component by its iid and type alone ' +
      "(details: count, components: iid, type; its name is not the caller's to know, as GET leaves it out) before anything is deleted.",
  },
  {
    name: 'importProject',
    summary: 'Import a project: every component through its owning service, all or nothing',
    http: { method: 'POST', path: '/automation-studio/projects/import' },
    roles: ROLE_SETS.write,
    // the folder of each component shows in the project's tree: one line of printable text
    body: obj({ project: withPrintableNames(embed(exportedProjectSchema), ['components[].folder']) }, ['project']),
    response: projectEnvelopeSchema,
    timeoutMs: TIMEOUTS_MS.long,
    addition: true,
    notes:
      'Components: workflow, transformation (JST), template (studio templates), jsonForm (studio forms), mopCommandTemplate (mop). ' +
      'Each is stored under the name "@<project _id>: <name>" (the names the projects\' childJob tasks use), so projects with components of the same name do not clash. ' +
      'All or nothing: everything is checked before anything is written; if a component is refused, the ones already stored are deleted and the answer names the component ' +
      "(its iid, type and name) with the owning service's code and status. " +
      'A project whose _id or name exists: 409 PROJECT_ALREADY_EXISTS. ' +
      'A workflow or form component shared only with groups the caller is in none of is refused (403 GROUP_ACCESS_DENIED, admins may) before anything is written.',
  },
  {
    name: 'createProject',
    summary: 'Create a project, empty or with copies of existing documents',
    http: { method: 'POST', path: '/automation-studio/projects' },
    roles: ROLE_SETS.write,
    body: createProjectBodySchema,
    response: projectEnvelopeSchema,
    status: 200,
    timeoutMs: TIMEOUTS_MS.long,
    addition: true,
    notes:
      'Answered 200 (as the original platform answers it, and as its clients check) with { message, data: the project, metadata }. The project gets a new _id (24 hex digits), no folders. ' +
      'components (optional; ipctl sends []) are documents that exist, each taken in as POST …/projects/:id/components/add takes it with mode copy: a copy named "@<project _id>: <name>" becomes the member and the original stays as it was ' +
      '(a new project changes no document; move documents in with components/add mode move). ' +
      'All or nothing: a component refused (its document missing 404, shared with groups the caller is in none of 403 GROUP_ACCESS_DENIED naming it by iid and type alone, invalid) leaves no project and no copy. ' +
      'A name another project has: 409 PROJECT_ALREADY_EXISTS.',
  },
  {
    name: 'addProjectComponents',
    summary: 'Add existing documents to a project: move, copy, duplicate or take in one made for it',
    http: { method: 'POST', path: '/automation-studio/projects/:id/components/add' },
    roles: ROLE_SETS.write,
    body: addProjectComponentsBodySchema,
    response: projectEnvelopeSchema,
    timeoutMs: TIMEOUTS_MS.long,
    addition: true,
    auditKind: 'project',
    notes:
      "Each component names a document by its type and reference (its id; a MOP command template's id or name). mode: " +
      'move renames the document itself into the project ("@<project _id>: <name>"; its id and content kept, so what holds it by id stays linked; what names it by its old name, such as a reference from outside the project or the jobs a workflow ran, keeps that name); ' +
      'copy stores a copy under that name (a new id) and leaves the original; duplicate is copy, but a name taken in the project gives the copy the first free "<name> (2)", "<name> (3)", … (to duplicate a member of the project itself); ' +
      'create (the default) takes in a document made for the project through its own route, already named "@<project _id>: <name>", as it is (any other name: 400 VALIDATION_FAILED naming the component; use move or copy). ' +
      'copy and duplicate take any document the caller may see, a component of a project too (of this one, with duplicate); move and create refuse one that is a component of a project already (409 CONFLICT naming the component and the project). ' +
      'iid: the next free number when absent (409 CONFLICT when taken); folder: / when absent; a component in another folder is added to the folder tree (folders made as needed), one at / only when the tree lists components at its root. ' +
      "Access: a workflow or form shared with groups the caller is in none of is refused with 403 GROUP_ACCESS_DENIED naming the component by its iid and type alone; a move also needs the document to be the caller's to change (MOP templates: as mop allows); " +
      'a project with a component the caller may not see may still gain components (its hidden members stay hidden and unchanged). ' +
      'A name taken (the new member name, or for a move the document it would be): 409 <TYPE>_ALREADY_EXISTS naming the component (its iid, type and name) and the name taken. ' +
      'All or nothing: every component is checked before any document is written; a component refused while writing puts back what was written (renames undone, copies deleted) and the answer names it; what a crash left half written is put back at the next start. ' +
      'An unknown project 404 PROJECT_NOT_FOUND; a document gone 404 naming the component; a project being imported or changed by another request 409 CONFLICT. ' +
      'The answer is the project as GET …/projects/:id answers it to the caller.',
  },
  {
    name: 'removeProjectComponent',
    summary: 'Remove a component from a project: delete its document or move it out',
    http: { method: 'DELETE', path: '/automation-studio/projects/:id/components/:componentId' },
    roles: ROLE_SETS.write,
    body: removeProjectComponentBodySchema,
    response: projectEnvelopeSchema,
    timeoutMs: TIMEOUTS_MS.long,
    addition: true,
    auditKind: 'project',
    notes:
      "componentId: the component's iid (digits), else the id (reference) of its document. The body is optional; options.mode: " +
      'move (the default: nothing is lost) renames the document out of the project to its name in the project ("@<project _id>: x" becomes "x"; same id), and refuses 409 <TYPE>_ALREADY_EXISTS when a document outside has that name (remove it with mode delete, or rename it first); ' +
      'delete deletes the document through its owning service. A component deleted through its own route before is taken out of the project in either mode. ' +
      'The component leaves the folder tree too. A workflow or form shared with groups the caller is in none of is refused with 403 GROUP_ACCESS_DENIED naming it by its iid and type alone, before anything changes. ' +
      'An unknown project 404 PROJECT_NOT_FOUND; a component it does not have 404 NOT_FOUND; a project being imported or changed by another request 409 CONFLICT. ' +
      'The answer is the project as GET …/projects/:id answers it to the caller.',
  },
  {
    name: 'exportProject',
    summary: 'Export a project with its components under their original names',
    http: { method: 'GET', path: '/automation-studio/projects/:id/export' },
    roles: ROLE_SETS.read,
    response: envelopeOf('nap:schemas/project-exported', embed(exportedProjectSchema)),
    timeoutMs: TIMEOUTS_MS.long,
    addition: true,
    notes:
      'Answers { message, data: <the exported project>, metadata } as the original platform does (ipctl reads data). ' +
      'data is the shape POST /automation-studio/projects/import takes ({ project: <data> }): components with their documents as stored now, names without the project prefix. ' +
      "A project holds its components by id: a component renamed through its own route is exported under its name now (a mopCommandTemplate's reference is its stored name now); " +
      'one deleted through its own route is left out of components and folders, and componentsGone ({ iid, type, name }) and note name it (a deleted workflow or form by its iid and type alone, its name only to admins); what is left imports again. ' +
      'A project with a component shared with groups the caller is in none of (workflows and forms; admins may) is refused with 403 GROUP_ACCESS_DENIED naming each such component by its iid and type alone ' +
      '(details: count, components: iid, type): an export without it would not be the project.',
  },
  // JST transformations (additions, named as the original platform names them)
  {
    name: 'createTransformation',
    summary: 'Create a JST transformation',
    http: { method: 'POST', path: '/transformations' },
    roles: ROLE_SETS.write,
    body: transformationInput,
    response: transformation,
    addition: true,
    notes:
      'Takes the bare document and answers the stored one. Refused with 400 TRANSFORMATION_INVALID when a step cannot run (an unknown method names the step), with details { code, message, path }. ' +
      'Transformations saved by older releases (callbacks with thisArg) are migrated to constantValue1. Names are unique (409 TRANSFORMATION_ALREADY_EXISTS); a plain-word _id is kept.',
  },
  {
    name: 'getTransformations',
    summary: 'Get a page of JST transformations',
    http: { method: 'GET', path: '/transformations' },
    roles: ROLE_SETS.read,
    query: listQuery,
    response: withId(
      'nap:schemas/transformation-page',
      obj({ results: arr(transformation), ...pageOf(transformation).properties }, ['results', 'items', 'total']),
    ),
    addition: true,
    notes:
      'Answers { results, total, skip, limit } as the original platform does (ipctl pages on results until it has read total), and items: the same documents, as the other page routes name them. ' +
      'Filter fields: name, _id, description, createdBy, lastUpdatedBy; sort also by created and lastUpdated. Default limit 50, at most 500. ' +
      LIST_QUERY_NOTE,
  },
  {
    name: 'getTransformation',
    summary: 'Get one JST transformation',
    http: { method: 'GET', path: '/transformations/:id' },
    roles: ROLE_SETS.read,
    response: transformation,
    addition: true,
  },
  {
    name: 'updateTransformation',
    summary: 'Replace a JST transformation',
    http: { method: 'PUT', path: '/transformations/:id' },
    roles: ROLE_SETS.write,
    body: transformationInput,
    response: transformation,
    addition: true,
    notes: 'Takes the bare document; validated as on creation; created and createdBy stay.',
  },
  {
    name: 'deleteTransformation',
    summary: 'Delete a JST transformation',
    http: { method: 'DELETE', path: '/transformations/:id' },
    roles: ROLE_SETS.write,
    response: acknowledgement(),
    status: 204,
    addition: true,
    notes: 'Answered 204 with no body, as the original platform answers it and as ipctl checks it (bus callers get the acknowledgement).',
  },
  {
    name: 'importTransformations',
    summary: 'Import JST transformations (for the prebuilt installer)',
    roles: ROLE_SETS.write,
    body: transformationsImportBody,
    response: transformationImportResult,
    timeoutMs: TIMEOUTS_MS.long,
    addition: true,
    notes:
      'Bus-only: POST /transformations/import (importTransformation) with { transformations }, for callers that read the import result.',
  },
  {
    name: 'importTransformation',
    summary: 'Import a JST transformation (one document), or several ({ transformations })',
    http: { method: 'POST', path: '/transformations/import' },
    roles: ROLE_SETS.write,
    body: anyObject('one transformation document, or { transformations: [documents] }'),
    response: withId('nap:schemas/transformation-import-answer', Type.Union([embed(transformationImportResult), transformation])),
    timeoutMs: TIMEOUTS_MS.long,
    addition: true,
    notes:
      'A body with a transformations member (an array of at least one document; else 400 VALIDATION_FAILED naming it) imports each and reports per item like the other import routes. Any other body is one transformation document, as the original platform takes it and ipctl sends it: ' +
      'it is stored and the stored document answered, as POST /transformations answers it; a refused one is an error (400 TRANSFORMATION_INVALID, 409 TRANSFORMATION_ALREADY_EXISTS). ' +
      '_id and name are kept as exported, so the workflows that name a transformation by tr_id find it.',
  },
  {
    name: 'validateTransformation',
    summary: 'Validate a JST transformation without saving it',
    http: { method: 'POST', path: '/transformations/validate' },
    roles: ROLE_SETS.read,
    body: anyObject('a transformation document'),
    response: transformationValidation,
    addition: true,
    notes:
      'Every problem found, not only the first: errors (it cannot run) and warnings (it runs, but an outgoing is never assigned, a step result is unused, …).',
  },
  {
    name: 'runTransformationById',
    summary: 'Run a JST transformation',
    http: { method: 'POST', path: '/transformations/:id' },
    roles: ROLE_SETS.run,
    body: transformationRunBody,
    response: anyValue({ description: 'the result itself: an object keyed by outgoing $id, or a bare value with extractOutput' }),
    addition: true,
    notes: 'The same engine and answers as runTransformation.',
  },
  // tags (additions, the original platform's /tags routes as ipctl calls them)
  {
    name: 'getTags',
    summary: 'List every tag',
    http: { method: 'GET', path: '/tags/all' },
    auditKind: 'tag',
    roles: ROLE_SETS.read,
    response: arr(tag),
    addition: true,
    notes: 'Every tag, by name (ipctl get tags reads _id, name and description; describe and delete find a tag by name here).',
  },
  {
    name: 'getTag',
    safe: true,
    summary: 'Get one tag',
    http: { method: 'POST', path: '/tags/get' },
    auditKind: 'tag',
    roles: ROLE_SETS.read,
    body: closed({ id: tagId }, ['id']),
    response: tag,
    addition: true,
    notes: 'The tag with that id; 404 TAG_NOT_FOUND naming it.',
  },
  {
    name: 'createTag',
    summary: 'Create a tag',
    http: { method: 'POST', path: '/tags/create' },
    auditKind: 'tag',
    roles: ROLE_SETS.write,
    body: closed({ data: closed({ name: printableName('tag name, unique'), description: tagDescription }, ['name']) }, ['data']),
    response: tag,
    addition: true,
    notes:
      'Answers the stored tag (ipctl create tag sends { data: { name, description } }). Names are unique: 409 TAG_ALREADY_EXISTS naming it.',
  },
  {
    name: 'updateTag',
    summary: 'Rename a tag or change its description',
    http: { method: 'POST', path: '/tags/update' },
    auditKind: 'tag',
    roles: ROLE_SETS.write,
    body: closed({ data: closed({ _id: tagId, name: printableName('new tag name, unique'), description: tagDescription }, ['_id']) }, [
      'data',
    ]),
    response: tag,
    addition: true,
    notes:
      'Changes the members given (name, description) and answers the tag; its references stay. 404 TAG_NOT_FOUND; 409 TAG_ALREADY_EXISTS when the new name is taken.',
  },
  {
    name: 'deleteTag',
    summary: 'Delete a tag and its references',
    http: { method: 'POST', path: '/tags/delete' },
    auditKind: 'tag',
    roles: ROLE_SETS.write,
    body: closed({ _id: name('id of the tag (or its name)') }, ['_id']),
    response: tag,
    addition: true,
    notes:
      'Answers the deleted tag. _id is the tag id; a tag of that name is deleted when no tag has that id (ipctl copy tag --replace sends the name). ' +
      'The tag leaves every document it was on in the same step: it is hidden from every answer first, and a delete that a crash interrupted is finished at the next start. 404 TAG_NOT_FOUND.',
  },
  {
    name: 'getTagsByReference',
    safe: true,
    summary: 'The tags of a document',
    http: { method: 'POST', path: '/tags/getTagsByReference' },
    auditKind: 'tag',
    roles: ROLE_SETS.read,
    body: closed({ data: closed({ ref_id: refId }, ['ref_id']) }, ['data']),
    response: arr(tag),
    addition: true,
    notes:
      'The tags on the document ref_id, by name, as tags ({ _id, name, description }: ipctl decodes them so); [] for a document without tags. ' +
      TAG_ACCESS_NOTE,
  },
  {
    name: 'createTagReference',
    summary: 'Put a tag on a document',
    http: { method: 'POST', path: '/tags/createReference' },
    auditKind: 'tag',
    roles: ROLE_SETS.write,
    body: closed({ data: closed({ tag_id: tagId, ref_id: refId, type: refType }, ['tag_id', 'ref_id', 'type']) }, ['data']),
    response: tagReference,
    addition: true,
    notes:
      'Answers the reference { _id, tag_id, ref_id, type }; a tag already on the document answers its reference as it is. ' +
      "The tag and the document must exist: 404 TAG_NOT_FOUND, or the kind's own 404 (WORKFLOW_NOT_FOUND, TRANSFORMATION_NOT_FOUND, TEMPLATE_NOT_FOUND, FORM_NOT_FOUND) naming it. " +
      'Deleting a document removes its references. ' +
      TAG_ACCESS_NOTE,
  },
  {
    name: 'getTagReferences',
    safe: true,
    summary: 'The tag references of several documents',
    http: { method: 'POST', path: '/tags/getTagReferences' },
    auditKind: 'tag',
    roles: ROLE_SETS.read,
    body: closed({ data: closed({ ref_ids: arr(refId, { maxItems: 1000 }) }, ['ref_ids']) }, ['data']),
    response: arr(tagReference),
    addition: true,
    notes:
      'Every reference of the documents ref_ids (up to 1000), in the order of ref_ids then by tag name; documents the caller may not see (workflows and forms of other groups) are left out.',
  },
  {
    name: 'handleTagReferences',
    summary: 'Set the tags of a document',
    http: { method: 'POST', path: '/tags/handleReferences' },
    auditKind: 'tag',
    roles: ROLE_SETS.write,
    body: closed(
      {
        data: closed(
          { tag_ids: arr(tagId, { maxItems: 1000, description: 'every tag the document is to have' }), ref_id: refId, type: refType },
          ['tag_ids', 'ref_id', 'type'],
        ),
      },
      ['data'],
    ),
    response: bool({ description: 'true' }),
    addition: true,
    notes:
      'The document ref_id gets exactly the tags tag_ids ([] takes every tag off), in one step: all or nothing. Answers true, as the original platform does. ' +
      'Every tag and the document must exist (404 naming the first missing one). ' +
      TAG_ACCESS_NOTE,
  },
]);
