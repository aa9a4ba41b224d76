import type { Handler } from '@nap/bus';
import type { NamedDoc } from '../store/documents';
import type { StudioDeps } from './deps';

/** `GET /automation-studio/templates/:id/export`: the stored template, as importTemplates takes it back. */
export function exportTemplate(deps: StudioDeps): Handler<unknown, { id: string }> {
  return async (input): Promise<NamedDoc> => deps.templates.get(input.params.id);
}
