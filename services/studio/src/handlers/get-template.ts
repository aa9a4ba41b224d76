import type { Handler } from '@nap/bus';
import type { StudioContext } from '../context';

/** `GET /automation-studio/templates/:id`: one template. */
export function getTemplate(svc: StudioContext): Handler<'studio.getTemplate'> {
  return async (input) => svc.templates.get(input.params.id);
}
