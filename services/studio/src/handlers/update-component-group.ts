import type { Handler } from '@nap/bus';
import { replaceCamel } from '../context';
import type { StudioContext } from '../context';
import { COMPONENT_GROUP_KIND } from '../domain/documents';

/** `PUT /automation-studio/component-groups/:id`: replace a component group. */
export function updateComponentGroup(svc: StudioContext): Handler<'studio.updateComponentGroup'> {
  return async (input, ctx) =>
    replaceCamel(svc, svc.componentGroups, COMPONENT_GROUP_KIND, input.params.id, input.body.update, input.caller, 'body.update', ctx);
}
