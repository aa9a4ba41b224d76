import type { Handler } from '@nap/bus';
import { auditChanges } from '@nap/contracts';
import type { StudioContext } from '../context';
import { assertStillThere, findTaggable, tagNamesOf } from '../steps/tags';
import { tagNotFound } from '../store/tags';

/**
 * `POST /tags/handleReferences`: the document `data.ref_id` gets exactly the tags `data.tag_ids`,
 * in one write (references of tags it keeps keep their ids). Answers true, as the original platform.
 */
export function handleTagReferences(svc: StudioContext): Handler<'studio.handleTagReferences'> {
  return async (input, ctx) => {
    const { tag_ids: tagIds, ref_id: refId, type } = input.body.data;
    const doc = await findTaggable(svc, type, refId, input.caller);
    const wanted = [...new Set(tagIds)];
    const live = await svc.tags.liveByIds(wanted);
    const missing = wanted.find((id) => !live.has(id));
    if (missing !== undefined) throw tagNotFound(missing);
    const before = (await svc.tags.recordOf(type, refId))?.tags ?? [];
    const kept = new Map(before.map((t) => [t.tag_id, t._id]));
    const entries = wanted.map((id) => ({ _id: kept.get(id) ?? svc.newId(), tag_id: id }));
    await svc.tags.set(type, refId, entries);
    await assertStillThere(svc, type, refId);
    const changes = auditChanges({ tags: await tagNamesOf(svc, before) }, { tags: await tagNamesOf(svc, entries) });
    ctx.audit({ target: { kind: type, id: refId, name: doc.name }, changes });
    return true;
  };
}
