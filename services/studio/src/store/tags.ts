import { AppError, isAppError } from '@nap/contracts';
import type { Tag, TagReferenceType } from '@nap/contracts';
import type { Collection, Store } from '@nap/store';

/** A stored tag: the answered one, and `deleting` (when its deletion began) while a delete removes its references. */
export type StoredTag = Tag & { deleting?: string };

/** One tag on a document, as the document's reference record keeps it: the reference's own id and the tag's. */
export interface TagEntry {
  _id: string;
  tag_id: string;
}

/**
 * The tags of one document: one record per document (`_id` `<type>:<ref_id>`), so that setting a
 * document's tags is one write (all or nothing) and deleting the document removes them in one.
 */
export interface TagReferenceRecord {
  _id: string;
  ref_id: string;
  type: TagReferenceType;
  tags: TagEntry[];
  [member: string]: unknown;
}

/** The key of the reference record of document `refId` of kind `type`. */
export function referenceKey(type: TagReferenceType, refId: string): string {
  return `${type}:${refId}`;
}

const LIVE = { deleting: null };

/**
 * Tags and their references (collections `tags` and `tagReferences`). A tag being deleted is
 * hidden from every read from the moment its deletion begins ({@link markDeleting}) until
 * {@link finishDelete} has removed it from every document and then itself; a delete a crash
 * interrupted is finished by the next start. Reads join references with live tags only, so a
 * reference to a tag deleted meanwhile is never answered.
 */
export class TagStore {
  private readonly tags: Collection<StoredTag>;
  private readonly refs: Collection<TagReferenceRecord>;

  constructor(store: Store) {
    this.tags = store.collection<StoredTag>('tags');
    this.refs = store.collection<TagReferenceRecord>('tagReferences');
  }

  /** Every live tag, by name. */
  async list(): Promise<Tag[]> {
    return (await this.tags.find(LIVE, { sort: { name: 1 } })).map(answered);
  }

  /** The live tag with this id; 404 `TAG_NOT_FOUND` naming it otherwise. */
  async get(id: string): Promise<Tag> {
    const tag = await this.tags.findOne({ _id: id, ...LIVE });
    if (tag === null) throw tagNotFound(id);
    return answered(tag);
  }

  /** The live tag with this id or, failing that, this name; 404 naming it otherwise. */
  async getByIdOrName(key: string): Promise<Tag> {
    const tag = (await this.tags.findOne({ _id: key, ...LIVE })) ?? (await this.tags.findOne({ name: { $eq: key }, ...LIVE }));
    if (tag === null) throw tagNotFound(key, 'id or name');
    return answered(tag);
  }

  /** The live tags among `ids`, by id. */
  async liveByIds(ids: readonly string[]): Promise<Map<string, Tag>> {
    if (ids.length === 0) return new Map();
    const found = await this.tags.find({ _id: { $in: [...new Set(ids)] }, ...LIVE });
    return new Map(found.map((t) => [t._id, answered(t)]));
  }

  /** Stores a new tag; 409 `TAG_ALREADY_EXISTS` naming it when its name is taken (by a tag being deleted too, until it is gone). */
  async insert(tag: Tag): Promise<Tag> {
    try {
      return answered(await this.tags.insertOne(tag));
    } catch (err) {
      throw translate(err, tag);
    }
  }

  /** Replaces the live tag `tag._id` when it is still as `previous` was read; 404 when it is gone, 409 when it changed or the name is taken. */
  async replace(tag: Tag, previous: Tag): Promise<Tag> {
    let matched: number;
    try {
      ({ matchedCount: matched } = await this.tags.replaceOne({ _id: tag._id, lastUpdated: previous.lastUpdated, ...LIVE }, tag));
    } catch (err) {
      throw translate(err, tag);
    }
    if (matched > 0) return tag;
    if ((await this.tags.findOne({ _id: tag._id, ...LIVE })) === null) throw tagNotFound(tag._id);
    throw new AppError('CONFLICT', `The tag "${previous.name}" changed while it was being updated; try again`);
  }

  /** Begins deleting the live tag `id` (hidden from now on) and answers it; 404 when there is none. */
  async markDeleting(id: string, at: string): Promise<Tag> {
    const tag = await this.tags.findOneAndUpdate({ _id: id, ...LIVE }, { $set: { deleting: at } });
    if (tag === null) throw tagNotFound(id);
    return answered(tag);
  }

  /** Removes tag `id` from every document, then the tag itself. Safe to repeat: a repeat finds nothing left to do. */
  async finishDelete(id: string): Promise<void> {
    await this.refs.updateMany({ 'tags.tag_id': id }, { $pull: { tags: { tag_id: id } } });
    await this.tags.deleteOne({ _id: id });
  }

  /** Ids of the tags whose deletion began and did not finish. */
  async unfinishedDeletes(): Promise<string[]> {
    return (await this.tags.find({ deleting: { $ne: null } }, { projection: { _id: 1 } })).map((t) => t._id);
  }

  /** How many documents carry tag `id`. */
  async countTagged(id: string): Promise<number> {
    return this.refs.countDocuments({ 'tags.tag_id': id });
  }

  /** The reference records of the documents `refIds` (any kind). */
  async recordsOf(refIds: readonly string[]): Promise<TagReferenceRecord[]> {
    if (refIds.length === 0) return [];
    return this.refs.find({ ref_id: { $in: [...new Set(refIds)] } });
  }

  /** The reference record of document `refId` of kind `type`, or null when it has none. */
  async recordOf(type: TagReferenceType, refId: string): Promise<TagReferenceRecord | null> {
    return this.refs.findOne({ _id: referenceKey(type, refId) });
  }

  /** Puts tag `tagId` on the document, with the reference id `entryId` unless it is there already; answers the document's record. */
  async add(type: TagReferenceType, refId: string, tagId: string, entryId: string): Promise<TagReferenceRecord> {
    const _id = referenceKey(type, refId);
    await this.refs.updateOne({ _id }, { $setOnInsert: { ref_id: refId, type, tags: [] } }, { upsert: true });
    await this.refs.updateOne({ _id, 'tags.tag_id': { $ne: tagId } }, { $push: { tags: { _id: entryId, tag_id: tagId } } });
    const record = await this.refs.findOne({ _id });
    if (record === null) throw new AppError('CONFLICT', `The ${type} "${refId}" was deleted while it was being tagged`);
    return record;
  }

  /** Takes tag `tagId` off the document (a tag deleted while it was being put on one). */
  async remove(type: TagReferenceType, refId: string, tagId: string): Promise<void> {
    await this.refs.updateOne({ _id: referenceKey(type, refId) }, { $pull: { tags: { tag_id: tagId } } });
  }

  /** Gives the document exactly the tags `entries`, in one write. */
  async set(type: TagReferenceType, refId: string, entries: TagEntry[]): Promise<void> {
    const _id = referenceKey(type, refId);
    if (entries.length === 0) await this.refs.deleteOne({ _id });
    else await this.refs.replaceOne({ _id }, { _id, ref_id: refId, type, tags: entries }, { upsert: true });
  }

  /** Forgets every tag of a deleted document. */
  async forget(type: TagReferenceType, refId: string): Promise<void> {
    await this.refs.deleteOne({ _id: referenceKey(type, refId) });
  }

  /** Every reference record of documents of kind `type`: key and document id only. */
  async recordIds(type: TagReferenceType): Promise<Pick<TagReferenceRecord, '_id' | 'ref_id'>[]> {
    return this.refs.find({ type }, { projection: { ref_id: 1 } });
  }

  /** The ids of every tag some document carries. */
  async referencedTagIds(): Promise<string[]> {
    const records = await this.refs.find({}, { projection: { tags: 1 } });
    return [...new Set(records.flatMap((r) => r.tags.map((t) => t.tag_id)))];
  }

  /** Takes the tags `tagIds` (gone) off every document. */
  async pullTags(tagIds: readonly string[]): Promise<void> {
    if (tagIds.length === 0) return;
    await this.refs.updateMany({ 'tags.tag_id': { $in: [...tagIds] } }, { $pull: { tags: { tag_id: { $in: [...tagIds] } } } });
  }

  /** Deletes the reference records with these keys (documents that are gone). */
  async forgetRecords(keys: readonly string[]): Promise<void> {
    if (keys.length > 0) await this.refs.deleteMany({ _id: { $in: [...keys] } });
  }
}

/** A tag as answered: without the deletion mark. */
function answered(tag: StoredTag): Tag {
  const { deleting: _hidden, ...rest } = tag;
  return rest;
}

/** 404 `TAG_NOT_FOUND` naming the tag asked for. */
export function tagNotFound(key: string, what = 'id'): AppError {
  return new AppError('TAG_NOT_FOUND', `No tag with ${what} "${key}"`);
}

function translate(err: unknown, tag: Tag): unknown {
  if (!isAppError(err) || err.code !== 'STORE_DUPLICATE_KEY') return err;
  const index = typeof err.details === 'object' && err.details !== null && 'index' in err.details ? err.details.index : undefined;
  const byId = index === '_id_' || index === '_id';
  return new AppError(
    'TAG_ALREADY_EXISTS',
    byId ? `A tag with id "${tag._id}" already exists` : `A tag named "${tag.name}" already exists; tag names are unique`,
    { cause: err },
  );
}
