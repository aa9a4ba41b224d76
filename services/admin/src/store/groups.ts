import { randomUUID } from 'node:crypto';
import { AppError, hasCode } from '@nap/contracts';
import type { ListQueryOptions, Role } from '@nap/contracts';
import { MAX_LIST_LIMIT, toListQuery } from '@nap/store';
import type { Collection, ListFields, Store } from '@nap/store';

/** A group as stored: the roles its accounts hold. */
export interface GroupRecord {
  _id: string;
  [key: string]: unknown;
  name: string;
  description: string;
  roles: Role[];
  /** The sign-in method (provider name) a group comes from; absent for groups made through the routes. */
  provenance?: string;
  /** The group's name in that method (its cn, a claim value): what a sign-in finds it by, whatever its NAP name. */
  externalName?: string;
  /** True when the group holds the admin role because it is one of its method's admin groups (taken back when it no longer is). */
  adminFromConfig?: boolean;
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
}

/** What the group list filters and sorts on. */
const GROUP_LIST_FIELDS: ListFields = {
  filter: ['name', '_id', 'description'],
  sort: ['name', '_id', 'created'],
  defaultSort: { name: 1 },
  defaultLimit: MAX_LIST_LIMIT,
};

/** The `groups` collection (unique `name`). */
export class GroupRepository {
  private readonly groups: Collection<GroupRecord>;

  constructor(store: Store) {
    this.groups = store.collection<GroupRecord>('groups');
  }

  /** Stores a new group under a fresh id; 409 `GROUP_ALREADY_EXISTS` when the name is taken. */
  async insert(record: Omit<GroupRecord, '_id'>): Promise<GroupRecord> {
    try {
      return await this.groups.insertOne({ _id: randomUUID(), ...record });
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY'))
        throw new AppError('GROUP_ALREADY_EXISTS', `A group named "${record.name}" already exists`, { cause: err });
      throw err;
    }
  }

  /** The group; 404 `GROUP_NOT_FOUND`. */
  async get(id: string): Promise<GroupRecord> {
    const group = await this.groups.findOne({ _id: id });
    if (!group) throw groupNotFound(id);
    return group;
  }

  findByName(name: string): Promise<GroupRecord | null> {
    return this.groups.findOne({ name });
  }

  /** A group whose name is `name` in another letter case ("NetOps" for "netops"); null when none. */
  findByNameInAnyCase(name: string): Promise<GroupRecord | null> {
    return this.groups.findOne({ name: { $regex: `^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, $options: 'i' } });
  }

  /** The groups a sign-in method brought in, by the names the method gives them. */
  byExternalNames(provenance: string, externalNames: string[]): Promise<GroupRecord[]> {
    return this.groups.find({ provenance, externalName: { $in: externalNames } });
  }

  /** A page of groups by the shared list options (every group up to 500 when no limit is given). */
  async list(options: ListQueryOptions = {}): Promise<{ results: GroupRecord[]; total: number }> {
    const query = toListQuery(options, GROUP_LIST_FIELDS);
    const [results, total] = await Promise.all([
      this.groups.find(query.filter, { sort: query.sort, skip: query.skip, limit: query.limit }),
      this.groups.countDocuments(query.filter),
    ]);
    return { results, total };
  }

  /** The groups of these ids that exist. */
  byIds(ids: string[]): Promise<GroupRecord[]> {
    return this.groups.find({ _id: { $in: ids } });
  }

  /** Which of these ids name a group. */
  async existing(ids: string[]): Promise<Set<string>> {
    return new Set((await this.groups.find({ _id: { $in: ids } }, { projection: { _id: 1 } })).map((g) => g._id));
  }

  all(): Promise<GroupRecord[]> {
    return this.groups.find({});
  }

  /** Ids of the groups that give `role`, leaving out `except`. */
  async withRole(role: Role, except?: string): Promise<string[]> {
    return (await this.groups.find({ roles: role, ...(except !== undefined ? { _id: { $ne: except } } : {}) })).map((g) => g._id);
  }

  /** Sets members of the group; the group as it is after; 404 `GROUP_NOT_FOUND`. */
  async update(id: string, set: Record<string, unknown>): Promise<GroupRecord> {
    const updated = await this.groups.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: 'after' });
    if (!updated) throw groupNotFound(id);
    return updated;
  }

  async delete(id: string): Promise<void> {
    await this.groups.deleteOne({ _id: id });
  }
}

function groupNotFound(id: string): AppError {
  return new AppError('GROUP_NOT_FOUND', `No group with id "${id}"`);
}
