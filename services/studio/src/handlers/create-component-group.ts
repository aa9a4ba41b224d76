import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';
import { COMPONENT_GROUP_KIND, createCamel } from './document-save';

/** `POST /automation-studio/component-groups`: store a component group. */
export function createComponentGroup(deps: StudioDeps): Handler<'studio.createComponentGroup'> {
  return async (input) => {
    const data = await createCamel(deps, COMPONENT_GROUP_KIND, input.body.componentGroup, input.caller, 'body.componentGroup');
    return { status: 'Created', message: `Component group "${data.name}" created`, data };
  };
}
