import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';

/** `GET /automation-studio/templates/:id`: one template. */
export function getTemplate(deps: StudioDeps): Handler<'studio.getTemplate'> {
  return async (input) => deps.templates.get(input.params.id);
}
