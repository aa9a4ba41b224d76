import { AppError, PROJECT_COMPONENT_TYPES, isAppError, memberName, plainName, projectOf } from '@nap/contracts';
import type { Caller, ExportedProject, Project, ProjectComponent, ProjectComponentType, UpdateProjectBody } from '@nap/contracts';
import { canAccess, isAdmin } from './access';
import { keepableId } from './documents';

/**
 * Projects: imported with every component through its owning service, all or nothing; exported
 * with the components as stored now, under their original names; deleted with their components.
 * The import checks every component before it writes any; while it writes, the project record is
 * its journal (the components stored so far), so that a failure deletes them again and a crash is
 * rolled back at the next start. Pure: the rules of those steps; the handlers run them.
 */

/** A stored project: the project, and while an import runs, the components stored so far (its journal). */
export type ProjectRecord = Project & {
  /** Set while the import runs; a project left in this state by a crash is rolled back at the next start. */
  importing?: { startedAt: number };
};

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
  /** The stored document, by its reference (and stored name, for kinds found by name). */
  read(reference: string, storedName: string, caller: Caller): Promise<Record<string, unknown>>;
  /**
   * For kinds whose documents carry `groups` (workflows, forms): the groups of the stored documents
   * among `references`, by reference; documents already gone are absent.
   */
  groupsOf?(references: readonly string[]): Promise<Map<string, readonly string[]>>;
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
  return keepableId(project._id) ?? uuid.replace(/-/g, '').slice(0, 24);
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
 * `VALIDATION_FAILED` for a component without a name, or two of one type with the same name.
 */
export function planComponents(projectId: string, components: readonly ProjectComponent[]): PlannedComponent[] {
  const seen = new Map<string, number>();
  const planned = components.map((component, index) => {
    const name = typeof component.document.name === 'string' ? component.document.name : '';
    const member = `body.project.components[${index}].document`;
    if (name === '')
      throw new AppError('VALIDATION_FAILED', `${member}.name is required`, {
        details: [{ member: `${member}.name`, message: 'is required' }],
      });
    const storedName = memberName(projectId, name);
    const key = `${component.type}\u0000${storedName}`;
    const other = seen.get(key);
    if (other !== undefined)
      throw new AppError('VALIDATION_FAILED', `components ${other} and ${index} are both ${component.type} "${name}"`, {
        details: [{ member, message: 'duplicate component name' }],
      });
    seen.set(key, index);
    const doc: Record<string, unknown> = { ...component.document, name: storedName };
    // a workflow exported without its _id keeps the component reference as its id, so links by id survive
    if (component.type === 'workflow' && doc._id === undefined && keepableId(component.reference) !== undefined)
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

/** The record of a project whose import starts now: no component yet, `importing` since `startedAtMs` (epoch ms). */
export function importingRecord(id: string, project: ExportedProject, by: string, at: string, startedAtMs: number): ProjectRecord {
  return {
    _id: id,
    name: project.name,
    description: project.description ?? '',
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
 * The project `record` becomes with `changes` (PATCH): the members given replace theirs, the others
 * stay; stamped by `by` at `at`. A name of blanks only is 400 `VALIDATION_FAILED` naming `body.name`.
 * The components keep their stored names: those carry the project's id, not its name.
 */
export function changedProject(record: ProjectRecord, changes: UpdateProjectBody, by: string, at: string): ProjectRecord {
  if (changes.name !== undefined && changes.name.trim() === '')
    throw new AppError('VALIDATION_FAILED', 'body.name must be a non-empty name: a project needs one', {
      details: [{ member: 'body.name', message: 'must not be blank' }],
    });
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

/** An exported component: the document as stored now, under its original name. */
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

// Access: a project has no groups of its own, but its workflows and forms may; what the caller may not
// see is left out of the project's reads, and an export or delete of the project is refused.

/**
 * The components of `components` that `caller` may not see: workflows and forms shared with groups
 * the caller is in none of (nothing for admins). One read per kind, however many components.
 */
export async function hiddenComponents(
  kinds: ComponentKinds,
  components: readonly StoredComponent[],
  caller: Caller,
): Promise<StoredComponent[]> {
  if (isAdmin(caller)) return [];
  const hidden: StoredComponent[] = [];
  for (const type of PROJECT_COMPONENT_TYPES) {
    const groupsOf = kinds[type]?.groupsOf;
    const ofType = components.filter((c) => c.type === type);
    if (groupsOf === undefined || ofType.length === 0) continue;
    const groups = await groupsOf([...new Set(ofType.map((c) => c.reference))]);
    for (const c of ofType) {
      const shared = groups.get(c.reference);
      if (shared !== undefined && !canAccess(caller, shared)) hidden.push(c);
    }
  }
  return hidden.sort((a, b) => a.iid - b.iid);
}

/** `projects`, each with only the components `caller` may see, and how many of its components were left out. */
export async function visibleToCaller<P extends Pick<ProjectRecord, 'components'>>(
  kinds: ComponentKinds,
  projects: readonly P[],
  caller: Caller,
): Promise<{ project: P; left: number }[]> {
  const hidden = new Set(
    await hiddenComponents(
      kinds,
      projects.flatMap((p) => p.components),
      caller,
    ),
  );
  return projects.map((project) => {
    const components = project.components.filter((c) => !hidden.has(c));
    return { project: { ...project, components }, left: project.components.length - components.length };
  });
}

/**
 * Throws 403 `GROUP_ACCESS_DENIED` naming every component of `project` that `caller` may not see
 * (iid, type and name): the project as a whole is not the caller's to `action` (export, delete).
 */
export async function assertWholeProjectVisible(
  kinds: ComponentKinds,
  project: Pick<ProjectRecord, '_id' | 'name' | 'components'>,
  caller: Caller,
  action: string,
): Promise<void> {
  const hidden = await hiddenComponents(kinds, project.components, caller);
  if (hidden.length === 0) return;
  const listed = hidden.map((c) => `${c.iid} (${c.type} "${c.name}")`).join(', ');
  throw new AppError(
    'GROUP_ACCESS_DENIED',
    `Project "${project.name}" cannot be ${action}: ${hidden.length === 1 ? 'component' : 'components'} ${listed} ${
      hidden.length === 1 ? 'is' : 'are'
    } shared with groups you are not a member of; nothing was ${action}`,
    { details: { components: hidden.map((c) => ({ iid: c.iid, type: c.type, name: c.name })) } },
  );
}
