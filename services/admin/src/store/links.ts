import { AppError, hasCode } from '@nap/contracts';
import type { Link, ListQueryOptions } from '@nap/contracts';
import { toListQuery } from '@nap/store';
import type { Collection, Store } from '@nap/store';

/** An external link as stored. */
export type LinkRecord = Link & { _id: string };

/** The `external_links` collection (unique `name`, declared in `collections.ts`). */
export class LinkRepository {
  private readonly links: Collection<LinkRecord>;

  constructor(store: Store) {
    this.links = store.collection<LinkRecord>('external_links');
  }

  /** Stores a new link; 409 `LINK_ALREADY_EXISTS` when its name is taken. */
  async insert(link: Omit<LinkRecord, '_id'>): Promise<LinkRecord> {
    try {
      return await this.links.insertOne(link);
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY')) throw linkExists(link.name, err);
      throw err;
    }
  }

  /** The link; 404 `LINK_NOT_FOUND`. */
  async get(id: string): Promise<LinkRecord> {
    const found = await this.links.findOne({ _id: id });
    if (found === null) throw linkNotFound(id);
    return found;
  }

  async list(query: ListQueryOptions): Promise<{ results: LinkRecord[]; total: number }> {
    const q = toListQuery(query, { filter: ['name', 'address', 'description'], sort: ['name', 'address'], defaultSort: { name: 1 } });
    const [results, total] = await Promise.all([
      this.links.find(q.filter, { sort: q.sort, skip: q.skip, limit: q.limit }),
      this.links.countDocuments(q.filter),
    ]);
    return { results, total };
  }

  /** Sets members of the link; the link after; 404 `LINK_NOT_FOUND`, 409 `LINK_ALREADY_EXISTS` when a new name is taken. */
  async update(id: string, set: Record<string, unknown>): Promise<LinkRecord> {
    let updated: LinkRecord | null;
    try {
      updated = await this.links.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: 'after' });
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY') && typeof set.name === 'string') throw linkExists(set.name, err);
      throw err;
    }
    if (updated === null) throw linkNotFound(id);
    return updated;
  }

  /** Deletes the link and answers it; 404 `LINK_NOT_FOUND` when there is none. */
  async delete(id: string): Promise<LinkRecord> {
    const gone = await this.links.findOneAndDelete({ _id: id });
    if (gone === null) throw linkNotFound(id);
    return gone;
  }
}

function linkNotFound(id: string): AppError {
  return new AppError('LINK_NOT_FOUND', `No external link with id "${id}"`);
}

function linkExists(name: string, cause: unknown): AppError {
  return new AppError('LINK_ALREADY_EXISTS', `An external link named "${name}" exists; names are unique`, { cause });
}
