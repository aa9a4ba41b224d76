import type { Handler } from '@nap/bus';
import type { NamedDoc } from '../store/documents';
import type { StudioDeps } from './deps';

/** `GET /automation-studio/component-groups/:id`: one component group. */
export function getComponentGroup(deps: StudioDeps): Handler<unknown, { id: string }> {
  return async (input): Promise<NamedDoc> => deps.componentGroups.get(input.params.id);
}
