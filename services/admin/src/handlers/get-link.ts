import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `GET /external-links/:linkId`: get a link. */
export function getLink(svc: AdminContext): Handler<'admin.getLink'> {
  return async (input) => svc.links.get(input.params.linkId);
}
