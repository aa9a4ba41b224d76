import { linkChanges } from '../domain/links';
import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `PATCH /external-links/:linkId`: Update a link. */
export function updateLink(svc: AdminContext): Handler<'admin.updateLink'> {
  return async (input, ctx) =>
    svc.links.update(input.params.linkId, linkChanges(input.body, ctx.caller.username, new Date().toISOString()));
}
