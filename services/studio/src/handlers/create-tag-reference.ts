import type { Handler } from '@nap/bus';
import { AppError, auditChanges } from '@nap/contracts';
import type { StudioContext } from '../context';
import { assertStillThere, findTaggable, tagNamesOf } from '../steps/tags';
import { tagNotFound } from '../store/tags';

/**
 * `POST /tags/createReference`: puts tag `data.tag_id` on the document `data.ref_id` of kind
 * `data.type` (both must exist) and answers the reference; a tag already on it answers its reference.
 */
export function createTagReference(svc: StudioContext): Handler<'studio.createTagReference'> {
  return async (input, ctx) => {
    const { tag_id: tagId, ref_id: refId, type } = input.body.data;
    await svc.tags.get(tagId);
    const doc = await findTaggable(svc, type, refId, input.caller);
    const before = (await svc.tags.recordOf(type, refId))?.tags ?? [];
    const record = await svc.tags.add(type, refId, tagId, svc.newId());
    await assertStillThere(svc, type, refId);
    if ((await svc.tags.liveByIds([tagId])).size === 0) {
      // deleted while it was being put on: taken off again, as the delete would have
      await svc.tags.remove(type, refId, tagId);
      throw tagNotFound(tagId);
    }
    const entry = record.tags.find((t) => t.tag_id === tagId);
    if (entry === undefined) throw new AppError('CONFLICT', `The tags of the ${type} "${refId}" changed meanwhile; try again`);
    if (!before.some((t) => t.tag_id === tagId)) {
      ctx.audit({
        target: { kind: type, id: refId, name: doc.name },
        changes: auditChanges({ tags: await tagNamesOf(svc, before) }, { tags: await tagNamesOf(svc, record.tags) }),
      });
    }
    return { _id: entry._id, tag_id: tagId, ref_id: refId, type };
  };
}
