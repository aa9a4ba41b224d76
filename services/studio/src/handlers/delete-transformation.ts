import type { Handler } from '@nap/bus';
import type { StudioContext } from '../context';

/** `DELETE /transformations/:id`: remove a transformation. */
export function deleteTransformation(svc: StudioContext): Handler<'studio.deleteTransformation'> {
  return async (input, ctx) => {
    const doc = await svc.transformations.delete(input.params.id);
    ctx.audit({ target: { kind: 'transformation', id: input.params.id, name: doc.name } });
    svc.jst.forget(input.params.id);
    return { status: 'success', message: `Transformation "${input.params.id}" deleted` };
  };
}
