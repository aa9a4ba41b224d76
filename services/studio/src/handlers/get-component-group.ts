import type { Handler } from '@nap/bus';
import type { StudioContext } from '../context';

/** `GET /automation-studio/component-groups/:id`: one component group. */
export function getComponentGroup(svc: StudioContext): Handler<'studio.getComponentGroup'> {
  return async (input) => svc.componentGroups.get(input.params.id);
}
