import type { Handler } from '@nap/bus';
import type { NamedDoc } from '../store/documents';
import type { StudioDeps } from './deps';
import { COMPONENT_GROUP_KIND, replaceCamel } from './document-save';

/** `PUT /automation-studio/component-groups/:id`: replace a component group. */
export function updateComponentGroup(deps: StudioDeps): Handler<{ update: unknown }, { id: string }> {
  return async (input): Promise<NamedDoc> => replaceCamel(deps, COMPONENT_GROUP_KIND, input.params.id, input.body.update, input.caller, 'body.update');
}
