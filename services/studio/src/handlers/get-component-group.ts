import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';

/** `GET /automation-studio/component-groups/:id`: one component group. */
export function getComponentGroup(deps: StudioDeps): Handler<'studio.getComponentGroup'> {
  return async (input) => deps.componentGroups.get(input.params.id);
}
