import { TAG_REFERENCE_TYPES } from '@nap/contracts';
import type { Caller, Tag, TagReference, TagReferenceType } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import type { StudioContext } from '../context';
import { assertAccess, canAccess } from '../domain/access';
import type { NamedDoc, NamedDocuments } from '../store/documents';
import type { TagEntry } from '../store/tags';

/**
 * Tags on studio documents: finding the document a reference names (it must exist, and the caller
 * must be allowed to see it), reading references as the caller may see them, and the repair a start
 * makes of what a crash left.
 */

/** A document a tag can be on: workflows and forms carry the groups they are shared with. */
type Taggable = NamedDoc & { groups?: readonly string[] };

/** How a kind of tagged document is named in messages (as its own routes name it). */
const LABEL: Record<TagReferenceType, string> = {
  workflow: 'workflow',
  transformation: 'transformation',
  template: 'template',
  jsonForm: 'form',
};

function repoOf(svc: StudioContext, type: TagReferenceType): NamedDocuments<Taggable> {
  const repos = { workflow: svc.workflows, transformation: svc.transformations, template: svc.templates, jsonForm: svc.forms };
  // every one of them is a repository of named documents; only workflows and forms have groups
  return repos[type] as unknown as NamedDocuments<Taggable>;
}

/**
 * The document `refId` of kind `type`: the kind's own 404 naming it when there is none, 403
 * `GROUP_ACCESS_DENIED` when it is shared with groups the caller is in none of.
 */
export async function findTaggable(svc: StudioContext, type: TagReferenceType, refId: string, caller: Caller): Promise<Taggable> {
  const doc = await repoOf(svc, type).get(refId);
  assertAccess(caller, doc, LABEL[type], refId);
  return doc;
}

/**
 * After a reference was written: when the document was deleted meanwhile, its references go too
 * and the request answers the kind's 404, as it would have a moment later.
 */
export async function assertStillThere(svc: StudioContext, type: TagReferenceType, refId: string): Promise<void> {
  const repo = repoOf(svc, type);
  if ((await repo.findById(refId)) !== null) return;
  await svc.tags.forget(type, refId);
  throw repo.notFound(refId);
}

/** The live tags of `entries`, by name: what the document carries. */
export async function tagsOf(svc: StudioContext, entries: readonly TagEntry[]): Promise<Tag[]> {
  const live = await svc.tags.liveByIds(entries.map((e) => e.tag_id));
  return [...live.values()].sort(byName);
}

/** The tag names of `entries`, for the audit trail. */
export async function tagNamesOf(svc: StudioContext, entries: readonly TagEntry[]): Promise<string[]> {
  return (await tagsOf(svc, entries)).map((t) => t.name);
}

/**
 * The tags on the document `refId` (of whichever kind has one of that id), by name. A document the
 * caller may not see is refused (403) as its own routes refuse it; one that is gone has none.
 */
export async function tagsOfDocument(svc: StudioContext, refId: string, caller: Caller): Promise<Tag[]> {
  const entries: TagEntry[] = [];
  for (const record of await svc.tags.recordsOf([refId])) {
    const doc = await repoOf(svc, record.type).findById(refId);
    if (doc === null) continue;
    assertAccess(caller, doc, LABEL[record.type], refId);
    entries.push(...record.tags);
  }
  return tagsOf(svc, entries);
}

/**
 * The references of the documents `refIds` the caller may see, in the order of `refIds`, each
 * document's by tag name; documents that are gone and tags being deleted are left out.
 */
export async function referencesOf(svc: StudioContext, refIds: readonly string[], caller: Caller): Promise<TagReference[]> {
  const records = await svc.tags.recordsOf(refIds);
  const visible = new Set<string>();
  for (const type of TAG_REFERENCE_TYPES) {
    const ids = records.filter((r) => r.type === type).map((r) => r.ref_id);
    if (ids.length === 0) continue;
    for (const doc of await repoOf(svc, type).scan({ _id: { $in: ids } }, ['groups'])) {
      if (canAccess(caller, doc.groups)) visible.add(`${type}:${doc._id}`);
    }
  }
  const shown = records.filter((r) => visible.has(`${r.type}:${r.ref_id}`));
  const live = await svc.tags.liveByIds(shown.flatMap((r) => r.tags.map((t) => t.tag_id)));
  const order = new Map(refIds.map((id, i) => [id, i] as const));
  return shown
    .sort((a, b) => (order.get(a.ref_id) ?? 0) - (order.get(b.ref_id) ?? 0) || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0))
    .flatMap((r) =>
      r.tags
        .filter((t) => live.has(t.tag_id))
        .sort((a, b) => byName(live.get(a.tag_id)!, live.get(b.tag_id)!))
        .map((t) => ({ _id: t._id, tag_id: t.tag_id, ref_id: r.ref_id, type: r.type })),
    );
}

/**
 * What a crash left of tags, put right at start: the references of documents that are gone are
 * removed, and so are references to tags that no longer exist; deletions of tags that began are
 * finished (rolling forward is always safe: the tag is hidden from the moment its deletion began).
 */
export async function repairTags(svc: StudioContext, log: Logger): Promise<void> {
  for (const type of TAG_REFERENCE_TYPES) {
    const records = await svc.tags.recordIds(type);
    if (records.length === 0) continue;
    const present = new Set((await repoOf(svc, type).scan({ _id: { $in: records.map((r) => r.ref_id) } }, ['name'])).map((d) => d._id));
    const gone = records.filter((r) => !present.has(r.ref_id)).map((r) => r._id);
    if (gone.length > 0) {
      log.warn({ type, documents: gone.length }, 'Removing the tag references of documents that no longer exist');
      await svc.tags.forgetRecords(gone);
    }
  }
  const referenced = await svc.tags.referencedTagIds();
  const existing = await svc.tags.liveByIds(referenced);
  const goneTags = referenced.filter((id) => !existing.has(id));
  if (goneTags.length > 0) {
    log.warn({ tags: goneTags.length }, 'Removing references to tags that no longer exist or are being deleted');
    await svc.tags.pullTags(goneTags);
  }
  // last, so that a tag's name is free again only once everything before is done
  for (const id of await svc.tags.unfinishedDeletes()) {
    log.warn({ tagId: id }, 'Finishing the deletion of a tag that did not finish');
    await svc.tags.finishDelete(id);
  }
}

function byName(a: Pick<Tag, 'name'>, b: Pick<Tag, 'name'>): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
