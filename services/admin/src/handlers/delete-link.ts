import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `DELETE /external-links/:linkId`: delete a link. */
export function deleteLink(svc: AdminContext): Handler<'admin.deleteLink'> {
  return async (input, ctx) => {
    const link = await svc.links.delete(input.params.linkId);
    ctx.audit({ target: { kind: 'link', id: input.params.linkId, name: link.name } });
    return { status: 'success', message: `External link "${input.params.linkId}" deleted` };
  };
}
