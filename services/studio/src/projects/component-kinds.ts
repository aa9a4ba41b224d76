import { AppError, commandTemplateSchema, formInputSchema, parseAs } from '@nap/contracts';
import type { Caller, ProjectComponentType } from '@nap/contracts';
import type { BusClient } from '@nap/bus';
import { keepableId } from '../domain/documents';
import { checked } from '../handlers/checked';
import type { StudioDeps } from '../handlers/deps';
import { TEMPLATE_KIND, createCamel } from '../handlers/document-save';
import { createStoredForm } from '../handlers/form-save';
import { acceptTransformation, insertTransformation } from '../handlers/transformation-save';
import { checkWorkflow, createWorkflow } from '../handlers/workflow-save';

/**
 * How a project reaches the owning service of each kind of component: check a document without
 * writing anything, store it, delete it again (the import is all or nothing) and read it back for
 * an export. Studio documents (workflows, JST transformations, studio templates, JSON forms) are the
 * studio's own; MOP command templates belong to the mop service, reached over the bus as the caller.
 */
export interface ComponentKind {
  /** Throws what storing the document would throw (invalid, name taken), writing nothing. */
  check(doc: Record<string, unknown>, member: string, caller: Caller): Promise<void>;
  /** Stores the document (its name already the stored one); answers the reference to keep. */
  create(doc: Record<string, unknown>, member: string, caller: Caller): Promise<string>;
  /** Deletes a stored component; nothing when it is already gone. */
  remove(reference: string, caller: Caller): Promise<void>;
  /** The stored document, by its reference (and stored name, for kinds found by name). */
  read(reference: string, storedName: string, caller: Caller): Promise<Record<string, unknown>>;
}

/** The component kinds whose owning operations exist, by component type; the others are refused by name. */
export function componentKinds(deps: StudioDeps, client: BusClient): Partial<Record<ProjectComponentType, ComponentKind>> {
  const taken = (label: string, name: string): AppError =>
    new AppError(
      label === 'template' ? 'TEMPLATE_ALREADY_EXISTS' : label === 'form' ? 'FORM_ALREADY_EXISTS' : 'WORKFLOW_ALREADY_EXISTS',
      `A ${label} named "${name}" already exists; names are unique`,
    );
  const ignoreMissing = async (remove: () => Promise<unknown>): Promise<void> => {
    try {
      await remove();
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 404) throw err;
    }
  };
  return {
    workflow: {
      async check(doc, member) {
        const { workflow } = checkWorkflow(doc, member);
        if ((await deps.workflows.findByName(workflow.name)) !== null) throw taken('workflow', workflow.name);
        const id = keepableId(workflow._id);
        if (id !== undefined && (await deps.workflows.findById(id)) !== null)
          throw new AppError('WORKFLOW_ALREADY_EXISTS', `A workflow with id "${id}" already exists`);
      },
      create: async (doc, member, caller) => (await createWorkflow(deps, doc, caller, member)).doc._id,
      remove: (id) => ignoreMissing(() => deps.workflows.delete(id)),
      read: async (id) => deps.workflows.get(id),
    },
    transformation: {
      async check(doc, member) {
        const { doc: transformation } = acceptTransformation(doc, member);
        if ((await deps.transformations.findByName(transformation.name)) !== null)
          throw new AppError(
            'TRANSFORMATION_ALREADY_EXISTS',
            `A transformation named "${transformation.name}" already exists; names are unique`,
          );
        const id = keepableId(transformation._id);
        if (id !== undefined && (await deps.transformations.findById(id)) !== null)
          throw new AppError('TRANSFORMATION_ALREADY_EXISTS', `A transformation with id "${id}" already exists`);
      },
      create: async (doc, member, caller) => (await insertTransformation(deps, doc, caller, member)).created._id,
      remove: (id) =>
        ignoreMissing(async () => {
          await deps.transformations.delete(id);
          deps.jst.forget(id);
        }),
      read: async (id) => deps.transformations.get(id),
    },
    template: {
      async check(doc, member) {
        const template = TEMPLATE_KIND.check(doc, member);
        if ((await deps.templates.findByName(template.name)) !== null) throw taken('template', template.name);
        const id = keepableId(template._id);
        if (id !== undefined && (await deps.templates.findById(id)) !== null)
          throw new AppError('TEMPLATE_ALREADY_EXISTS', `A template with id "${id}" already exists`);
      },
      create: async (doc, member, caller) => (await createCamel(deps, TEMPLATE_KIND, doc, caller, member))._id,
      remove: (id) => ignoreMissing(() => deps.templates.delete(id)),
      read: async (id) => deps.templates.get(id),
    },
    jsonForm: {
      async check(doc, member) {
        const form = checked('form', doc, () => parseAs(formInputSchema, doc, member));
        if ((await deps.forms.findByName(form.name)) !== null) throw taken('form', form.name);
      },
      create: async (doc, member, caller) => (await createStoredForm(deps, doc, caller, member))._id,
      remove: (id) => ignoreMissing(() => deps.forms.delete(id)),
      read: async (id) => deps.forms.get(id),
    },
    mopCommandTemplate: {
      async check(doc, member, caller) {
        const template = checked('command template', doc, () => parseAs(commandTemplateSchema, doc, member));
        const found = (await client.call('mop.listATemplate', { params: { name: template.name } }, { caller })).body;
        if (found.length > 0)
          throw new AppError(
            'TEMPLATE_ALREADY_EXISTS',
            `A command template named "${template.name}" already exists in mop; names are unique`,
          );
      },
      async create(doc, member, caller) {
        const template = parseAs(commandTemplateSchema, withoutMopStamps(doc), member);
        const created = (await client.call('mop.createTemplate', { body: { mop: template } }, { caller })).body.data;
        if (typeof created._id !== 'string')
          throw new AppError('INTERNAL', `mop stored the command template "${template.name}" without an id`);
        return created._id;
      },
      remove: (id, caller) => ignoreMissing(() => client.call('mop.deleteTemplate', { params: { id } }, { caller })),
      async read(id, storedName, caller) {
        const [found] = (await client.call('mop.listATemplate', { params: { name: storedName } }, { caller })).body;
        if (found === undefined || found._id !== id)
          throw new AppError('TEMPLATE_NOT_FOUND', `No command template "${storedName}" (id "${id}") in mop`);
        return found;
      },
    },
  };
}

/** The members mop sets itself (epoch-ms stamps and authors): a project's stamps are the source platform's. */
function withoutMopStamps(doc: Record<string, unknown>): Record<string, unknown> {
  const { _id: _i, created: _c, createdBy: _cb, lastUpdated: _l, lastUpdatedBy: _lb, ...rest } = doc;
  return rest;
}
