import type { Handler } from '@nap/bus';
import { assertAccess } from '../domain/access';
import type { StudioContext } from '../context';

/**
 * `POST /workflow_builder/export`: the stored workflow named by `options.name` or `options._id` (both
 * must match when both are given), as the automations import takes it back.
 */
export function exportWorkflow(svc: StudioContext): Handler<'studio.exportWorkflow'> {
  return async (input) => {
    const { name, _id: id } = input.body.options;
    const asked = id ?? name ?? '';
    const doc = id !== undefined ? await svc.workflows.findById(id) : await svc.workflows.findByName(name ?? '');
    if (doc === null || (name !== undefined && doc.name !== name)) {
      throw svc.workflows.notFound(asked, id !== undefined && name !== undefined ? 'id and name' : id !== undefined ? 'id' : 'name');
    }
    assertAccess(input.caller, doc, 'workflow', asked);
    return doc;
  };
}
