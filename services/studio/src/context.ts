import { AppError, TIMEOUTS_MS, assertNoMisspelledMembers, auditChanges, transformationRunBodySchema } from '@nap/contracts';
import type {
  Caller,
  ComponentGroup,
  FormInput,
  StoredForm,
  StoredWorkflowDocument,
  StudioTemplate,
  StudioTemplateType,
  Transformation,
  TransformationProblem,
  TransformationRunBody,
  WorkflowProblem,
} from '@nap/contracts';
import type { AuditSink } from '@nap/bus';
import { changedAfter } from '@nap/util';
import type { Logger } from '@nap/telemetry';
import type { TemplateRenderer } from './clients/template-renderer';
import { assertAccess, assertAssignable } from './domain/access';
import { importEach } from './domain/import-results';
import { TEMPLATE_KIND, checkForm, keepableId, keptFormId, toStoredForm } from './domain/documents';
import type { CamelKind, ForeignFormId, SaveStamp } from './domain/documents';
import type { ComponentKind, ComponentKinds, ComponentState, ProjectRecord, StoredComponent, UndoStep } from './domain/projects';
import { kindOf } from './domain/projects';
import { acceptTransformation, toStoredTransformation } from './domain/transformations';
import type { TransformationRunner } from './domain/transformations';
import { checkWorkflow, storedWorkflow } from './domain/workflows';
import { refusingIndex } from './store/documents';
import type { NamedDoc, NamedDocuments } from './store/documents';
import { FORM_ID_INDEX } from './store/collections';
import type { ProjectRecords } from './store/project-records';
import type { TagStore } from './store/tags';

/** What every studio handler receives: the repositories, the clients, and the sources of ids and time (injectable for tests). */
export interface StudioContext {
  workflows: NamedDocuments<StoredWorkflowDocument>;
  templates: NamedDocuments<StudioTemplate>;
  componentGroups: NamedDocuments<ComponentGroup>;
  forms: NamedDocuments<StoredForm>;
  transformations: NamedDocuments<Transformation>;
  /** Projects, and the journal of an import while it runs. */
  projects: ProjectRecords;
  /** Tags, and their references to the documents above. */
  tags: TagStore;
  /** Compiles and runs JST transformations (compiled plans cached by id). */
  jst: TransformationRunner;
  /** Python Jinja2 and TextFSM, in a pool of worker processes. */
  renderer: TemplateRenderer;
  /** MOP command templates, as project components, in the mop service. */
  mopCommandTemplates: ComponentKind;
  /** The service's logger. */
  log: Logger;
  /** A new document id (UUID v4). */
  newId(): string;
  /** Now, ISO 8601. */
  now(): string;
}

/** Who saves a document, and when: the caller, now. */
export function stampOf(svc: StudioContext, caller: Caller): SaveStamp {
  return { by: caller.username, at: svc.now() };
}

// Saving new documents: each of these is shared by a create route, an import route and project imports.

/** Validates and stores a new workflow; 409 `WORKFLOW_ALREADY_EXISTS` when the name (or kept id) is taken. */
export async function createWorkflow(
  svc: StudioContext,
  input: unknown,
  caller: Caller,
  member: string,
): Promise<{ doc: StoredWorkflowDocument; warnings: WorkflowProblem[] }> {
  const { workflow, warnings } = checkWorkflow(input, member);
  assertAssignable(caller, workflow.groups, 'workflow');
  const doc = storedWorkflow(workflow, keepableId(workflow._id, `${member}._id`) ?? svc.newId(), stampOf(svc, caller), member);
  return { doc: await svc.workflows.insert(doc), warnings };
}

/** Checks and stores a new template or component group in `repo`; 409 when its name (or kept id) is taken. */
export async function createCamel<I extends { _id?: unknown }, T extends NamedDoc>(
  svc: StudioContext,
  repo: NamedDocuments<T>,
  kind: CamelKind<I, T>,
  input: unknown,
  caller: Caller,
  member: string,
): Promise<T> {
  const doc = kind.check(input, member);
  return repo.insert(kind.toStored(doc, keepableId(doc._id, `${member}._id`) ?? svc.newId(), stampOf(svc, caller)));
}

/** Checks and replaces the template or component group with id `id`; its creation stamp stays. */
export async function replaceCamel<I extends { _id?: unknown }, T extends NamedDoc & { created: string; createdBy: string }>(
  svc: StudioContext,
  repo: NamedDocuments<T>,
  kind: CamelKind<I, T>,
  id: string,
  input: unknown,
  caller: Caller,
  member: string,
  audit?: AuditSink,
): Promise<T> {
  const current = await repo.get(id);
  const doc = kind.check(input, member);
  const stored = await repo.replace(
    kind.toStored(doc, id, stampOf(svc, caller), { _id: id, created: current.created, createdBy: current.createdBy }),
  );
  audit?.audit({ target: { kind: kind.auditKind, id, name: stored.name }, changes: auditChanges(current, stored) });
  return stored;
}

/**
 * Checks and stores a new form; 409 `FORM_ALREADY_EXISTS` when the name or id is taken. A brought
 * `_id` that is not a UUID v4 is refused or replaced, as `foreignId` says.
 */
export async function createStoredForm(
  svc: StudioContext,
  input: unknown,
  caller: Caller,
  member: string,
  foreignId: ForeignFormId = 'replace',
): Promise<StoredForm> {
  const form = checkForm(input, member, foreignId);
  assertAssignable(caller, form.groups, 'form');
  const id = keptFormId(form._id) ?? svc.newId();
  await assertFormKeysFree(svc, form, id, member);
  try {
    return await svc.forms.insert(toStoredForm(form, id, stampOf(svc, caller)));
  } catch (err) {
    throw formIdTaken(err, form, member);
  }
}

/**
 * The 409 of {@link assertFormKeysFree} for a write the store's unique index on `id` refused:
 * another form with that `id` was stored between the check and the write (two requests at once).
 * Any other error as it is.
 */
export function formIdTaken(err: unknown, form: FormInput, member: string): unknown {
  const id = ownIdOf(form);
  if (id === undefined || refusingIndex(err) !== FORM_ID_INDEX) return err;
  return new AppError(
    'FORM_ALREADY_EXISTS',
    `${member}.id "${id}" is the id of another form, stored while this one was checked, which a lookup by id would find as well; give another id or leave it out`,
    { cause: err, details: [{ member: `${member}.id`, message: 'is the id of another form' }] },
  );
}

/** The `id` member of a form (the id another platform gave it) when it is one a lookup can find: a non-empty string. */
function ownIdOf(form: object): string | undefined {
  const id: unknown = (form as { id?: unknown }).id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * Refuses a form (stored as `formId`, given at `member`) that would make a lookup by id ambiguous:
 * {@link findForm} takes a key as a form's `_id`, then its name, then its `id` member. 409
 * `FORM_ALREADY_EXISTS` naming the id when the form's `id` is another form's `_id`, name or `id`,
 * or when its `_id` or name is another form's `id`. `previous` (an update) is the form as stored:
 * only what the update changes is checked, so a form stored by an earlier release with such an `id`
 * can still be changed otherwise.
 */
export async function assertFormKeysFree(
  svc: StudioContext,
  form: FormInput,
  formId: string,
  member: string,
  previous?: StoredForm,
): Promise<void> {
  const id = ownIdOf(form);
  const others = <T extends { _id: string }>(found: T[]): T[] => found.filter((f) => f._id !== formId);
  if (id !== undefined && id !== ownIdOf(previous ?? {})) {
    const [taken] = others(
      await svc.forms.scan({ $or: [{ _id: { $in: [id, id.toLowerCase()] } }, { name: { $eq: id } }, { id: { $eq: id } }] }, ['name']),
    );
    if (taken !== undefined) {
      const message = `${member}.id "${id}" is the id or name of form "${taken.name}" (_id "${taken._id}"), which a lookup by id would find as well; give another id or leave it out`;
      throw new AppError('FORM_ALREADY_EXISTS', message, {
        details: [{ member: `${member}.id`, message: 'is the id or name of another form' }],
      });
    }
  }
  const keys = (previous === undefined ? [formId, form.name] : previous.name === form.name ? [] : [form.name]).filter((k) => k !== '');
  if (keys.length === 0) return;
  const [shadowing] = others(await svc.forms.scan({ id: { $in: keys } }, ['name', 'id']));
  if (shadowing !== undefined) {
    const key = String(shadowing.id);
    const at = key === form.name ? `${member}.name` : `${member}._id`;
    const message = `${at} "${key}" is the id of form "${shadowing.name}" (_id "${shadowing._id}"), which a lookup by id would find as well; choose another`;
    throw new AppError('FORM_ALREADY_EXISTS', message, { details: [{ member: at, message: 'is the id of another form' }] });
  }
}

/** Checks and stores a new transformation; its `_id` is kept when it is a plain word. 409 when the name or id is taken. */
export async function insertTransformation(
  svc: StudioContext,
  input: unknown,
  caller: Caller,
  member = 'body',
): Promise<{ created: Transformation; warnings: TransformationProblem[] }> {
  const { doc, warnings } = acceptTransformation(input, member);
  const created = await svc.transformations.insert(
    toStoredTransformation(doc, keepableId(doc._id, `${member}._id`) ?? svc.newId(), stampOf(svc, caller)),
  );
  return { created, warnings };
}

// Templates and transformations as the routes that run them find them.

/**
 * The studio template a TemplateBuilder call names: by name, then by id; a name without a project
 * prefix also finds the one project member `@<project id>: <name>` (project members are stored
 * under such names, and the workflows of a project call their templates by the bare name). Several
 * such members are a 409 listing them; none a 404. A template of the other kind is a 422.
 */
export async function findTemplate(svc: StudioContext, key: string, type: StudioTemplateType): Promise<StudioTemplate> {
  const template = (await svc.templates.findByName(key)) ?? (await svc.templates.findById(key)) ?? (await projectMember(svc, key));
  if (template.type !== type) {
    const use = type === 'jinja2' ? 'parseTemplate' : 'renderJinjaTemplate';
    throw new AppError(
      'TEMPLATE_TYPE_MISMATCH',
      `Template "${template.name}" is a ${template.type} template, not ${type}; use ${use} for it`,
    );
  }
  return template;
}

async function projectMember(svc: StudioContext, key: string): Promise<StudioTemplate> {
  const found = key.startsWith('@') ? [] : await svc.templates.projectMembers(key);
  const members = found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const [only, ...others] = members;
  if (only === undefined) throw svc.templates.notFound(key, 'name or id');
  if (others.length > 0) {
    throw new AppError(
      'CONFLICT',
      `Several projects have a template named "${key}" (${members.map((m) => `"${m.name}"`).join(', ')}): call it by its full name or id`,
      { details: { candidates: members.map((m) => m.name) } },
    );
  }
  return svc.templates.get(only._id);
}

/** Runs the stored transformation `idOrName` on `{ incoming, options }` (a body with `data` and no `incoming` runs on `data`). */
export async function runStoredTransformation(svc: StudioContext, idOrName: string, body: TransformationRunBody): Promise<unknown> {
  // a member or option misspelled (`incomming`, `extractOuput`) would run as if it were not given
  assertNoMisspelledMembers(transformationRunBodySchema, body, 'body');
  const doc = await svc.transformations.getByIdOrName(idOrName);
  if (body.incoming === undefined && body.data === undefined) refuseBareValues(body);
  const incoming = body.incoming ?? body.data ?? {};
  assertNoMisspelledIncoming(doc, incoming, body.incoming !== undefined ? 'body.incoming' : 'body.data');
  return svc.jst.run(doc, incoming, body.options ?? {});
}

/**
 * Refuses input values named like an incoming schema of the transformation that is not given
 * (`siet` for `site`, `Device` for `device`): a run reads its incoming values by `$id` only, so the
 * value would be ignored and the run go on without it. Values of other names are ignored as before.
 */
function assertNoMisspelledIncoming(doc: Transformation, incoming: Record<string, unknown>, label: string): void {
  const properties = Object.fromEntries(doc.incoming.flatMap((schema) => (typeof schema.$id === 'string' ? [[schema.$id, {}]] : [])));
  assertNoMisspelledMembers({ properties }, incoming, label, `incoming of transformation "${doc.name}"`);
}

const RUN_BODY_MEMBERS: ReadonlySet<string> = new Set(['incoming', 'data', 'options']);

/**
 * A run body without `incoming` (or `data`) whose other members are the values themselves
 * (`{"site": "ams1"}`): refused naming them, where running on nothing would answer as if no value was given.
 */
function refuseBareValues(body: TransformationRunBody): void {
  const stray = Object.keys(body).filter((k) => !RUN_BODY_MEMBERS.has(k));
  if (stray.length === 0) return;
  const named = stray.map((k) => `body.${k}`).join(', ');
  throw new AppError(
    'VALIDATION_FAILED',
    `The run body has no incoming, and ${named} ${stray.length === 1 ? 'is not a member' : 'are not members'} of it: give the input values in body.incoming ({"incoming": {"${stray[0] ?? ''}": …}})`,
    {
      details: stray.map((k) => ({
        member: `body.${k}`,
        message: 'is not a member of the run body; put the input values in body.incoming',
      })),
    },
  );
}

// Projects: each component through its owning service.

/** The component kinds a project may hold, each reached through its owning service; the others are refused by name. */
export function componentKinds(svc: StudioContext): ComponentKinds {
  return {
    workflow: {
      async check(doc, member, caller) {
        const { workflow } = checkWorkflow(doc, member);
        assertAssignable(caller, workflow.groups, 'workflow');
        await svc.workflows.assertUnused(workflow.name, keepableId(workflow._id, `${member}._id`));
      },
      create: async (doc, member, caller) => (await createWorkflow(svc, doc, caller, member)).doc._id,
      remove: (id) => svc.workflows.deleteIfPresent(id),
      read: (id) => svc.workflows.get(id),
      statesOf: (components) => namesAndGroupsById(svc.workflows, components),
      ...renamable(svc, svc.workflows, 'snake'),
    },
    transformation: {
      async check(doc, member) {
        const { doc: transformation } = acceptTransformation(doc, member);
        await svc.transformations.assertUnused(transformation.name, keepableId(transformation._id, `${member}._id`));
      },
      create: async (doc, member, caller) => (await insertTransformation(svc, doc, caller, member)).created._id,
      async remove(id) {
        await svc.transformations.deleteIfPresent(id);
        svc.jst.forget(id);
      },
      read: (id) => svc.transformations.get(id),
      statesOf: (components) => namesById(svc.transformations, components),
      ...renamable(svc, svc.transformations, 'camel', (id) => svc.jst.forget(id)),
    },
    template: {
      async check(doc, member) {
        const template = TEMPLATE_KIND.check(doc, member);
        await svc.templates.assertUnused(template.name, keepableId(template._id, `${member}._id`));
      },
      create: async (doc, member, caller) => (await createCamel(svc, svc.templates, TEMPLATE_KIND, doc, caller, member))._id,
      remove: (id) => svc.templates.deleteIfPresent(id),
      read: (id) => svc.templates.get(id),
      statesOf: (components) => namesById(svc.templates, components),
      ...renamable(svc, svc.templates, 'camel'),
    },
    jsonForm: {
      async check(doc, member, caller) {
        const form = checkForm(doc, member);
        assertAssignable(caller, form.groups, 'form');
        await svc.forms.assertUnused(form.name);
        await assertFormKeysFree(svc, form, keptFormId(form._id) ?? '', member);
      },
      create: async (doc, member, caller) => (await createStoredForm(svc, doc, caller, member))._id,
      remove: (id) => svc.forms.deleteIfPresent(id),
      read: (id) => svc.forms.get(id),
      statesOf: (components) => namesAndGroupsById(svc.forms, components),
      ...renamable(svc, svc.forms, 'snake'),
    },
    mopCommandTemplate: svc.mopCommandTemplates,
  };
}

/**
 * Finding, name checks and renames of a kind stored in `repo` (stamped in camel or snake case): a
 * rename keeps everything but the name and the stamp, and writes only over the document as read.
 */
function renamable<T extends NamedDoc>(
  svc: StudioContext,
  repo: NamedDocuments<T>,
  stamp: 'camel' | 'snake',
  renamed?: (id: string) => void,
): Pick<ComponentKind, 'find' | 'nameTaken' | 'rename'> {
  const [at, by] = stamp === 'camel' ? (['lastUpdated', 'lastUpdatedBy'] as const) : (['last_updated', 'last_updated_by'] as const);
  return {
    find: (reference) => repo.findById(reference),
    nameTaken: async (name) => (await repo.findByName(name)) !== null,
    async rename(id, from, to, caller) {
      const current = await repo.get(id);
      const label = repo.kind.label;
      if (current.name !== from)
        throw new AppError('CONFLICT', `The ${label} "${from}" was renamed "${current.name}" meanwhile; try again`);
      const previous = (current as Record<string, unknown>)[at];
      const next = {
        ...current,
        name: to,
        [at]: changedAfter(typeof previous === 'string' ? previous : undefined, Date.parse(svc.now())),
        [by]: caller.username,
      };
      if ((await repo.replaceUnchanged(next, current, at)) === null)
        throw new AppError('CONFLICT', `The ${label} "${from}" changed while it was being renamed; try again`);
      renamed?.(id);
    },
  };
}

/** The names now of the stored documents of `repo` among `components`, by id: one read, documents gone absent. */
async function namesById<T extends NamedDoc>(
  repo: NamedDocuments<T>,
  components: readonly Pick<StoredComponent, 'reference'>[],
): Promise<Map<string, ComponentState>> {
  const found = await repo.scan({ _id: { $in: components.map((c) => c.reference) } }, ['name']);
  return new Map(found.map((doc) => [doc._id, { storedName: doc.name }]));
}

/** {@link namesById}, with the `groups` each document is shared with. */
async function namesAndGroupsById<T extends NamedDoc & { groups: string[] }>(
  repo: NamedDocuments<T>,
  components: readonly Pick<StoredComponent, 'reference'>[],
): Promise<Map<string, ComponentState>> {
  const found = await repo.scan({ _id: { $in: components.map((c) => c.reference) } }, ['name', 'groups']);
  return new Map(found.map((doc) => [doc._id, { storedName: doc.name, groups: doc.groups }]));
}

/** Deletes what an import stored so far, newest first, then the project; a component that cannot be deleted is logged. */
export async function rollBackImport(svc: StudioContext, record: Pick<ProjectRecord, '_id' | 'components'>, caller: Caller): Promise<void> {
  const kinds = componentKinds(svc);
  const log = svc.log.child({ component: 'projects' });
  for (const c of [...record.components].reverse()) {
    try {
      await kindOf(kinds, c.type).remove(c.reference, caller);
    } catch (err) {
      log.error({ err, projectId: record._id, component: c.storedName }, 'A component of a failed project import could not be deleted');
    }
  }
  await svc.projects.delete(record._id).catch(() => undefined);
}

/**
 * Undoes what adding components wrote (`steps`, oldest first), newest first: a moved document renamed
 * back, a copy deleted. A step that cannot be undone is logged, and the others still are.
 */
export async function undoComponentSteps(svc: StudioContext, projectId: string, steps: readonly UndoStep[], caller: Caller): Promise<void> {
  const kinds = componentKinds(svc);
  const log = svc.log.child({ component: 'projects' });
  for (const step of [...steps].reverse()) {
    try {
      const kind = kindOf(kinds, step.type);
      if (step.renameTo !== undefined) await kind.rename(step.reference, step.storedName, step.renameTo, caller);
      else await kind.remove(step.reference, caller);
    } catch (err) {
      log.error(
        { err, projectId, component: step.storedName, renameTo: step.renameTo },
        'A document written while adding components to a project could not be put back',
      );
    }
  }
}

/** Undoes the component changes a crash left unfinished (older than the routes' time limit, so that none still runs). */
export async function recoverProjectChanges(svc: StudioContext, caller: Caller): Promise<void> {
  const log = svc.log.child({ component: 'projects' });
  for (const p of await svc.projects.unfinishedChanges(Date.now() - TIMEOUTS_MS.long)) {
    const journal = p.changing;
    if (journal === undefined) continue;
    log.warn({ projectId: p._id, steps: journal.undo.length }, 'Undoing a change of project components that did not finish');
    await undoComponentSteps(svc, p._id, journal.undo, caller);
    if (journal.creating === true) await svc.projects.delete(p._id).catch(() => undefined);
    else {
      const { changing: _done, ...record } = p;
      await svc.projects.replace(record);
    }
  }
}

/** Rolls back imports a crash left half done (older than the import's time limit, so that none still runs). */
export async function recoverProjectImports(svc: StudioContext, caller: Caller): Promise<void> {
  const log = svc.log.child({ component: 'projects' });
  for (const p of await svc.projects.unfinishedImports(Date.now() - TIMEOUTS_MS.long)) {
    log.warn({ projectId: p._id, components: p.components.length }, 'Rolling back a project import that did not finish');
    await rollBackImport(svc, p, caller);
  }
}

/**
 * The form `key` names: by its id, then by its name (a project member's `@<project id>: <name>`, as
 * exported manual triggers name their form), then by the `id` other platforms give a form; 404
 * `FORM_NOT_FOUND` otherwise, 403 when the caller may not see it.
 */
export async function findForm(svc: StudioContext, key: string, caller: Caller): Promise<StoredForm> {
  let form = await svc.forms.findByIdOrName(key);
  if (form === null) {
    const [byOwnId] = await svc.forms.scan({ id: { $eq: key } }, ['name']);
    form = byOwnId === undefined ? null : await svc.forms.findById(byOwnId._id);
  }
  if (form === null) throw svc.forms.notFound(key, 'id or name');
  assertAccess(caller, form, 'form', key);
  return form;
}

/** A stored form as the `/json-forms/*` routes answer it: with `id`, its `_id`, where the original platform puts it. */
export function asJsonForm(form: StoredForm): StoredForm & { id: string } {
  return { ...form, id: form._id };
}

/**
 * Stores each transformation as exported (`_id` and name kept, so workflow tasks that name one by
 * `tr_id` find it); per-item outcome, problems of a refused item.
 */
export async function importTransformationsEach(
  svc: StudioContext,
  items: readonly Record<string, unknown>[],
  caller: Caller,
  ctx: AuditSink,
) {
  return importEach(items, { one: 'transformation', many: 'transformations' }, { ctx, kind: 'transformation' }, async (item, index) => ({
    created: (await insertTransformation(svc, item, caller, `body.transformations[${index}]`)).created,
  }));
}
