import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';
import { COMPONENT_GROUP_KIND, replaceCamel } from './document-save';

/** `PUT /automation-studio/component-groups/:id`: replace a component group. */
export function updateComponentGroup(deps: StudioDeps): Handler<'studio.updateComponentGroup'> {
  return async (input) => replaceCamel(deps, COMPONENT_GROUP_KIND, input.params.id, input.body.update, input.caller, 'body.update');
}
