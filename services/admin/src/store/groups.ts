import { randomUUID } from 'node:crypto';
import { AppError, hasCode } from '@nap/contracts';
import type { ListQueryOptions, Role } from '@nap/contracts';
import { MAX_LIST_LIMIT, toListQuery } from '@nap/store';
import type { Collection, ListFields, Store } from '@nap/store';
import { backfillSortKeys, caseInsensitiveSort, sortKeyOf } from './sort-keys';

/** A group as stored: the roles its accounts hold. */
export interface GroupRecord {
  _id: string;
  [key: string]: unknown;
  name: string;
  description: string;
  roles: Role[];
  /** The custom roles it gives, by id (Itential's `assignedRoles`); absent when none was ever given. */
  assignedRoles?: { roleId: string }[];
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

/** A group in the store: the record and its name in lower case, which the list sorts by (`nameKey`, indexed). */
type StoredGroup = GroupRecord & { nameKey: string };

/** Leaves the sort key out of what the store read: it is the store's, never part of the record. */
const WITHOUT_KEY = { projection: { nameKey: 0 } } as const;

function recordOf(stored: StoredGroup): GroupRecord {
  const { nameKey: _key, ...record } = stored;
  return record;
}

/** What the group list filters and sorts on (name letter case aside: see {@link caseInsensitiveSort}). */
const GROUP_LIST_FIELDS: ListFields = {
  filter: ['name', '_id', 'description'],
  sort: ['name', '_id', 'created'],
  defaultSort: { name: 1 },
  defaultLimit: MAX_LIST_LIMIT,
};

/** The `groups` collection (unique `name`; listed by `nameKey`, its lower case). */
export class GroupRepository {
  private readonly groups: Collection<StoredGroup>;

  constructor(store: Store) {
    this.groups = store.collection<StoredGroup>('groups');
  }

  /** Stores a new group under a fresh id; 409 `GROUP_ALREADY_EXISTS` when the name is taken. */
  async insert(record: Omit<GroupRecord, '_id'>): Promise<GroupRecord> {
    try {
      return recordOf(await this.groups.insertOne({ _id: randomUUID(), ...record, nameKey: sortKeyOf(String(record.name)) }));
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY'))
        throw new AppError('GROUP_ALREADY_EXISTS', `A group named "${record.name}" already exists`, { cause: err });
      throw err;
    }
  }

  /** The group; 404 `GROUP_NOT_FOUND`. */
  async get(id: string): Promise<GroupRecord> {
    const group = await this.groups.findOne({ _id: id }, WITHOUT_KEY);
    if (!group) throw groupNotFound(id);
    return group;
  }

  findByName(name: string): Promise<GroupRecord | null> {
    return this.groups.findOne({ name }, WITHOUT_KEY);
  }

  /** A group whose name is `name` in another letter case ("NetOps" for "netops"); null when none. */
  findByNameInAnyCase(name: string): Promise<GroupRecord | null> {
    return this.groups.findOne({ name: { $regex: `^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, $options: 'i' } }, WITHOUT_KEY);
  }

  /** The groups a sign-in method brought in, by the names the method gives them. */
  byExternalNames(provenance: string, externalNames: string[]): Promise<GroupRecord[]> {
    return this.groups.find({ provenance, externalName: { $in: externalNames } }, WITHOUT_KEY);
  }

  /**
   * A page of groups by the shared list options (every group up to 500 when no limit is given), by
   * name letter case aside (`admins`, `NetOps`, `readers`), through the `nameKey` index.
   */
  async list(options: ListQueryOptions = {}): Promise<{ results: GroupRecord[]; total: number }> {
    const query = toListQuery(options, GROUP_LIST_FIELDS);
    const [results, total] = await Promise.all([
      this.groups.find(query.filter, {
        sort: caseInsensitiveSort(query.sort, 'name', 'nameKey'),
        skip: query.skip,
        limit: query.limit,
        ...WITHOUT_KEY,
      }),
      this.groups.countDocuments(query.filter),
    ]);
    return { results, total };
  }

  /**
   * Gives the groups stored before `nameKey` existed their key, found through its index (where they
   * have none); how many. Run at start: once every group has one it reads one index key.
   */
  backfillSortKeys(): Promise<number> {
    return backfillSortKeys(this.groups, 'name', 'nameKey');
  }

  /** The groups of these ids that exist. */
  byIds(ids: string[]): Promise<GroupRecord[]> {
    return this.groups.find({ _id: { $in: ids } }, WITHOUT_KEY);
  }

  /** Which of these ids name a group. */
  async existing(ids: string[]): Promise<Set<string>> {
    return new Set((await this.groups.find({ _id: { $in: ids } }, { projection: { _id: 1 } })).map((g) => g._id));
  }

  all(): Promise<GroupRecord[]> {
    return this.groups.find({}, WITHOUT_KEY);
  }

  /** Ids of the groups that give `role`, leaving out `except`. */
  async withRole(role: Role, except?: string): Promise<string[]> {
    return (await this.groups.find({ roles: role, ...(except !== undefined ? { _id: { $ne: except } } : {}) })).map((g) => g._id);
  }

  /** The groups that give the custom role. */
  withCustomRole(roleId: string): Promise<GroupRecord[]> {
    return this.groups.find({ 'assignedRoles.roleId': roleId }, WITHOUT_KEY);
  }

  /** Sets members of the group; the group as it is after; 404 `GROUP_NOT_FOUND`. */
  async update(id: string, set: Record<string, unknown>): Promise<GroupRecord> {
    const keyed = typeof set.name === 'string' ? { ...set, nameKey: sortKeyOf(set.name) } : set;
    const updated = await this.groups.findOneAndUpdate({ _id: id }, { $set: keyed }, { returnDocument: 'after', ...WITHOUT_KEY });
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
