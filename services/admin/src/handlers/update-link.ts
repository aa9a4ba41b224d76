import type { Handler } from '@nap/bus';
import { linkChanges } from '../domain/links';
import type { AdminContext } from '../context';

/** `PATCH /external-links/:linkId`: update a link. */
export function updateLink(svc: AdminContext): Handler<'admin.updateLink'> {
  return async (input, ctx) =>
    svc.links.update(input.params.linkId, linkChanges(input.body, ctx.caller.username, new Date().toISOString()));
}
