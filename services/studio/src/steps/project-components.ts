import type { AuditSink } from '@nap/bus';
import { AppError, isAppError, plainName } from '@nap/contracts';
import type { AddComponentMode, AddedComponent, Caller, ProjectComponentType } from '@nap/contracts';
import { changedAfter } from '@nap/util';
import { componentKinds, undoComponentSteps } from '../context';
import type { StudioContext } from '../context';
import { canAccess } from '../domain/access';
import {
  DUPLICATE_ATTEMPTS,
  EXISTS_CODES,
  NOT_FOUND_CODES,
  auditView,
  componentChanges,
  copyOf,
  duplicateNames,
  folderPath,
  foldersWith,
  memberNameFor,
  nextIid,
  refusedComponent,
  withoutJournals,
} from '../domain/project-components';
import type { ComponentAuditView } from '../domain/project-components';
import { goneNote, kindOf, visibleToCaller } from '../domain/projects';
import type { ChangingJournal, ProjectRecord, StoredComponent, UndoStep } from '../domain/projects';

/**
 * Adding existing documents to a project, shared by `POST …/projects/:id/components/add` and
 * `POST …/projects` (its components): check everything, then write each document and the journal,
 * undoing on a refusal (domain/project-components.ts says how).
 */
/** A component checked and ready to be written. */
export interface PlannedAddition {
  iid: number;
  type: ProjectComponentType;
  /** The id of the document added (of the original, for a copy). */
  reference: string;
  folder: string;
  mode: AddComponentMode;
  /** The document's name now. */
  from: string;
  /** Its name as a member: `@<project id>: <name>`. */
  storedName: string;
  /** For a copy: the document to store. */
  copy?: Record<string, unknown>;
  /** Where it stands in the request (`body.components[2]`). */
  member: string;
  /** How refusals name it: `2 (workflow "x")`. */
  label: string;
}

/**
 * Checks every component of a request to add `components` to project `record` in `mode`, writing
 * nothing: each document exists and is the caller's to see (and change), its member name is free,
 * a copy is valid. Throws the first refusal, naming the component (one the caller may not see by
 * its iid and type alone).
 */
export async function planAdd(
  svc: StudioContext,
  record: ProjectRecord,
  components: readonly AddedComponent[],
  mode: AddComponentMode,
  caller: Caller,
  base: string,
): Promise<PlannedAddition[]> {
  const kinds = componentKinds(svc);
  const taken = new Set(record.components.map((c) => c.iid));
  const inProject = new Map(record.components.map((c) => [`${c.type}\u0000${c.reference}`, c.iid]));
  const names = new Set<string>();
  const planned: PlannedAddition[] = [];
  for (const [index, c] of components.entries()) {
    const member = `${base}[${index}]`;
    if (c.iid !== undefined && taken.has(c.iid))
      throw new AppError(
        'CONFLICT',
        `${member}.iid ${c.iid} is taken in project "${record.name}"; leave iid out to get the next free one`,
        {
          details: [{ member: `${member}.iid`, message: 'taken in the project' }],
        },
      );
    const iid = c.iid ?? nextIid(taken);
    taken.add(iid);
    const hidden = `${iid} (${c.type})`;
    const folder = folderPath(c.folder, `${member}.folder`);
    const kind = kindOf(kinds, c.type);
    const doc = await kind.find(c.reference, caller);
    if (doc === null)
      throw new AppError(NOT_FOUND_CODES[c.type], `Component ${hidden} was refused: no ${c.type} "${c.reference}". Nothing was added.`, {
        details: [{ member: `${member}.reference`, message: 'no such document' }],
      });
    const groups = Array.isArray(doc.groups) ? (doc.groups as string[]) : undefined;
    if (!canAccess(caller, groups))
      throw new AppError(
        'GROUP_ACCESS_DENIED',
        `Component ${hidden} was refused: it is shared with groups you are not a member of. Nothing was added.`,
        { details: { count: 1, components: [{ iid, type: c.type }] } },
      );
    const label = `${iid} (${c.type} "${doc.name}")`;
    const refuse = (code: ConstructorParameters<typeof AppError>[0], why: string, at = member): never => {
      throw new AppError(code, `Component ${label} was refused: ${why}. Nothing was added.`, {
        details: [{ member: at, message: why }],
      });
    };
    if (mode === 'move' || mode === 'create') {
      const already = inProject.get(`${c.type}\u0000${doc._id}`);
      if (already !== undefined) refuse('CONFLICT', `it is component ${already} of this project already`);
      const [other] = (await svc.projects.scan({ components: { $elemMatch: { type: c.type, reference: doc._id } } }, ['name'])).filter(
        (p) => p._id !== record._id,
      );
      if (other !== undefined)
        refuse('CONFLICT', `it is a component of project "${other.name}" (${other._id}); remove it from that project first, or copy it`);
    }
    let storedName: string;
    try {
      storedName =
        mode === 'duplicate'
          ? await firstFreeName(duplicateNames(record._id, plainName(doc.name), DUPLICATE_ATTEMPTS), c.type, names, kind.nameTaken, caller)
          : memberNameFor(record._id, doc.name, mode, `${member}.reference`, `The ${c.type} "${doc.name}"`);
    } catch (err) {
      if (!isAppError(err)) throw err;
      throw refusedComponent(err, label, 'Nothing was added.');
    }
    const renamed = storedName !== doc.name;
    if (mode !== 'create' && (mode !== 'move' || renamed)) {
      if (names.has(`${c.type}\u0000${storedName}`))
        refuse('VALIDATION_FAILED', `another component of the request is named "${storedName}" too`);
      if (mode !== 'duplicate' && (await kind.nameTaken(storedName, caller)))
        refuse(EXISTS_CODES[c.type], `a ${c.type} named "${storedName}" already exists; names are unique`);
    }
    names.add(`${c.type}\u0000${storedName}`);
    const copy = mode === 'copy' || mode === 'duplicate' ? copyOf(doc, storedName, c.type) : undefined;
    if (copy !== undefined) {
      try {
        await kind.check(copy, member, caller);
      } catch (err) {
        if (!isAppError(err)) throw err;
        throw refusedComponent(err, label, 'Nothing was added.');
      }
    }
    planned.push({
      iid,
      type: c.type,
      reference: doc._id,
      folder,
      mode,
      from: doc.name,
      storedName,
      member,
      label,
      ...(copy ? { copy } : {}),
    });
  }
  return planned;
}

/** The first of `candidates` no document of `type` has (nor another component of the request); 409 when all are taken. */
async function firstFreeName(
  candidates: readonly string[],
  type: ProjectComponentType,
  planned: ReadonlySet<string>,
  taken: (name: string, caller: Caller) => Promise<boolean>,
  caller: Caller,
): Promise<string> {
  for (const name of candidates) if (!planned.has(`${type}\u0000${name}`) && !(await taken(name, caller))) return name;
  throw new AppError(
    EXISTS_CODES[type],
    `the names "${candidates[0] ?? ''}" to "${candidates[candidates.length - 1] ?? ''}" are all taken`,
  );
}

/**
 * The record written with `journal` over `record` as read: the project is this request's until the
 * journal goes. 409 `CONFLICT` when the record changed since it was read.
 */
export async function journaled(svc: StudioContext, record: ProjectRecord, journal: ChangingJournal): Promise<ProjectRecord> {
  const next: ProjectRecord = { ...record, changing: journal, lastUpdated: changedAfter(record.lastUpdated, Date.parse(svc.now())) };
  const stored = await svc.projects.replaceUnchanged(next, record);
  if (stored === null) throw new AppError('CONFLICT', `Project "${record.name}" changed while components were being added; try again`);
  return stored;
}

/**
 * Writes the `planned` components into project `locked` (its record holding this request's
 * journal): each document, then the journal; at the end the record's components and folders. A
 * refusal undoes what was written (and deletes a project being created) and is thrown again.
 */
export async function addPlanned(
  svc: StudioContext,
  locked: ProjectRecord,
  planned: readonly PlannedAddition[],
  caller: Caller,
  audit: AuditSink,
): Promise<ProjectRecord> {
  const kinds = componentKinds(svc);
  const journal = locked.changing ?? { startedAt: Date.now(), undo: [] };
  const steps: UndoStep[] = [];
  const added: StoredComponent[] = [];
  const views = new Map<number, ComponentAuditView>();
  let current = locked;
  let written = journal.undo.length;
  try {
    for (const p of planned) {
      const kind = kindOf(kinds, p.type);
      let reference = p.reference;
      try {
        if (p.copy !== undefined) {
          reference = await kind.create(p.copy, p.member, caller);
          steps.push({ type: p.type, reference, storedName: p.storedName });
        } else if (p.storedName !== p.from) {
          await kind.rename(p.reference, p.from, p.storedName, caller);
          steps.push({ type: p.type, reference, storedName: p.storedName, renameTo: p.from });
        }
      } catch (err) {
        if (!isAppError(err)) throw err;
        throw refusedComponent(err, p.label, 'Nothing was added.');
      }
      if (steps.length > written) {
        current = await journaled(svc, current, { ...journal, undo: [...steps] });
        written = steps.length;
      }
      const component: StoredComponent = {
        iid: p.iid,
        type: p.type,
        reference,
        folder: p.folder,
        name: plainName(p.storedName),
        storedName: p.storedName,
      };
      added.push(component);
      views.set(
        p.iid,
        auditView(component, {
          ...(p.copy !== undefined ? { copyOf: p.reference } : {}),
          ...(p.copy === undefined && p.storedName !== p.from ? { renamedFrom: p.from } : {}),
        }),
      );
    }
    const { changing: _done, ...rest } = current;
    const finished: ProjectRecord = {
      ...rest,
      components: [...current.components, ...added],
      folders: added.reduce<unknown[]>((tree, c) => foldersWith(tree, c.folder ?? '/', c.iid), current.folders),
      lastUpdated: changedAfter(current.lastUpdated, Date.parse(svc.now())),
      lastUpdatedBy: caller.username,
    };
    const stored = await svc.projects.replaceUnchanged(finished, current);
    if (stored === null) throw new AppError('CONFLICT', `Project "${current.name}" changed while components were being added; try again`);
    audit.audit({
      target: { kind: 'project', id: stored._id, name: stored.name },
      changes: componentChanges(new Map(), views, { before: locked.folders, after: stored.folders }),
    });
    return stored;
  } catch (err) {
    await undoComponentSteps(svc, locked._id, steps, caller);
    await release(svc, current, journal.creating === true);
    throw err;
  }
}

/** The project without this request's journal again (deleted, when it was being created); a failure logged. */
async function release(svc: StudioContext, current: ProjectRecord, creating: boolean): Promise<void> {
  try {
    if (creating) await svc.projects.delete(current._id);
    else {
      const { changing: _done, ...rest } = current;
      await svc.projects.replace(rest);
    }
  } catch (err) {
    svc.log
      .child({ component: 'projects' })
      .error({ err, projectId: current._id }, 'A project could not be released after its components failed to be added');
  }
}

/** The answer of a change of project components: the project as `GET …/projects/:id` answers it to `caller`. */
export async function answer(svc: StudioContext, stored: ProjectRecord, caller: Caller, message: string) {
  const whole = withoutJournals(stored);
  const [seen] = await visibleToCaller(componentKinds(svc), [whole], caller);
  const { project, left, gone } = seen ?? { project: whole, left: 0, gone: [] };
  return { message, data: project, metadata: { ...(left > 0 ? { componentsLeftOut: left } : {}), ...goneNote(gone, caller) } };
}
