import { AppError, memberName, plainName, projectOf } from '@nap/contracts';
import type { AddComponentMode, AuditChange, Project, ProjectComponentType } from '@nap/contracts';
import { auditChanges } from '@nap/contracts';
import type { ProjectRecord, StoredComponent } from './projects';

export type { ChangingJournal, UndoStep } from './projects';

/**
 * Components added to and removed from a project that exists (`POST …/components/add`,
 * `DELETE …/components/:componentId`, `POST …/projects` with components). Pure: names, numbers,
 * the folder tree, the journal and the audit; the handlers do the writing.
 *
 * All or nothing, as an import: every component is checked before any document is written; then
 * each write is followed by a write of the project record whose `changing` journal says how to undo
 * what was written so far (a rename back, a copy deleted). A component refused while writing undoes
 * the journal, newest first; a change a crash left unfinished is undone at the next start. The
 * record's components change once, at the end.
 */

/** A project record without its journals, as answered. */
export function withoutJournals(record: ProjectRecord): Project {
  const { importing: _importing, changing: _changing, ...rest } = record;
  return rest;
}

/** 409 `CONFLICT` when an import or another change of the project is under way: the record is theirs until they end. */
export function assertNotChanging(record: ProjectRecord, what: string): void {
  if (record.importing !== undefined)
    throw new AppError('CONFLICT', `Project "${record.name}" is still being imported; ${what} once its import has finished`);
  if (record.changing !== undefined)
    throw new AppError('CONFLICT', `Project "${record.name}" is being changed by another request; ${what} once it has finished`);
}

/** One more than the largest component number in `taken` (0 for none): the number of a component added without one. */
export function nextIid(taken: Iterable<number>): number {
  let max = -1;
  for (const iid of taken) if (iid > max) max = iid;
  return max + 1;
}

/**
 * A folder path as stored: `/` and the names between single slashes (`Port Turn Up/` becomes
 * `/Port Turn Up`); 400 naming `member` for a path with an empty folder name (`/a//b`).
 */
export function folderPath(folder: string | undefined, member: string): string {
  if (folder === undefined) return '/';
  const names = folder.split('/');
  if (names[0] === '') names.shift();
  if (names[names.length - 1] === '') names.pop();
  if (names.some((n) => n.trim() === ''))
    throw new AppError('VALIDATION_FAILED', `${member} "${folder}" has an empty folder name`, {
      details: [{ member, message: 'has an empty folder name' }],
    });
  return `/${names.join('/')}`;
}

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The folder tree with component `iid` added in `folder`: in the folder of that path (its folders
 * made as needed, after those there), or at the root for `/` when the tree already lists components
 * at its root (a tree that does not shows its root components by their `folder` alone).
 */
export function foldersWith(folders: readonly unknown[], folder: string, iid: number): unknown[] {
  const path = folder.split('/').filter((p) => p !== '');
  const node = { nodeType: 'component', iid };
  if (path.length === 0) return folders.some((n) => isNode(n) && n.nodeType === 'component') ? [...folders, node] : [...folders];
  const into = (nodes: readonly unknown[], rest: readonly string[]): unknown[] => {
    const [name, ...deeper] = rest;
    if (name === undefined) return [...nodes, node];
    const at = nodes.findIndex((n) => isNode(n) && n.nodeType === 'folder' && n.name === name);
    const existing = at >= 0 ? (nodes[at] as Node) : undefined;
    const children = existing !== undefined && Array.isArray(existing.children) ? existing.children : [];
    const changed = { ...(existing ?? { nodeType: 'folder', name }), children: into(children, deeper) };
    return at >= 0 ? nodes.map((n, i) => (i === at ? changed : n)) : [...nodes, changed];
  };
  return into(folders, path);
}

/** The component's name in the project for a document named `stored` now: its plain name. */
export function nameInProject(stored: string): string {
  return plainName(stored);
}

/**
 * The stored name a document named `docName` gets as a member of project `projectId` in `mode`,
 * before clashes are looked at: for `create`, its own name, which must be a member name of this
 * project (else 400 naming `member`); otherwise `@<project id>: <its plain name>`.
 */
export function memberNameFor(projectId: string, docName: string, mode: AddComponentMode, member: string, what: string): string {
  if (mode === 'create') {
    if (projectOf(docName) !== projectId)
      throw new AppError(
        'VALIDATION_FAILED',
        `${what} is named "${docName}", not as a member of project ${projectId} ("@${projectId}: <name>"): mode create takes in a document made for the project; use mode move or copy to add it`,
        { details: [{ member, message: 'not named as a member of the project (mode create)' }] },
      );
    return docName;
  }
  return memberName(projectId, plainName(docName));
}

/** The names `duplicate` tries, in order: `<name>`, `<name> (2)`, `<name> (3)`, … (at most `count`). */
export function duplicateNames(projectId: string, base: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => memberName(projectId, i === 0 ? base : `${base} (${i + 1})`));
}

/** How many names `duplicate` tries before it gives up with a 409. */
export const DUPLICATE_ATTEMPTS = 100;

/** A component as the audit record of its project's change shows it. */
export interface ComponentAuditView {
  type: ProjectComponentType;
  reference: string;
  name: string;
  storedName: string;
  folder: string;
  /** For a move in or out: the document's name before. */
  renamedFrom?: string;
  /** For a copy: the id of the original. */
  copyOf?: string;
  /** For a removal: what became of the document (`delete`, `move`). */
  document?: string;
}

/** The changes of a project's components for its audit record: each added or removed component under `components.<iid>`. */
export function componentChanges(
  before: ReadonlyMap<number, ComponentAuditView>,
  after: ReadonlyMap<number, ComponentAuditView>,
  folders?: { before: readonly unknown[]; after: readonly unknown[] },
): AuditChange[] {
  const view = (m: ReadonlyMap<number, ComponentAuditView>) => Object.fromEntries([...m].map(([iid, v]) => [String(iid), v]));
  return auditChanges(
    { components: view(before), ...(folders !== undefined ? { folders: folders.before } : {}) },
    { components: view(after), ...(folders !== undefined ? { folders: folders.after } : {}) },
  );
}

/** The audit view of a stored component. */
export function auditView(c: StoredComponent, extra: Partial<ComponentAuditView> = {}): ComponentAuditView {
  return { type: c.type, reference: c.reference, name: c.name, storedName: c.storedName, folder: c.folder ?? '/', ...extra };
}

/** Why a component of a request was refused: the error again naming the component, with its code, status and details. */
export function refusedComponent(err: AppError, label: string, verb: string): AppError {
  return new AppError(err.code, `Component ${label} was refused: ${err.message}. ${verb}`, {
    status: err.status,
    cause: err,
    ...(err.details !== undefined ? { details: err.details } : {}),
  });
}

/** The code of a document of each component type that does not exist. */
export const NOT_FOUND_CODES = {
  workflow: 'WORKFLOW_NOT_FOUND',
  transformation: 'TRANSFORMATION_NOT_FOUND',
  template: 'TEMPLATE_NOT_FOUND',
  mopCommandTemplate: 'TEMPLATE_NOT_FOUND',
  jsonForm: 'FORM_NOT_FOUND',
} as const satisfies Record<ProjectComponentType, string>;

/** The code of a name taken, for each component type. */
export const EXISTS_CODES = {
  workflow: 'WORKFLOW_ALREADY_EXISTS',
  transformation: 'TRANSFORMATION_ALREADY_EXISTS',
  template: 'TEMPLATE_ALREADY_EXISTS',
  mopCommandTemplate: 'TEMPLATE_ALREADY_EXISTS',
  jsonForm: 'FORM_ALREADY_EXISTS',
} as const satisfies Record<ProjectComponentType, string>;

/** The members a copy does not take from its original: its id and the stamps its owning service sets. */
const COPY_LEAVES_OUT: ReadonlySet<string> = new Set([
  '_id',
  'created',
  'createdBy',
  'created_by',
  'lastUpdated',
  'lastUpdatedBy',
  'last_updated',
  'last_updated_by',
]);

/**
 * The document of a copy of `original` named `name`: all but its id and stamps. A form's copy leaves
 * out the `id` another platform gave the form too: it names the original (forms are found by it),
 * and a second form with it would be refused.
 */
export function copyOf(original: Record<string, unknown>, name: string, type?: ProjectComponentType): Record<string, unknown> {
  const leftOut = (key: string): boolean => COPY_LEAVES_OUT.has(key) || (type === 'jsonForm' && key === 'id');
  return { ...Object.fromEntries(Object.entries(original).filter(([key]) => !leftOut(key))), name };
}

/**
 * The stored name a component removed with mode `move` gets: its name in project `projectId` when it
 * is named as the project's member, else (renamed through its own route) the name it has.
 */
export function movedOutName(projectId: string, storedName: string): string {
  return projectOf(storedName) === projectId ? plainName(storedName) : storedName;
}
