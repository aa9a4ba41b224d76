import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';

/** `GET /automation-studio/templates/:id/export`: the stored template, as importTemplates takes it back. */
export function exportTemplate(deps: StudioDeps): Handler<'studio.exportTemplate'> {
  return async (input) => deps.templates.get(input.params.id);
}
