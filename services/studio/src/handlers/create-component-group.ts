import type { Handler } from '@nap/bus';
import { createCamel } from '../context';
import type { StudioContext } from '../context';
import { COMPONENT_GROUP_KIND } from '../domain/documents';

/** `POST /automation-studio/component-groups`: store a component group. */
export function createComponentGroup(svc: StudioContext): Handler<'studio.createComponentGroup'> {
  return async (input) => {
    const data = await createCamel(
      svc,
      svc.componentGroups,
      COMPONENT_GROUP_KIND,
      input.body.componentGroup,
      input.caller,
      'body.componentGroup',
    );
    return { status: 'Created', message: `Component group "${data.name}" created`, data };
  };
}
