import type { Handler } from '@nap/bus';
import type { Acknowledgement } from '@nap/contracts';
import type { StudioDeps } from './deps';

/** `DELETE /automation-studio/templates/:id`: delete a template. */
export function deleteTemplate(deps: StudioDeps): Handler<unknown, { id: string }> {
  return async (input): Promise<Acknowledgement> => {
    const doc = await deps.templates.get(input.params.id);
    await deps.templates.delete(doc._id);
    return { status: 'success', message: `Template "${doc.name}" deleted` };
  };
}
