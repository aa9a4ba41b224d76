import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';

/** `DELETE /automation-studio/component-groups/:id`: delete a component group. */
export function deleteComponentGroup(deps: StudioDeps): Handler<'studio.deleteComponentGroup'> {
  return async (input) => {
    const doc = await deps.componentGroups.get(input.params.id);
    await deps.componentGroups.delete(doc._id);
    return { status: 'success', message: `Component group "${doc.name}" deleted` };
  };
}
