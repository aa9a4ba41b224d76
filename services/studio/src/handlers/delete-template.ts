import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';

/** `DELETE /automation-studio/templates/:id`: delete a template. */
export function deleteTemplate(deps: StudioDeps): Handler<'studio.deleteTemplate'> {
  return async (input) => {
    const doc = await deps.templates.get(input.params.id);
    await deps.templates.delete(doc._id);
    return { status: 'success', message: `Template "${doc.name}" deleted` };
  };
}
