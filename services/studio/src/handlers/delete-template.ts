import type { Handler } from '@nap/bus';
import type { StudioContext } from '../context';

/** `DELETE /automation-studio/templates/:id`: delete a template. */
export function deleteTemplate(svc: StudioContext): Handler<'studio.deleteTemplate'> {
  return async (input, ctx) => {
    const doc = await svc.templates.get(input.params.id);
    await svc.templates.delete(doc._id);
    ctx.audit({ target: { kind: 'template', id: doc._id, name: doc.name } });
    return { status: 'success', message: `Template "${doc.name}" deleted` };
  };
}
