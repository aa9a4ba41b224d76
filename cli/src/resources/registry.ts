import { usage } from '../errors';
import type { HttpMethod, Query } from '../http/client';
import type { Doc } from './documents';
import { field, str } from './documents';

/**
 * Every resource `nap` manages, as data: the platform routes behind each verb (checked against the
 * operation catalog by cli/test/routes.test.ts), how to read names and ids, and the columns of the
 * human tables. A verb without a route has a `gaps` entry: the command says so (exit 4) and the
 * reference in docs/cli.md lists it.
 */
export const VERBS = ['get', 'describe', 'create', 'delete', 'import', 'export', 'copy'] as const;
export type Verb = (typeof VERBS)[number];

export interface Route {
  method: HttpMethod;
  path: string;
}

export interface ListSpec {
  route: Route;
  /** The route takes `skip` and `limit` (pages of at most 500). */
  paged?: boolean;
  /** The query that finds one document by name (`equals[name]=…`); without it the list is searched. */
  byName?: (name: string) => Query;
  /**
   * The query that finds project members of a plain name (`@<project id>: <name>`), for the hint
   * when that name alone finds nothing.
   */
  byMemberName?: (name: string) => Query;
  /** A JSON body, for list routes that are POSTs. */
  body?: Doc;
  /** Extra query members that every list call sends. */
  query?: Query;
}

export interface GetSpec {
  route: Route;
  /** What fills the route's parameter: the document's id or its name. */
  key: 'id' | 'name';
  /** For routes that take the key in a JSON body instead of the path. */
  body?: (key: string) => Doc;
  /** When the answer is a list of one (mop's listATemplate). */
  firstOfList?: boolean;
}

export interface WriteSpec {
  route: Route;
  /** The body the route takes for one document. */
  wrap: (doc: Doc) => unknown;
  /** When the verb is served by a route named for another verb: why, for the reference. */
  via?: string;
}

export interface ImportSpec {
  route: Route;
  /** Body for a batch of documents; routes that take one document a call have `one`. */
  wrap: (docs: Doc[]) => unknown;
  one?: boolean;
}

/**
 * How `import --replace` (and `copy --replace`) replaces a document that exists: a route that
 * updates it in place, so that nothing is deleted and a refused document leaves the one there as it
 * was. Resources without one are replaced by a delete and an import, guarded (cli/src/commands/importing.ts).
 */
export interface UpdateSpec {
  route: Route;
  /** What fills the route's parameter (the existing document's id or name); none when the route has none. */
  key?: 'id' | 'name';
  /**
   * The body the route takes for one document as exported; `key` is the existing document's id or
   * name (as `key` says), for routes that take it in the body rather than the path (a tag's).
   */
  wrap: (doc: Doc, key?: string) => unknown;
  /**
   * Platform error codes for which the update route does not apply while a delete and an import
   * still can replace the document (a prebuilt of the same or an older version: 409 PREBUILT_VERSION_NOT_NEWER).
   */
  notApplicable?: readonly string[];
  /**
   * For documents that carry parts the route does not change (a project's components, an
   * automation's triggers): whether the update route alone makes the document there `doc`, given
   * the one there as the platform exports it. When it does not, the document is replaced by a
   * delete and an import, guarded, as where there is no update route.
   */
  inPlace?: (doc: Doc, there: Doc) => boolean;
  /**
   * An automation's: where `inPlace` says no, the update route and then the document's triggers
   * one by one make it `doc` (cli/src/commands/automation-in-place.ts), rather than a delete and an import.
   */
  triggers?: true;
  /**
   * A project's: its components matched by type and name are changed through their own routes,
   * then the project's own members through the update route (cli/src/commands/project-in-place.ts);
   * a delete and an import only when a component is added or left out or the folders change.
   */
  members?: true;
  /** What to add about it in the reference. */
  note?: string;
}

export interface ExportSpec {
  route: Route;
  key: 'id' | 'name';
  body?: (key: string, doc: Doc) => Doc;
  /** What the export holds when it is not the platform's export document, for the reference. */
  via?: string;
}

/**
 * A resource the platform has no export or import route for, which `nap` still exports, imports
 * and copies: in its own portable form (cli/src/resources/portable.ts does the work), written
 * with the routes that create and update it.
 */
export interface PortableSpec {
  /** What the exported document holds, for the reference. */
  form: string;
  /** How `create` works without a route of its own, for the reference. */
  create?: string;
  /** How `delete` works without a route of its own, for the reference. */
  delete?: string;
}

/**
 * `nap enable` and `nap disable`: the route that sets a document's `enabled` member, and what to
 * say about the document once it is in that state (a schedule's next run).
 */
export interface ToggleSpec {
  route: Route;
  key: 'id' | 'name';
  body: (enabled: boolean) => Doc;
  /** Whether a document is enabled, when not by its `enabled` member (an account: not `inactive`). */
  enabledOf?: (doc: Doc) => boolean;
  /** After the state, for people: `, next run 2026-12-04T02:00:00Z`; '' when there is nothing to add. */
  after?: (doc: Doc, changed: boolean) => string;
}

export interface Column {
  header: string;
  path: string | ((doc: Doc) => unknown);
  status?: boolean;
  /** Free text (a description): cut to the terminal's width in a table, never an id or a name. */
  prose?: boolean;
}

export interface ResourceDef {
  /** Plural, as `nap get` takes it: `workflows`. */
  plural: string;
  /** Singular, as `nap describe` takes it: `workflow`. */
  singular: string;
  aliases?: readonly string[];
  /** What the platform calls it, for the reference. */
  summary: string;
  /** Suffix of exported files: `<name>.<kind>.json` (ipctl's naming). */
  kind: string;
  idOf: (doc: Doc) => string | undefined;
  nameOf: (doc: Doc) => string | undefined;
  columns: readonly Column[];
  list?: ListSpec;
  get?: GetSpec;
  create?: WriteSpec;
  delete?: ExportSpec;
  import?: ImportSpec;
  /** The route `import --replace` updates an existing document with; without it, the document there is deleted and imported again. */
  update?: UpdateSpec;
  export?: ExportSpec;
  /** No export/import route: exported, imported and copied in nap's own portable form. */
  portable?: PortableSpec;
  /** Can be enabled and disabled (`nap enable`, `nap disable`). */
  toggle?: ToggleSpec;
  /**
   * Names are not unique (a trigger's is unique only in its automation): where one document is
   * meant, a name that several carry is refused, with their ids, rather than the first one taken.
   */
  sharedNames?: boolean;
  /** Looked up by id first (the get route), then by name: for documents people name by id (jobs). */
  idFirst?: boolean;
  /** The file name of an export when it is not the name (`<fileName>.<kind>.json`). */
  fileName?: (doc: Doc) => string | undefined;
  /** Verbs the platform has no route for, with what to do instead. */
  gaps: Partial<Record<Verb, string>>;
}

const GET = (path: string): Route => ({ method: 'GET', path });
const POST = (path: string): Route => ({ method: 'POST', path });
const PUT = (path: string): Route => ({ method: 'PUT', path });
const DELETE = (path: string): Route => ({ method: 'DELETE', path });
const PATCH = (path: string): Route => ({ method: 'PATCH', path });

const equalsName = (name: string): Query => ({ 'equals[name]': name });
const memberName = (name: string): Query => ({ 'contains[name]': `: ${name}` });
const byId = (doc: Doc): string | undefined => str(doc._id);
const byName = (doc: Doc): string | undefined => str(doc.name);

/** A copy of a document without the members named (an id the route takes from its path). */
const without =
  (...keys: string[]) =>
  (doc: Doc): Doc =>
    Object.fromEntries(Object.entries(doc).filter(([key]) => !keys.includes(key)));

/** A copy of a document with only the members named that it has. */
const only =
  (...keys: string[]) =>
  (doc: Doc): Doc =>
    Object.fromEntries(Object.entries(doc).filter(([key]) => keys.includes(key)));

/**
 * The members the platform sets on every save (camel case for most documents, snake case for
 * workflows and forms), and the link of a trigger to its automation (the automation's id): never
 * what a person changed in a file.
 */
export const STAMPS = ['created', 'createdBy', 'created_by', 'lastUpdated', 'lastUpdatedBy', 'last_updated', 'last_updated_by', 'actionId'];

/** JSON with the members of every object in name order: two values that mean the same give the same text. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Doc).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** An automation's triggers, stamps aside, in id order. */
function triggerParts(doc: Doc): string {
  const triggers = (Array.isArray(doc.triggers) ? doc.triggers : []).map((t: unknown) => without(...STAMPS)((t ?? {}) as Doc));
  return canonical(triggers.sort((a, b) => String(a._id ?? a.name).localeCompare(String(b._id ?? b.name))));
}

/**
 * The name the platform gives an integration model: its `versionId`, or `<info.title>:<info.version>`
 * of the OpenAPI document (what `nap export integration-model` writes, and what an import is).
 */
function modelName(d: Doc): string | undefined {
  const stored = str(d.versionId) ?? byName(d) ?? str(field(d, 'model'));
  if (stored !== undefined) return stored;
  const title = str(field(d, 'info.title'));
  const version = str(field(d, 'info.version'));
  return title === undefined || version === undefined ? undefined : `${title}:${version}`;
}

/** A role as the create and update routes take it: without what the platform sets (its id, `builtIn`, the stamps). */
const roleBody = without('_id', 'builtIn', ...STAMPS);
/** A tag as the create and update routes take it: without its id and the stamps. */
const tagBody = without('_id', ...STAMPS);

/** A method's route, for people: `GET /operations-manager/jobs`. */
export function methodRoute(d: Doc): string | undefined {
  const verb = str(field(d, 'route.verb'));
  const path = str(field(d, 'route.fullPath')) ?? str(field(d, 'route.path'));
  return verb === undefined || path === undefined ? undefined : `${verb} ${path}`;
}

const NAME: Column = { header: 'NAME', path: 'name' };
const ID: Column = { header: 'ID', path: '_id' };
const DESCRIPTION: Column = { header: 'DESCRIPTION', path: 'description', prose: true };

export const RESOURCES: readonly ResourceDef[] = [
  {
    plural: 'workflows',
    singular: 'workflow',
    summary: 'workflow documents of Automation Studio',
    kind: 'workflow',
    idOf: byId,
    nameOf: byName,
    columns: [NAME, DESCRIPTION, { header: 'TASKS', path: (d) => Object.keys((d.tasks as Doc | undefined) ?? {}).length - 2 }, ID],
    list: { route: GET('/automation-studio/automations'), paged: true, byName: equalsName, byMemberName: memberName },
    get: { route: GET('/automation-studio/automations/:id'), key: 'id' },
    create: { route: POST('/automation-studio/automations'), wrap: (doc) => ({ automation: doc }) },
    delete: { route: DELETE('/automation-studio/automations/:id'), key: 'id' },
    import: { route: POST('/automation-studio/automations/import'), wrap: (docs) => ({ automations: docs }) },
    update: { route: PUT('/automation-studio/automations/:id'), key: 'id', wrap: (doc) => ({ update: doc }) },
    export: { route: GET('/automation-studio/automations/:id'), key: 'id' },
    gaps: {},
  },
  {
    plural: 'transformations',
    singular: 'transformation',
    aliases: ['jst', 'jsts'],
    summary: 'JST transformations',
    kind: 'transformation',
    idOf: byId,
    nameOf: byName,
    columns: [NAME, DESCRIPTION, ID],
    list: { route: GET('/transformations'), paged: true, byName: equalsName, byMemberName: memberName },
    get: { route: GET('/transformations/:id'), key: 'id' },
    create: { route: POST('/transformations'), wrap: (doc) => doc },
    delete: { route: DELETE('/transformations/:id'), key: 'id' },
    import: { route: POST('/transformations/import'), wrap: (docs) => ({ transformations: docs }) },
    update: { route: PUT('/transformations/:id'), key: 'id', wrap: (doc) => doc },
    export: { route: GET('/transformations/:id'), key: 'id' },
    gaps: {},
  },
  {
    plural: 'templates',
    singular: 'template',
    summary: 'Jinja2 and TextFSM templates of Automation Studio',
    kind: 'template',
    idOf: byId,
    nameOf: byName,
    columns: [NAME, { header: 'TYPE', path: 'type' }, { header: 'GROUP', path: 'group' }, ID],
    list: { route: GET('/automation-studio/templates'), paged: true, byName: equalsName, byMemberName: memberName },
    get: { route: GET('/automation-studio/templates/:id'), key: 'id' },
    create: { route: POST('/automation-studio/templates'), wrap: (doc) => ({ template: doc }) },
    delete: { route: DELETE('/automation-studio/templates/:id'), key: 'id' },
    import: { route: POST('/automation-studio/templates/import'), wrap: (docs) => ({ templates: docs }) },
    update: { route: PUT('/automation-studio/templates/:id'), key: 'id', wrap: (doc) => ({ update: doc }) },
    export: { route: GET('/automation-studio/templates/:id/export'), key: 'id' },
    gaps: {},
  },
  {
    plural: 'command-templates',
    singular: 'command-template',
    summary: 'MOP command templates',
    kind: 'command-template',
    idOf: byId,
    nameOf: byName,
    columns: [
      NAME,
      { header: 'OS', path: 'os' },
      { header: 'COMMANDS', path: (d) => (Array.isArray(d.commands) ? d.commands.length : 0) },
      ID,
    ],
    list: { route: GET('/mop/listTemplates') },
    get: { route: GET('/mop/listATemplate/:name'), key: 'name', firstOfList: true },
    create: { route: POST('/mop/createTemplate'), wrap: (doc) => ({ mop: doc }) },
    delete: { route: POST('/mop/deleteTemplate/:id'), key: 'id' },
    import: { route: POST('/mop/import'), wrap: (docs) => ({ template: docs[0], type: 'template' }), one: true },
    update: { route: PUT('/mop/updateTemplate/:name'), key: 'name', wrap: (doc) => ({ mop: doc }) },
    export: { route: POST('/mop/export'), key: 'name', body: (name) => ({ options: { name, type: 'template' } }) },
    gaps: {},
  },
  {
    plural: 'analytic-templates',
    singular: 'analytic-template',
    summary: 'MOP analytic templates',
    kind: 'analytic-template',
    idOf: byId,
    nameOf: byName,
    columns: [NAME, { header: 'OS', path: 'os' }, ID],
    list: { route: GET('/mop/listAnalyticTemplates') },
    get: { route: GET('/mop/listAnAnalyticTemplate/:name'), key: 'name', firstOfList: true },
    create: { route: POST('/mop/createAnalyticTemplate'), wrap: (doc) => ({ template: doc }) },
    delete: { route: POST('/mop/deleteAnalyticTemplate/:id'), key: 'id' },
    import: { route: POST('/mop/import'), wrap: (docs) => ({ template: docs[0], type: 'analytic' }), one: true },
    update: { route: POST('/mop/updateAnalyticTemplate/:mopID'), key: 'id', wrap: (doc) => ({ template: doc }) },
    export: { route: POST('/mop/export'), key: 'name', body: (name) => ({ options: { name, type: 'analytic' } }) },
    gaps: {},
  },
  {
    plural: 'forms',
    singular: 'form',
    aliases: ['jsonforms', 'jsonform'],
    summary: 'forms (Form Builder and JSON forms)',
    kind: 'form',
    idOf: byId,
    nameOf: byName,
    columns: [NAME, { header: 'CREATED BY', path: 'created_by' }, ID],
    list: { route: GET('/formbuilder/forms'), paged: true, byName: equalsName, byMemberName: memberName },
    get: { route: GET('/formbuilder/forms/:id'), key: 'id' },
    create: { route: POST('/formbuilder/forms'), wrap: (doc) => ({ form: doc }) },
    delete: { route: DELETE('/formbuilder/forms/:id'), key: 'id' },
    import: { route: POST('/formbuilder/forms/import'), wrap: (docs) => ({ forms: docs }) },
    // the whole form, checked as on creation; the id (and the creation stamp) stay those of the form there
    update: { route: PUT('/formbuilder/forms/:id'), key: 'id', wrap: (doc) => ({ form: without('_id')(doc) }) },
    export: { route: POST('/formbuilder/forms/export'), key: 'id', body: (id) => ({ options: { _id: id } }) },
    gaps: {},
  },
  {
    plural: 'tags',
    singular: 'tag',
    summary: 'tags of Automation Studio, put on workflows, transformations, templates and forms (`nap tags`)',
    kind: 'tag',
    idOf: byId,
    nameOf: byName,
    columns: [NAME, DESCRIPTION, ID],
    list: { route: GET('/tags/all') },
    get: { route: POST('/tags/get'), key: 'id', body: (id) => ({ id }) },
    create: { route: POST('/tags/create'), wrap: (doc) => ({ data: tagBody(doc) }) },
    // takes the tag off every document it is on, in the same step
    delete: { route: POST('/tags/delete'), key: 'id', body: (id) => ({ _id: id }) },
    import: { route: POST('/tags/create'), wrap: (docs) => ({ data: tagBody(docs[0] ?? {}) }), one: true },
    update: {
      route: POST('/tags/update'),
      key: 'id',
      wrap: (doc, id) => ({ data: { _id: id, description: '', ...tagBody(doc) } }),
      note: 'its id kept, so the documents it is on keep it; a file without a `description` empties it',
    },
    export: {
      route: POST('/tags/get'),
      key: 'id',
      body: (id) => ({ id }),
      via: 'the tag as `POST /tags/get` answers it (the platform has no export route), without the documents it is on (their ids differ between platforms); an import leaves out its `_id` and the stamps',
    },
    gaps: {},
  },
  {
    plural: 'projects',
    singular: 'project',
    summary: 'projects of Automation Studio, with their components',
    kind: 'project',
    idOf: byId,
    nameOf: byName,
    columns: [NAME, DESCRIPTION, { header: 'COMPONENTS', path: (d) => (Array.isArray(d.components) ? d.components.length : 0) }, ID],
    list: { route: GET('/automation-studio/projects'), paged: true, byName: equalsName },
    get: { route: GET('/automation-studio/projects/:id'), key: 'id' },
    create: {
      route: POST('/automation-studio/projects/import'),
      wrap: (doc) => ({ project: doc }),
      via: '`POST /automation-studio/projects/import`, the only route that makes a project: the file is a project as `nap export project` writes it (`name` and `components`, which may be empty); a project of that name is refused (409)',
    },
    delete: { route: DELETE('/automation-studio/projects/:id'), key: 'id' },
    import: { route: POST('/automation-studio/projects/import'), wrap: (docs) => ({ project: docs[0] }), one: true },
    update: {
      route: PATCH('/automation-studio/projects/:id'),
      key: 'id',
      wrap: only('name', 'description'),
      members: true,
      note: "its name and description, and each component whose document differs (matched by type and name) through the component's own route, so that the project and its components keep their ids and the jobs of its workflows; a step refused undoes those done. Components the file adds are created through their own routes and taken in with `POST …/projects/:id/components/add` (in their folders), those it leaves out deleted with `DELETE …/projects/:id/components/:iid`; no route moves a component between folders or changes a project's folder tree otherwise: a project whose file does is deleted and imported again, put back if refused",
    },
    export: { route: GET('/automation-studio/projects/:id/export'), key: 'id' },
    gaps: {},
  },
  {
    plural: 'automations',
    singular: 'automation',
    summary: 'automations of the Operations Manager (a workflow and its triggers)',
    kind: 'automation',
    idOf: byId,
    nameOf: byName,
    columns: [NAME, { header: 'WORKFLOW', path: 'componentName' }, DESCRIPTION, ID],
    list: { route: GET('/operations-manager/automations'), paged: true, byName: equalsName },
    get: { route: GET('/operations-manager/automations/:id'), key: 'id' },
    create: { route: POST('/operations-manager/automations'), wrap: (doc) => ({ automation: doc }) },
    delete: { route: DELETE('/operations-manager/automations/:id'), key: 'id' },
    import: { route: PUT('/operations-manager/automations'), wrap: (docs) => ({ automations: docs, options: {} }) },
    update: {
      route: PATCH('/operations-manager/automations/:id'),
      key: 'id',
      wrap: only('name', 'description', 'componentType', 'componentName', 'componentId', 'gbac'),
      inPlace: (doc, there) => doc.triggers === undefined || triggerParts(doc) === triggerParts(there),
      triggers: true,
      note: "its own members, its id kept (its jobs and its triggers stay linked to it); a document without a `triggers` member leaves the triggers there as they are. Otherwise its triggers are made the document's, matched to those there by name: one whose members differ is changed (`PATCH /operations-manager/triggers/:id`, its id kept; members the document leaves out stay), one whose type differs is deleted and created again, one the document adds is created (`PUT /operations-manager/triggers`, its `_id` kept) and one it leaves out is deleted. Two triggers of one name in the document, or a name two triggers there carry when the document's has the `_id` of neither, are refused before anything changes. When the platform refuses a step, every step done is undone, so the automation is left as it was; if even that fails, the error names what could not be put back and where the copy read before the first change is (`nap import automation FILE --replace` makes the automation that again)",
    },
    export: { route: GET('/operations-manager/automations/:id/export'), key: 'id' },
    gaps: {},
  },
  {
    plural: 'triggers',
    singular: 'trigger',
    summary: 'triggers of automations (endpoint, manual, schedule, event)',
    kind: 'trigger',
    idOf: byId,
    nameOf: byName,
    // no AUTOMATION column: its id says nothing to a person and would take the table past 120
    // columns; `-o json` and `nap describe trigger` have it (actionId)
    columns: [
      NAME,
      { header: 'TYPE', path: 'type' },
      { header: 'ENABLED', path: 'enabled' },
      { header: 'NEXT RUN', path: nextRun },
      { header: 'LAST STARTED', path: (d) => isoTime(d.lastExecuted) },
      ID,
    ],
    list: { route: GET('/operations-manager/triggers'), paged: true, byName: equalsName },
    get: { route: GET('/operations-manager/triggers/:id'), key: 'id' },
    create: { route: POST('/operations-manager/triggers'), wrap: (doc) => doc },
    delete: { route: DELETE('/operations-manager/triggers/:id'), key: 'id' },
    import: { route: PUT('/operations-manager/triggers'), wrap: (docs) => ({ triggers: docs }) },
    // the members of the document, checked as on creation; the id (and the type) stay those of the trigger there
    update: {
      route: PATCH('/operations-manager/triggers/:id'),
      key: 'id',
      wrap: without('_id'),
      note: "the trigger replaced is the one with the document's `_id`, else the one of its name in its automation (`actionId`); its type cannot change",
    },
    export: { route: GET('/operations-manager/triggers/:id/export'), key: 'id' },
    toggle: {
      route: PATCH('/operations-manager/triggers/:id'),
      key: 'id',
      body: (enabled) => ({ enabled }),
      after: (d) => {
        if (d.type !== 'schedule' || d.enabled === false) return '';
        const next = nextRun(d);
        return next === 'none' ? ', no next run (a single run whose time has passed)' : `, next run ${String(next)}`;
      },
    },
    sharedNames: true,
    gaps: {},
  },
  {
    plural: 'adapters',
    singular: 'adapter',
    summary: 'adapters (instances of an adapter model)',
    kind: 'adapter',
    idOf: (d) => str(field(d, 'data.name')) ?? byName(d),
    nameOf: (d) => str(field(d, 'data.name')) ?? byName(d),
    columns: [
      { header: 'NAME', path: (d) => field(d, 'data.name') ?? d.name },
      { header: 'MODEL', path: (d) => field(d, 'data.model') ?? d.model },
      { header: 'STATE', path: (d) => field(d, 'metadata.state') ?? d.state, status: true },
    ],
    list: { route: GET('/adapters') },
    get: { route: GET('/adapters/:name'), key: 'name' },
    create: { route: POST('/adapters'), wrap: (doc) => ({ properties: doc }) },
    delete: { route: DELETE('/adapters/:name'), key: 'name' },
    import: { route: POST('/adapters/import'), wrap: (docs) => ({ properties: docs[0] }), one: true },
    update: { route: PUT('/adapters/:name'), key: 'name', wrap: (doc) => ({ properties: doc }) },
    export: { route: GET('/adapters/:name/export'), key: 'name' },
    gaps: {},
  },
  {
    plural: 'integrations',
    singular: 'integration',
    summary: 'integrations (instances of an integration model)',
    kind: 'integration',
    idOf: (d) => str(field(d, 'data.name')) ?? byName(d),
    nameOf: (d) => str(field(d, 'data.name')) ?? byName(d),
    columns: [
      { header: 'NAME', path: (d) => field(d, 'data.name') ?? d.name },
      { header: 'MODEL', path: (d) => field(d, 'data.model') ?? d.model },
      { header: 'ACTIVE', path: 'metadata.isActive' },
    ],
    list: { route: GET('/integrations'), byName: equalsName },
    get: { route: GET('/integrations/:name'), key: 'name' },
    create: { route: POST('/integrations'), wrap: (doc) => ({ properties: doc }) },
    delete: { route: DELETE('/integrations/:name'), key: 'name' },
    portable: {
      form: '`name`, `model`, `type` and `properties` as `GET /integrations/:name` answers them, without the secrets (answered `********`), whose members `omittedSecrets` lists; imported with `POST /integrations`, or with `--replace` `PUT /integrations/:name`, which keeps the secrets stored there',
    },
    gaps: {},
  },
  {
    plural: 'integration-models',
    singular: 'integration-model',
    aliases: ['models'],
    summary: 'integration models (OpenAPI documents)',
    kind: 'integration-model',
    idOf: modelName,
    nameOf: modelName,
    columns: [
      { header: 'NAME', path: (d) => d.versionId ?? d.name ?? d.model },
      { header: 'DESCRIPTION', path: 'description', prose: true },
    ],
    list: { route: GET('/integration-models') },
    get: { route: GET('/integration-models/:name'), key: 'name' },
    create: { route: POST('/integration-models'), wrap: (doc) => ({ model: doc }) },
    delete: { route: DELETE('/integration-models/:name'), key: 'name' },
    import: { route: POST('/integration-models'), wrap: (docs) => ({ model: docs[0] }), one: true },
    update: { route: PUT('/integration-models'), wrap: (doc) => ({ model: doc }) },
    export: { route: GET('/integration-models/:name/export'), key: 'name' },
    gaps: {},
  },
  {
    plural: 'prebuilts',
    singular: 'prebuilt',
    summary: 'prebuilts (packages of assets)',
    kind: 'prebuilt',
    idOf: (d) => byId(d) ?? str(field(d, 'metadata.name')),
    nameOf: (d) => str(field(d, 'metadata.name')) ?? byName(d),
    columns: [
      { header: 'NAME', path: 'metadata.name' },
      { header: 'VERSION', path: 'metadata.version' },
      { header: 'DESCRIPTION', path: 'metadata.description', prose: true },
      ID,
    ],
    list: { route: GET('/prebuilts') },
    get: { route: GET('/prebuilts/:id'), key: 'id' },
    create: {
      route: POST('/prebuilts/import'),
      wrap: (doc) => ({ prebuilt: doc }),
      via: '`POST /prebuilts/import`, the only route that installs a prebuilt: the file is a package (`metadata`, `manifest`, `bundles`); an installed prebuilt of that name is refused (409)',
    },
    delete: { route: DELETE('/prebuilts/:id'), key: 'id' },
    import: { route: POST('/prebuilts/import'), wrap: (docs) => ({ prebuilt: docs[0] }), one: true },
    // an upgrade, all or nothing; the same or an older version is deleted and imported again
    update: {
      route: PUT('/prebuilts/:id'),
      key: 'id',
      wrap: (doc) => ({ prebuilt: doc }),
      notApplicable: ['PREBUILT_VERSION_NOT_NEWER'],
      note: 'an upgrade, all or nothing, when the document is a newer version; the same or an older version (409 PREBUILT_VERSION_NOT_NEWER) is deleted and imported again, put back if refused',
    },
    export: { route: GET('/prebuilts/:id/export'), key: 'id' },
    gaps: {},
  },
  {
    plural: 'profiles',
    singular: 'profile',
    summary: 'platform profiles (settings; one is active)',
    kind: 'profile',
    idOf: (d) => str(field(d, 'profile.id')) ?? str(d.id),
    nameOf: (d) => str(field(d, 'profile.id')) ?? str(d.id),
    columns: [
      { header: 'NAME', path: (d) => field(d, 'profile.id') ?? d.id },
      { header: 'ACTIVE', path: 'metadata.isActive' },
      { header: 'DESCRIPTION', path: (d) => field(d, 'profile.description') ?? d.description, prose: true },
    ],
    list: { route: GET('/profiles') },
    get: { route: GET('/profiles/:id'), key: 'id' },
    create: { route: POST('/profiles'), wrap: (doc) => ({ properties: doc }) },
    delete: { route: DELETE('/profiles/:id'), key: 'id' },
    import: { route: POST('/profiles/import'), wrap: (docs) => ({ profile: docs[0] }), one: true },
    update: { route: PUT('/profiles/:id'), key: 'id', wrap: (doc) => ({ properties: doc }) },
    export: { route: GET('/profiles/:id/export'), key: 'id' },
    gaps: {},
  },
  {
    plural: 'accounts',
    singular: 'account',
    summary: 'accounts of people and services',
    kind: 'account',
    idOf: byId,
    nameOf: (d) => str(d.username),
    columns: [
      { header: 'USERNAME', path: 'username' },
      { header: 'ROLES', path: 'roles' },
      { header: 'STATUS', path: accountStatus },
      { header: 'LAST LOGIN', path: (d) => isoTime(d.lastLogin) ?? 'never' },
      ID,
    ],
    list: { route: GET('/user-management/accounts') },
    get: { route: GET('/user-management/accounts/:accountId'), key: 'id' },
    create: { route: POST('/user-management/accounts'), wrap: (doc) => ({ account: doc }) },
    delete: { route: DELETE('/user-management/accounts/:accountId'), key: 'id' },
    // disabling an account is what the platform calls making it inactive: it cannot log in, and its sessions end
    toggle: {
      route: PATCH('/authorization/accounts/:accountId'),
      key: 'id',
      body: (enabled) => ({ inactive: !enabled }),
      enabledOf: (d) => d.inactive !== true,
      after: (d, changed) => (changed && d.inactive === true ? ': it cannot log in, and its sessions have ended' : ''),
    },
    portable: {
      form: '`username`, `firstname`, `lastname`, `email`, `inactive`, and `groups` by name (ids differ between platforms); never a password (the platform answers none). Imported with `POST /user-management/accounts` and the groups of those names on the target; the password is `--password-from-env VAR`, else a random one nobody knows, and `nap` says an admin must set one. `--replace` updates the account in place (`PATCH /authorization/accounts/:accountId`, its groups, and its password only with `--password-from-env`). Accounts a sign-in method brought in (`provenance`) are not exported: the directory brings them in',
    },
    gaps: {},
  },
  {
    plural: 'groups',
    singular: 'group',
    summary: 'groups of accounts, with their roles (built-in and custom: `nap roles grant`)',
    kind: 'group',
    idOf: byId,
    nameOf: byName,
    columns: [NAME, { header: 'ROLES', path: 'roles' }, DESCRIPTION, ID],
    list: { route: GET('/user-management/groups') },
    get: { route: GET('/user-management/groups/:groupId'), key: 'id' },
    create: {
      route: POST('/user-management/groups'),
      wrap: (doc) => {
        // the portable form's custom roles by name are read by an import, which finds their ids on the target
        if (doc.customRoles !== undefined)
          throw usage(
            `group "${str(doc.name) ?? ''}": customRoles (custom roles by name, as \`nap export group\` writes them) are read by \`nap import group FILE\`; \`nap create group\` sends the file as it is (custom roles by id: assignedRoles: [{ roleId }])`,
          );
        return { group: doc };
      },
    },
    delete: { route: DELETE('/user-management/groups/:groupId'), key: 'id' },
    portable: {
      form: '`name`, `description`, `roles` (built-in) and `customRoles` (custom roles by name, as ids differ between platforms; left out when it has none); imported with `POST /user-management/groups`, the custom roles of those names on the target (import them first); `--replace` sets the roles of the group in place (`PUT /user-management/groups/:groupId/roles`, and `PUT …/assigned-roles` when the file has `customRoles`; its id kept for the accounts in it) — no route changes a description, and `nap` says so when it differs. Groups a sign-in method brought in (`provenance`) are not exported',
    },
    gaps: {},
  },
  {
    plural: 'roles',
    singular: 'role',
    summary: "roles groups are given: NAP's six built-in ones (read-only) and custom roles, each the methods (operations) it allows",
    kind: 'role',
    idOf: byId,
    nameOf: byName,
    columns: [
      NAME,
      { header: 'TYPE', path: (d) => (d.builtIn === true ? 'built-in' : 'custom') },
      { header: 'METHODS', path: (d) => (Array.isArray(d.allowedMethods) ? d.allowedMethods.length : 0) },
      DESCRIPTION,
      ID,
    ],
    list: { route: GET('/authorization/roles'), paged: true, byName: equalsName },
    get: { route: GET('/authorization/roles/:roleId'), key: 'id' },
    create: { route: POST('/authorization/roles'), wrap: (doc) => ({ role: roleBody(doc) }) },
    // a built-in role is refused by the platform (409 ROLE_BUILT_IN), a role a group is given too (409 ROLE_IN_USE, naming the groups)
    delete: { route: DELETE('/authorization/roles/:roleId'), key: 'id' },
    import: { route: POST('/authorization/roles'), wrap: (docs) => ({ role: roleBody(docs[0] ?? {}) }), one: true },
    // the route changes the members given: the ones a file leaves out are sent empty, so that the role becomes the file's
    update: {
      route: PUT('/authorization/roles/:roleId'),
      key: 'id',
      wrap: (doc) => ({ role: { description: '', allowedMethods: [], allowedViews: [], ...roleBody(doc) } }),
      note: 'its id kept, so the groups given it keep it; a member the file leaves out (`description`, `allowedMethods`, `allowedViews`) is emptied. A built-in role is refused (409 ROLE_BUILT_IN)',
    },
    export: {
      route: GET('/authorization/roles/:roleId'),
      key: 'id',
      via: 'the role as `GET /authorization/roles/:roleId` answers it (the platform has no export route); an import leaves out its `_id`, `builtIn` and the stamps, which the platform sets',
    },
    gaps: {},
  },
  {
    plural: 'methods',
    singular: 'method',
    summary: 'the methods (operations, by application) a custom role can allow; `nap roles methods ROLE` lists those of a role',
    kind: 'method',
    idOf: (d) => (str(d.provenance) === undefined || str(d.name) === undefined ? undefined : `${String(d.provenance)}.${String(d.name)}`),
    nameOf: byName,
    columns: [
      { header: 'APPLICATION', path: 'provenance' },
      { header: 'METHOD', path: 'name' },
      { header: 'ROUTE', path: methodRoute },
    ],
    // searched whole (one page), so that `nap get method OperationsManager.getJobs` finds it by its id too
    list: { route: GET('/authorization/methods'), paged: true },
    sharedNames: true,
    gaps: {
      create: "methods are the platform's operations: a custom role allows them (`allowedMethods` of `nap create role`)",
      delete: "methods are the platform's operations: `nap import role FILE --replace` with fewer `allowedMethods` takes them from a role",
      import: "methods are the platform's operations, the same on every platform of a version",
      export: 'methods are exported with the roles that allow them (`nap export role NAME`)',
      copy: "methods are the platform's operations, the same on every platform of a version",
    },
  },
  {
    plural: 'devices',
    singular: 'device',
    summary: 'inventory devices of the device gateway',
    kind: 'device',
    idOf: byName,
    nameOf: byName,
    columns: [NAME, { header: 'HOST', path: 'variables.gw_host' }, { header: 'GROUPS', path: 'groups' }],
    list: { route: POST('/gw/getInventoryDevices'), body: {} },
    get: { route: POST('/gw/getInventoryDevice'), key: 'name', body: (name) => ({ name }) },
    create: { route: POST('/gw/createInventoryDevice'), wrap: (doc) => doc },
    delete: { route: DELETE('/gw/deleteInventoryDevice'), key: 'name', body: (name) => ({ name }) },
    portable: {
      form: '`name`, `variables` without the secret ones (answered `********`; `omittedSecrets` lists them) and `groups`; imported with `POST /gw/createInventoryDevice`; with `--replace` the device is updated in place: its plain variables become those of the document, its secret variables stay',
    },
    gaps: {},
  },
  {
    plural: 'device-groups',
    singular: 'device-group',
    summary: 'groups of inventory devices',
    kind: 'device-group',
    idOf: byName,
    nameOf: byName,
    columns: [NAME, { header: 'DEVICES', path: 'devices' }, DESCRIPTION],
    list: { route: POST('/gw/getInventoryGroups'), body: {} },
    portable: {
      form: '`name`, `description` and `devices` (the member names) as `POST /gw/getInventoryGroups` lists them; imported as `nap create device-group` makes one (below), and with `--replace` the group is also taken from the devices the document no longer names',
      create:
        'a device group lives on its devices over HTTP: `nap` adds the group to the `groups` of each device the file names (`POST /gw/createInventoryDevice`); the devices must exist, at least one is needed, and a description is not kept (only the bus stores one)',
      delete:
        'removes the group from the `groups` of each of its devices; a group record made on the bus (with a description) stays, empty, and `nap` says so (exit 1)',
    },
    gaps: {},
  },
  {
    plural: 'known-hosts',
    singular: 'known-host',
    summary: 'SSH host keys the device gateway trusts, by host:port',
    kind: 'known-host',
    idOf: (d) => str(d.hostPort),
    nameOf: (d) => str(d.hostPort),
    columns: [
      { header: 'HOST:PORT', path: 'hostPort' },
      { header: 'FINGERPRINT', path: 'fingerprint' },
      { header: 'TRUSTED', path: 'created' },
    ],
    list: { route: GET('/gw/knownHosts'), paged: true, byName: (hostPort) => ({ 'equals[hostPort]': hostPort }) },
    delete: { route: DELETE('/gw/knownHosts/:hostPort'), key: 'name' },
    gaps: {
      create:
        'a key is trusted on first use, or pinned with `nap api put /gw/knownHosts/HOST:PORT -d \'{"fingerprint":"SHA256:…"}\'` (docs/security.md, device host keys)',
      import: 'host keys are trusted by the device gateway itself, one at a time: `nap api put /gw/knownHosts/HOST:PORT`',
      export: 'a host key belongs to the platform that met the device: `nap get known-hosts -o json` lists them',
      copy: 'a host key belongs to the platform that met the device; the other platform trusts it on first use',
    },
  },
  {
    plural: 'jobs',
    singular: 'job',
    summary: 'jobs (runs of workflows); see also `nap jobs`',
    kind: 'job',
    idOf: byId,
    nameOf: byName,
    columns: [
      ID,
      { header: 'WORKFLOW', path: 'name' },
      { header: 'STATUS', path: 'status', status: true },
      { header: 'STARTED', path: (d) => isoTime(field(d, 'metrics.start_time')) },
      DESCRIPTION,
    ],
    list: { route: GET('/operations-manager/jobs'), paged: true },
    get: { route: GET('/operations-manager/jobs/:jobId'), key: 'id' },
    export: {
      route: GET('/operations-manager/jobs/:jobId'),
      key: 'id',
      via: "the job's record as `GET /operations-manager/jobs/:jobId` answers it, ids and times kept (a record of a run, to keep or review; nothing imports it), written to `<id>.job.json`",
    },
    idFirst: true,
    fileName: byId,
    gaps: {
      create: 'jobs are started, not created: use `nap run workflow NAME` or `nap run automation NAME`',
      delete:
        "jobs are not deleted one by one: finished jobs are moved into archives (`nap jobs archive --before 90d`, or by the retention of the platform's active profile), downloaded with `nap jobs archive-download ID` and deleted with `nap jobs archive-delete ID` (`nap jobs cancel ID` stops a running one)",
      import: 'no route creates a job record: a job is a run, and `nap export job ID` keeps its record for review, not for import',
      copy: 'jobs cannot be copied: run the workflow on the other platform',
    },
  },
];

/** An account's state, for people: `active`, `inactive`, or `locked until <time>` while its logins are answered 429. */
function accountStatus(d: Doc): string {
  if (d.inactive === true) return 'inactive';
  return typeof d.lockedUntil === 'string' ? `locked until ${isoTime(d.lockedUntil) ?? d.lockedUntil}` : 'active';
}

export function isoTime(value: unknown): string | undefined {
  return typeof value === 'number' ? new Date(value).toISOString().replace(/\.\d+Z$/, 'Z') : str(value);
}

/**
 * When a trigger starts its next job, for people: a schedule's next due time; `disabled` for a
 * disabled schedule (its stored due time will not fire, and enabling it moves the time to the first
 * due time from then on); `none` when it will not fire again; nothing for the other types.
 */
export function nextRun(trigger: Doc): string | undefined {
  if (trigger.type !== 'schedule') return undefined;
  if (trigger.enabled === false) return 'disabled';
  return isoTime(trigger.nextRunAt) ?? 'none';
}

/** The word with its indefinite article: `a workflow`, `an integration-model`. */
export function an(word: string): string {
  return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
}

/** The resource a word names: plural, singular or an alias, any case. */
export function findResource(word: string): ResourceDef | undefined {
  const w = word.toLowerCase();
  return RESOURCES.find((r) => r.plural === w || r.singular === w || r.aliases?.includes(w) === true);
}

/** Names accepted on the command line, for completion and messages. */
export function resourceWords(): string[] {
  return RESOURCES.flatMap((r) => [r.plural, r.singular]);
}
