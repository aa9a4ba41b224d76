import { jsonTextReply, type Handler } from '@nap/bus';
import { AppError, candidateNames } from '@nap/contracts';
import type { StoredWorkflowDocument } from '@nap/contracts';
import { assertAccess } from '../domain/access';
import type { StudioContext } from '../context';

/**
 * `studio.getWorkflow` (bus only): the stored workflow a job starts from, by name or id (both must
 * match when both are given), as the caller who starts the job may see it. `from` is the workflow
 * whose childJob task names it: a plain name from a project member means that project's member of
 * the name first, then the workflow of that plain name ({@link candidateNames}).
 */
export function getWorkflow(svc: StudioContext): Handler<'studio.getWorkflow'> {
  return async (input) => {
    const { name, id, from } = input.body;
    const names = name === undefined ? [] : candidateNames(name, from);
    // answered as the text the store keeps: only what is checked here is decoded
    const members = ['_id', 'name', 'groups'] as const;
    let found = id !== undefined ? await svc.workflows.findJsonById(id, members) : null;
    if (id === undefined) {
      for (const candidate of names) {
        found = await svc.workflows.findJsonByName(candidate, members);
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
