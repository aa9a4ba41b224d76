import { auditChanges } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import { linkChanges } from '../domain/links';
import type { AdminContext } from '../context';

/** `PATCH /external-links/:linkId`: update a link. */
export function updateLink(svc: AdminContext): Handler<'admin.updateLink'> {
  return async (input, ctx) => {
    const { linkId } = input.params;
    const before = await svc.links.get(linkId);
    const updated = await svc.links.update(linkId, linkChanges(input.body, ctx.caller.username, new Date().toISOString()));
    ctx.audit({
      target: { kind: 'link', id: linkId, name: updated.name },
      changes: auditChanges(before, updated, { ignore: ['_meta.updated', '_meta.updatedBy'] }),
    });
    return updated;
  };
}
