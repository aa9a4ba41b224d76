import { AppError, hasCode } from '@nap/contracts';
import type { ListQueryOptions } from '@nap/contracts';
import { MAX_LIST_LIMIT, toListQuery } from '@nap/store';
import type { Collection, Store } from '@nap/store';

/** A stored profile: the document with its secrets sealed (repository tokens, TLS passphrases). */
export interface ProfileRecord {
  _id: string;
  [key: string]: unknown;
  id: string;
  description: string;
  profile: Record<string, unknown>;
  created: string;
  lastUpdated: string;
  lastUpdatedBy: string;
}

/** The `profiles` collection, keyed by profile id. */
export class ProfileRepository {
  private readonly profiles: Collection<ProfileRecord>;

  constructor(store: Store) {
    this.profiles = store.collection<ProfileRecord>('profiles');
  }

  /** Stores a new profile; 409 `PROFILE_ALREADY_EXISTS` when its id is taken. */
  async insert(record: ProfileRecord): Promise<ProfileRecord> {
    try {
      return await this.profiles.insertOne(record);
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY')) throw new AppError('PROFILE_ALREADY_EXISTS', `A profile with id "${record.id}" exists`);
      throw err;
    }
  }

  /** The profile; 404 `PROFILE_NOT_FOUND`. */
  async get(id: string): Promise<ProfileRecord> {
    const record = await this.profiles.findOne({ _id: id });
    if (record === null) throw profileNotFound(id);
    return record;
  }

  find(id: string): Promise<ProfileRecord | null> {
    return this.profiles.findOne({ _id: id });
  }

  async list(query: ListQueryOptions): Promise<{ results: ProfileRecord[]; total: number }> {
    const q = toListQuery(query, {
      filter: ['id', 'description'],
      sort: ['id', 'created', 'lastUpdated'],
      defaultSort: { id: 1 },
      // every one when no limit is given (ipctl reads this list in one request)
      defaultLimit: MAX_LIST_LIMIT,
    });
    const [results, total] = await Promise.all([
      this.profiles.find(q.filter, { sort: q.sort, skip: q.skip, limit: q.limit }),
      this.profiles.countDocuments(q.filter),
    ]);
    return { results, total };
  }

  async replace(record: ProfileRecord): Promise<void> {
    await this.profiles.replaceOne({ _id: record._id }, record);
  }

  /** Deletes the profile; the profile as it was (to put back if need be); 404 `PROFILE_NOT_FOUND`. */
  async delete(id: string): Promise<ProfileRecord> {
    const deleted = await this.profiles.findOneAndDelete({ _id: id });
    if (deleted === null) throw profileNotFound(id);
    return deleted;
  }

  /** Stores again a profile `delete` answered. */
  async putBack(record: ProfileRecord): Promise<void> {
    await this.profiles.insertOne(record);
  }
}

export function profileNotFound(id: string): AppError {
  return new AppError('PROFILE_NOT_FOUND', `No profile with id "${id}"`);
}
