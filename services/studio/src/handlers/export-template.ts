import type { Handler } from '@nap/bus';
import type { StudioContext } from '../context';

/** `GET /automation-studio/templates/:id/export`: the stored template, as importTemplates takes it back. */
export function exportTemplate(svc: StudioContext): Handler<'studio.exportTemplate'> {
  return async (input) => svc.templates.get(input.params.id);
}
