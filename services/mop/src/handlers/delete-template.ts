import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';

/** `POST /mop/deleteTemplate/:id`. */
export function deleteTemplate(svc: MopContext): Handler<'mop.deleteTemplate'> {
  return async (input, ctx) => {
    const gone = await svc.templates.delete(input.params.id);
    ctx.audit({ target: { kind: svc.templates.auditKind, id: input.params.id, name: gone.name } });
    return { status: 'success', message: `Command template "${gone.name}" deleted` };
  };
}
