import { AppError, PROJECT_COMPONENT_TYPES, isAppError, memberName, plainName, projectOf } from '@nap/contracts';
import type { Caller, ExportedProject, Project, ProjectComponent, ProjectComponentType, UpdateProjectBody } from '@nap/contracts';
import { canAccess, isAdmin } from './access';
import { keepableId } from './documents';

/**
 * Projects: imported with every component through its owning service, all or nothing; exported
 * with the components as stored now, under their names in the project; deleted with their
 * components. A project holds its components by reference (id), so it follows their renames and
 * goes on without those deleted through their own routes.
 * The import checks every component before it writes any; while it writes, the project record is
 * its journal (the components stored so far), so that a failure deletes them again and a crash is
 * rolled back at the next start. Pure: the rules of those steps; the handlers run them.
 */

/**
 * How the original platform shows a project, kept as an export brings it so that it exports the same
 * again: its picture (a data URL), its colour and its number there. Nothing here reads them.
 */
export interface ProjectLook {
  thumbnail?: string;
  backgroundColor?: string;
  iid?: number;
}

/** A stored project: the project, and while an import runs, the components stored so far (its journal). */
export type ProjectRecord = Project &
  ProjectLook & {
    /** Set while the import runs; a project left in this state by a crash is rolled back at the next start. */
    importing?: { startedAt: number };
    /** Set while components are added to it (project-components.ts): how to undo what was written so far. */
    changing?: ChangingJournal;
  };

/** How to undo one document written while components are added: rename it back, or (a copy) delete it. */
export interface UndoStep {
  type: ProjectComponentType;
  reference: string;
  /** Its name once written. */
  storedName: string;
  /** The name it had before a move; absent for a copy, which is deleted. */
  renameTo?: string;
}

/** The journal on a project record while components are added to it. */
export interface ChangingJournal {
  /** Epoch ms; a journal older than the time limit of the routes was left by a crash. */
  startedAt: number;
  /** True when the project itself is being created: undoing deletes it. */
  creating?: boolean;
  /** What was written so far, oldest first. */
  undo: UndoStep[];
}

/**
 * How a project reaches the owning service of each kind of component: check a document without
 * writing anything, store it, delete it again (the import is all or nothing) and read it back for
 * an export.
 */
export interface ComponentKind {
  /** Throws what storing the document would throw (invalid, name taken), writing nothing. */
  check(doc: Record<string, unknown>, member: string, caller: Caller): Promise<void>;
  /** Stores the document (its name already the stored one); answers the reference to keep. */
  create(doc: Record<string, unknown>, member: string, caller: Caller): Promise<string>;
  /** Deletes a stored component; nothing when it is already gone. */
  remove(reference: string, caller: Caller): Promise<void>;
  /**
   * The stored document, by its reference, whatever it is named now; `storedName` (its name as last
   * known) only speeds up kinds whose service finds documents by name. 404 when it is gone.
   */
  read(reference: string, storedName: string, caller: Caller): Promise<Record<string, unknown>>;
  /**
   * The state now of the stored documents among `components`, by reference (renames followed);
   * documents gone are absent. One read of the store where the service allows it.
   */
  statesOf(components: readonly Pick<StoredComponent, 'reference' | 'storedName'>[], caller: Caller): Promise<Map<string, ComponentState>>;
  /**
   * The stored document `reference` names (its id; for MOP templates its id or name), with its `_id`
   * and `name`; null when there is none. For adding existing documents to a project.
   */
  find(reference: string, caller: Caller): Promise<(Record<string, unknown> & { _id: string; name: string }) | null>;
  /** True when a document of this kind is named `name` (names are unique per kind). */
  nameTaken(name: string, caller: Caller): Promise<boolean>;
  /**
   * Renames the stored document `reference` (named `from` when read) to `to`, all else kept, as the
   * caller through its owning service: 409 when `to` is taken, 404 when it is gone, 409 `CONFLICT`
   * when it changed since it was read.
   */
  rename(reference: string, from: string, to: string, caller: Caller): Promise<void>;
}

/** What a project reads of a stored component now. */
export interface ComponentState {
  /** Its stored name now: `@<project id>: <name>` unless renamed otherwise through its own route. */
  storedName: string;
  /** For kinds whose documents carry `groups` (workflows, forms): who may see it. */
  groups?: readonly string[];
  /** The whole document, for kinds whose service answers it anyway (MOP templates): an export need not read it again. */
  document?: Record<string, unknown>;
}

/** A component as the project record lists it. */
export type StoredComponent = ProjectRecord['components'][number];

/** The component kinds whose owning operations exist, by component type; the others are refused by name. */
export type ComponentKinds = Partial<Record<ProjectComponentType, ComponentKind>>;

/** A component of an import, as it will be stored. */
export interface PlannedComponent {
  component: ProjectComponent;
  /** The document to store: the component's, under its stored name. */
  doc: Record<string, unknown>;
  /** Where the document stands in the request (`body.project.components[2].document`). */
  member: string;
  /** Its name in the project. */
  name: string;
  /** Its name once stored: `@<project id>: <name>`. */
  storedName: string;
}

/** Order of creation: what workflows refer to first. */
const CREATE_ORDER: readonly ProjectComponentType[] = ['template', 'jsonForm', 'mopCommandTemplate', 'transformation', 'workflow'];

/** The id of an imported project: the exported one when it may be kept, else 24 hex digits of `uuid`. */
export function projectIdOf(project: ExportedProject, uuid: string): string {
  return keepableId(project._id, 'body.project._id') ?? uuid.replace(/-/g, '').slice(0, 24);
}

/** The handler of components of `type`; 501 when none exists. */
export function kindOf(kinds: ComponentKinds, type: ProjectComponentType): ComponentKind {
  const kind = kinds[type];
  if (kind === undefined)
    throw new AppError(
      'NOT_IMPLEMENTED',
      `Components of type ${type} cannot be handled yet (types: ${PROJECT_COMPONENT_TYPES.join(', ')})`,
    );
  return kind;
}

/** 501 naming every component type that cannot be imported yet, before anything is checked or written. */
export function refuseUnsupported(components: readonly ProjectComponent[], kinds: ComponentKinds): void {
  const unsupported = new Map<string, string[]>();
  for (const c of components) {
    if (kinds[c.type] !== undefined) continue;
    const names = unsupported.get(c.type) ?? [];
    names.push(String(c.document.name ?? c.iid));
    unsupported.set(c.type, names);
  }
  if (unsupported.size === 0) return;
  const listed = [...unsupported.entries()].map(
    ([type, names]) =>
      `${type} (${names.length}: ${names
        .slice(0, 3)
        .map((n) => `"${n}"`)
        .join(', ')}${names.length > 3 ? ', …' : ''})`,
  );
  throw new AppError(
    'NOT_IMPLEMENTED',
    `The project has components of a type that cannot be imported yet: ${listed.join('; ')}. Nothing was imported.`,
    {
      details: [...unsupported.keys()].map((type) => ({
        member: 'body.project.components',
        message: `component type ${type} cannot be imported yet`,
      })),
    },
  );
}

/**
 * The components of project `projectId` as they will be stored, in the order of creation. 400
 * `VALIDATION_FAILED` for a component without a name, two of one type with the same name, or two
 * with the same iid (the folders and the component routes name a component by its iid: a second
 * one could be neither shown nor removed on its own).
 */
export function planComponents(projectId: string, components: readonly ProjectComponent[]): PlannedComponent[] {
  const seen = new Map<string, number>();
  const iids = new Map<number, number>();
  const planned = components.map((component, index) => {
    const name = typeof component.document.name === 'string' ? component.document.name : '';
    const member = `body.project.components[${index}].document`;
    if (name === '')
      throw new AppError('VALIDATION_FAILED', `${member}.name is required`, {
        details: [{ member: `${member}.name`, message: 'is required' }],
      });
    const sameIid = iids.get(component.iid);
    if (sameIid !== undefined)
      throw new AppError(
        'VALIDATION_FAILED',
        `body.project.components[${sameIid}] and body.project.components[${index}] both have iid ${component.iid}; each component needs its own iid`,
        { details: [{ member: `body.project.components[${index}].iid`, message: `duplicate iid ${component.iid}` }] },
      );
    iids.set(component.iid, index);
    const storedName = memberName(projectId, name);
    const key = `${component.type}\u0000${storedName}`;
    const other = seen.get(key);
    if (other !== undefined)
      throw new AppError(
        'VALIDATION_FAILED',
        `body.project.components[${other}] and body.project.components[${index}] are both ${component.type} "${name}"; names are unique per type`,
        { details: [{ member: `${member}.name`, message: `duplicate ${component.type} name "${name}"` }] },
      );
    seen.set(key, index);
    const doc: Record<string, unknown> = { ...component.document, name: storedName };
    // a workflow exported without its _id keeps the component reference as its id, so links by id survive
    if (
      component.type === 'workflow' &&
      doc._id === undefined &&
      keepableId(component.reference, `body.project.components[${index}].reference`) !== undefined
    )
      doc._id = component.reference;
    return { component, doc, member, name, storedName };
  });
  return planned.sort((a, b) => CREATE_ORDER.indexOf(a.component.type) - CREATE_ORDER.indexOf(b.component.type));
}

/** Runs `step` for a component; an error is thrown again naming the component, with its code, status and details. */
export async function forComponent<T>(p: Pick<PlannedComponent, 'component' | 'name'>, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (!isAppError(err)) throw err;
    throw new AppError(
      err.code,
      `Component ${p.component.iid} (${p.component.type} "${p.name}") was refused: ${err.message}. Nothing was imported.`,
      {
        status: err.status,
        cause: err,
        ...(err.details !== undefined ? { details: err.details } : {}),
      },
    );
  }
}

/** The members of {@link ProjectLook} `project` brings, of their types; others are not the project's to keep. */
function lookOf(project: Readonly<Record<string, unknown>>): ProjectLook {
  const look: ProjectLook = {};
  if (typeof project.thumbnail === 'string') look.thumbnail = project.thumbnail;
  if (typeof project.backgroundColor === 'string') look.backgroundColor = project.backgroundColor;
  if (Number.isSafeInteger(project.iid)) look.iid = project.iid as number;
  return look;
}

/**
 * The record of a project whose import starts now: no component yet, `importing` since `startedAtMs`
 * (epoch ms); its look ({@link ProjectLook}) as the export brings it.
 */
export function importingRecord(id: string, project: ExportedProject, by: string, at: string, startedAtMs: number): ProjectRecord {
  return {
    _id: id,
    name: project.name,
    description: project.description ?? '',
    ...lookOf(project),
    folders: project.folders ?? [],
    components: [],
    created: at,
    createdBy: by,
    lastUpdated: at,
    lastUpdatedBy: by,
    importing: { startedAt: startedAtMs },
  };
}

/** The record's entry of a component stored under `reference`. */
export function storedComponent(p: PlannedComponent, reference: string): ProjectRecord['components'][number] {
  return {
    iid: p.component.iid,
    type: p.component.type,
    reference,
    folder: p.component.folder ?? '/',
    name: p.name,
    storedName: p.storedName,
  };
}

/** The finished project: its components in the order of the export, the journal mark gone. */
export function finishedProject(record: ProjectRecord): Project {
  const { importing: _done, ...project } = record;
  return { ...project, components: [...record.components].sort((a, b) => a.iid - b.iid) };
}

/**
 * 400 `VALIDATION_FAILED` naming `member` when a project's name is blanks only: a project needs a
 * name people can read, whether it is created, imported or renamed.
 */
export function refuseBlankProjectName(name: string, member: string): void {
  if (name.trim() === '')
    throw new AppError('VALIDATION_FAILED', `${member} must be a non-empty name: a project needs one`, {
      details: [{ member, message: 'must not be blank' }],
    });
}

/**
 * The project `record` becomes with `changes` (PATCH): the members given replace theirs, the others
 * stay; stamped by `by` at `at`. A name of blanks only is 400 `VALIDATION_FAILED` naming `body.name`.
 * The components keep their stored names: those carry the project's id, not its name.
 */
export function changedProject(record: ProjectRecord, changes: UpdateProjectBody, by: string, at: string): ProjectRecord {
  if (changes.name !== undefined) refuseBlankProjectName(changes.name, 'body.name');
  return {
    ...record,
    ...(changes.name !== undefined ? { name: changes.name } : {}),
    ...(changes.description !== undefined ? { description: changes.description } : {}),
    lastUpdated: at,
    lastUpdatedBy: by,
  };
}

/** The original name of a component stored as `@<project _id>: <name>`. */
function originalNameOf(projectId: string, stored: string): string {
  return projectOf(stored) === projectId ? plainName(stored) : stored;
}

/** An exported component (`c` as it stands now): the document as stored now, under its name in the project. */
export function exportedComponent(
  projectId: string,
  c: ProjectRecord['components'][number],
  stored: Record<string, unknown>,
): ProjectComponent {
  const document = { ...stored, name: originalNameOf(projectId, typeof stored.name === 'string' ? stored.name : c.storedName) };
  return {
    iid: c.iid,
    type: c.type,
    reference: c.type === 'mopCommandTemplate' ? c.storedName : c.reference,
    folder: c.folder ?? '/',
    document,
  };
}

/**
 * 409 `CONFLICT` when two of `exported` are of one type and name: a member renamed through its own
 * route to the plain name another member has in the project (`x` beside `@<project _id>: x`). Such an
 * export would not import again (an import stores both as `@<project _id>: x`), so it is refused
 * naming both, and what to do, rather than answered for a later import to refuse.
 */
export function assertExportedNamesUnique(project: Pick<ProjectRecord, 'name'>, exported: readonly ProjectComponent[]): void {
  const seen = new Map<string, ProjectComponent>();
  for (const c of exported) {
    const name = String(c.document.name);
    const key = `${c.type}\u0000${name}`;
    const other = seen.get(key);
    if (other === undefined) {
      seen.set(key, c);
      continue;
    }
    throw new AppError(
      'CONFLICT',
      `Project "${project.name}" cannot be exported: components ${other.iid} and ${c.iid} are both ${c.type} "${name}" ` +
        '(one was renamed through its own route to the name the other has in the project), and an import needs names unique per type; ' +
        'rename one of them and export again',
      { details: { components: [other, c].map((x) => ({ iid: x.iid, type: x.type, name })) } },
    );
  }
}

// Components as they stand now. A project holds its components by reference (the stable id each
// service gives its documents), never by name: a member renamed through its own route stays a member
// under its new name, and one deleted through its own route is gone from the project, which goes on
// without it (a project cannot lose a member in any other way, so refusing the delete would leave
// the member undeletable short of deleting the whole project).
//
// Access: a project has no groups of its own, but its workflows and forms may; what the caller may not
// see is left out of the project's reads, and an export, change or delete of the project is refused.

/** A project's components as they stand now. */
export interface CurrentComponents {
  /** Those still stored, under their names now (renames followed), in the record's order. */
  present: StoredComponent[];
  /** The documents of `present` already read (by reference), for kinds whose service answers them whole. */
  documents: Map<string, Record<string, unknown>>;
  /** Those of `present` shared with groups the caller is in none of (none for admins). */
  hidden: StoredComponent[];
  /** Those deleted through their own routes since the project was imported. */
  gone: StoredComponent[];
}

/**
 * The components of each of `projects` as they stand now, for `caller`: one read per component kind,
 * however many projects and components.
 */
export async function currentComponents(
  kinds: ComponentKinds,
  projects: readonly Pick<ProjectRecord, '_id' | 'components'>[],
  caller: Caller,
): Promise<CurrentComponents[]> {
  const all = projects.flatMap((p) => p.components);
  const states = new Map<string, ComponentState>();
  for (const type of PROJECT_COMPONENT_TYPES) {
    const ofType = all.filter((c) => c.type === type);
    if (ofType.length === 0) continue;
    const unique = [...new Map(ofType.map((c) => [c.reference, c])).values()];
    for (const [reference, state] of await kindOf(kinds, type).statesOf(unique, caller)) states.set(stateKey(type, reference), state);
  }
  const admin = isAdmin(caller);
  return projects.map((p) => {
    const current: CurrentComponents = { present: [], documents: new Map(), hidden: [], gone: [] };
    for (const c of p.components) {
      const state = states.get(stateKey(c.type, c.reference));
      if (state === undefined) {
        current.gone.push(c);
        continue;
      }
      const now = { ...c, storedName: state.storedName, name: originalNameOf(p._id, state.storedName) };
      current.present.push(now);
      if (state.document !== undefined) current.documents.set(c.reference, state.document);
      if (!admin && state.groups !== undefined && !canAccess(caller, state.groups)) current.hidden.push(now);
    }
    return current;
  });
}

/** The components of one project as they stand now ({@link currentComponents} of it alone). */
export async function componentsNow(
  kinds: ComponentKinds,
  project: Pick<ProjectRecord, '_id' | 'components'>,
  caller: Caller,
): Promise<CurrentComponents> {
  const [current] = await currentComponents(kinds, [project], caller);
  return current ?? { present: [], documents: new Map(), hidden: [], gone: [] };
}

function stateKey(type: ProjectComponentType, reference: string): string {
  return `${type}\u0000${reference}`;
}

/** `projects`, each with only the components still stored that `caller` may see, how many were left out, and those gone. */
export async function visibleToCaller<P extends Pick<ProjectRecord, '_id' | 'components'>>(
  kinds: ComponentKinds,
  projects: readonly P[],
  caller: Caller,
): Promise<{ project: P; left: number; gone: StoredComponent[] }[]> {
  const current = await currentComponents(kinds, projects, caller);
  return projects.map((project, i) => {
    const hidden = new Set(current[i]?.hidden);
    const components = (current[i]?.present ?? []).filter((c) => !hidden.has(c));
    return { project: { ...project, components }, left: hidden.size, gone: current[i]?.gone ?? [] };
  });
}

/** The component types whose documents carry `groups` (who may see them): those a project may hide from a caller. */
const GROUP_SHARED_TYPES: ReadonlySet<ProjectComponentType> = new Set(['workflow', 'jsonForm']);

/**
 * What a read of a project says to `caller` of its components deleted through their own routes:
 * none, or the list and a note. A deleted workflow or form is named (by its name at the import)
 * only to admins: who it was shared with when it was deleted is not known any more, so a caller who
 * might never have been able to see it is told its iid and type alone, as a refusal names hidden
 * members. The other types are readable by every caller of the project routes.
 */
export function goneNote(gone: readonly StoredComponent[], caller: Caller): { componentsGone?: GoneComponent[]; note?: string } {
  if (gone.length === 0) return {};
  const admin = isAdmin(caller);
  const told = gone.map((c): GoneComponent =>
    admin || !GROUP_SHARED_TYPES.has(c.type) ? { iid: c.iid, type: c.type, name: c.name } : { iid: c.iid, type: c.type },
  );
  const listed = told.map((c) => (c.name !== undefined ? `${c.iid} (${c.type} "${c.name}")` : `${c.iid} (${c.type})`)).join(', ');
  return {
    componentsGone: told,
    note: `${gone.length === 1 ? 'Component' : 'Components'} ${listed} ${gone.length === 1 ? 'was' : 'were'} deleted since the project was imported; the project goes on without ${gone.length === 1 ? 'it' : 'them'}`,
  };
}

/**
 * A component deleted through its own route, as the reads of its project name it: `name` (at the
 * import) only where the caller may be told it (see {@link goneNote}).
 */
export interface GoneComponent {
  iid: number;
  type: ProjectComponentType;
  name?: string;
}

/**
 * The folder tree of an export without the nodes of the components `gone` (iids): an import finds
 * every component a folder names.
 */
export function foldersWithout(folders: readonly unknown[], gone: ReadonlySet<number>): unknown[] {
  if (gone.size === 0) return [...folders];
  const keep = (node: unknown): unknown[] => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return [node];
    const n = node as Record<string, unknown>;
    if (n.nodeType === 'component' && typeof n.iid === 'number' && gone.has(n.iid)) return [];
    return [Array.isArray(n.children) ? { ...n, children: n.children.flatMap(keep) } : n];
  };
  return folders.flatMap(keep);
}

/**
 * Throws 403 `GROUP_ACCESS_DENIED` naming every component of `project` that the caller may not see
 * (`current.hidden`) by its iid and type alone, as GET leaves them out and only counts them: their
 * names are not the caller's to know. The project as a whole is not the caller's to `action`
 * (export, change, delete).
 */
export function assertWholeProjectVisible(project: Pick<ProjectRecord, 'name'>, current: CurrentComponents, action: string): void {
  const { hidden } = current;
  if (hidden.length === 0) return;
  const listed = hidden.map((c) => `${c.iid} (${c.type})`).join(', ');
  throw new AppError(
    'GROUP_ACCESS_DENIED',
    `Project "${project.name}" cannot be ${action}: ${hidden.length === 1 ? '1 component' : `${hidden.length} components`} (${listed}) ${
      hidden.length === 1 ? 'is' : 'are'
    } shared with groups you are not a member of; nothing was ${action}`,
    { details: { count: hidden.length, components: hidden.map((c) => ({ iid: c.iid, type: c.type })) } },
  );
}
