import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import { assertAccess } from '../domain/access';
import type { StudioDeps } from './deps';

/**
 * `studio.getWorkflow` (bus only): the stored workflow a job starts from, by name or id (both must
 * match when both are given), as the caller who starts the job may see it.
 */
export function getWorkflow(deps: StudioDeps): Handler<'studio.getWorkflow'> {
  return async (input) => {
    const { name, id } = input.body;
    const doc = id !== undefined ? await deps.workflows.findById(id) : name !== undefined ? await deps.workflows.findByName(name) : null;
    if (doc === null || (name !== undefined && doc.name !== name)) {
      throw new AppError('WORKFLOW_NOT_FOUND', `No workflow with ${[id !== undefined ? `id "${id}"` : '', name !== undefined ? `name "${name}"` : ''].filter(Boolean).join(' and ')}`);
    }
    assertAccess(input.caller, doc, 'workflow');
    return doc;
  };
}
