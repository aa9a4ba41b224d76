import { jsonTextReply, type Handler } from '@nap/bus';
import { AppError, candidateNames } from '@nap/contracts';
import type { StoredWorkflowDocument } from '@nap/contracts';
import { assertAccess } from '../domain/access';
import type { StudioContext } from '../context';

/** Workflow names whose id this handler remembers at most. */
const REMEMBERED_NAMES = 1_000;

/** What is decoded of the stored workflow beside its text: what is checked here. */
const MEMBERS = ['_id', 'name', 'groups'] as const;

type Found = { json: string; doc: Pick<StoredWorkflowDocument, (typeof MEMBERS)[number]> };

/**
 * `studio.getWorkflow` (bus only): the stored workflow a job starts from, by name or id (both must
 * match when both are given), as the caller who starts the job may see it. `from` is the workflow
 * whose childJob task names it: a plain name from a project member means that project's member of
 * the name first, then the workflow of that plain name ({@link candidateNames}).
 */
export function getWorkflow(svc: StudioContext): Handler<'studio.getWorkflow'> {
  // The id each name was last found under. Every job start asks by name, and a read by id is a point
  // read where one by name plans an index query; the workflow read by the remembered id is answered
  // only while it still has that name (names are unique), else the name is looked up again.
  const idsByName = new Map<string, string>();
  const findByName = async (name: string): Promise<Found | null> => {
    const id = idsByName.get(name);
    if (id !== undefined) {
      const byId = await svc.workflows.findJsonById(id, MEMBERS);
      if (byId !== null && byId.doc.name === name) return byId;
      idsByName.delete(name);
    }
    const found = await svc.workflows.findJsonByName(name, MEMBERS);
    if (found !== null && typeof found.doc._id === 'string') {
      if (idsByName.size >= REMEMBERED_NAMES) idsByName.clear();
      idsByName.set(name, found.doc._id);
    }
    return found;
  };
  return async (input) => {
    const { name, id, from } = input.body;
    const names = name === undefined ? [] : candidateNames(name, from);
    // answered as the text the store keeps: only what is checked here is decoded
    let found = id !== undefined ? await svc.workflows.findJsonById(id, MEMBERS) : null;
    if (id === undefined) {
      for (const candidate of names) {
        found = await findByName(candidate);
        if (found !== null) break;
      }
    }
    const doc = found?.doc;
    if (found === null || doc === undefined || (name !== undefined && !names.includes(doc.name))) {
      const byName = names.map((n) => `"${n}"`).join(' or ');
      throw new AppError(
        'WORKFLOW_NOT_FOUND',
        `No workflow with ${[id !== undefined ? `id "${id}"` : '', name !== undefined ? `name ${byName}` : ''].filter(Boolean).join(' and ')}`,
      );
    }
    assertAccess(input.caller, doc, 'workflow', id ?? name ?? doc._id);
    return jsonTextReply<StoredWorkflowDocument>(found.json);
  };
}
