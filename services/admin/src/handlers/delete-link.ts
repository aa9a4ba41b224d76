import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `DELETE /external-links/:linkId`: delete a link. */
export function deleteLink(svc: AdminContext): Handler<'admin.deleteLink'> {
  return async (input) => {
    await svc.links.delete(input.params.linkId);
    return { status: 'success', message: `External link "${input.params.linkId}" deleted` };
  };
}
