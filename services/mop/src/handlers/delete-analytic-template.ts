import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';

/** `POST /mop/deleteAnalyticTemplate/:id`. */
export function deleteAnalyticTemplate(svc: MopContext): Handler<'mop.deleteAnalyticTemplate'> {
  return async (input, ctx) => {
    const gone = await svc.analytics.delete(input.params.id);
    ctx.audit({ target: { kind: svc.analytics.auditKind, id: input.params.id, name: gone.name } });
    return { status: 'success', message: `Analytic template "${gone.name}" deleted` };
  };
}
