import type { Handler } from '@nap/bus';
import type { StudioContext } from '../context';

/** `DELETE /automation-studio/component-groups/:id`: delete a component group. */
export function deleteComponentGroup(svc: StudioContext): Handler<'studio.deleteComponentGroup'> {
  return async (input, ctx) => {
    const doc = await svc.componentGroups.get(input.params.id);
    await svc.componentGroups.delete(doc._id);
    ctx.audit({ target: { kind: 'component-group', id: doc._id, name: doc.name } });
    return { status: 'success', message: `Component group "${doc.name}" deleted` };
  };
}
