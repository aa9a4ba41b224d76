import type { Handler } from '@nap/bus';
import { auditChanges } from '@nap/contracts';
import type { StudioContext } from '../context';

/**
 * `POST /tags/delete`: the tag `_id` (or, when no tag has that id, the tag of that name) and its
 * references. Hidden first, then taken off every document, then removed: a crash in between is
 * finished by the next start, and nothing answers the tag meanwhile.
 */
export function deleteTag(svc: StudioContext): Handler<'studio.deleteTag'> {
  return async (input, ctx) => {
    const found = await svc.tags.getByIdOrName(input.body._id);
    const tagged = await svc.tags.countTagged(found._id);
    const tag = await svc.tags.markDeleting(found._id, svc.now());
    await svc.tags.finishDelete(tag._id);
    ctx.audit({
      target: { kind: 'tag', id: tag._id, name: tag.name },
      changes: auditChanges({ name: tag.name, description: tag.description, taggedDocuments: tagged }, {}),
    });
    return tag;
  };
}
