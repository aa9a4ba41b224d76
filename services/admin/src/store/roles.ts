import { randomBytes } from 'node:crypto';
import { AppError, hasCode } from '@nap/contracts';
import type { Collection, Store } from '@nap/store';
import type { AllowedView, RoleMethod } from '../domain/roles';
import { sortKeyOf } from './sort-keys';

/** A custom role as stored: what it allows. */
export interface RoleRecord {
  _id: string;
  [key: string]: unknown;
  name: string;
  description: string;
  provenance: string;
  allowedMethods: RoleMethod[];
  allowedViews: AllowedView[];
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
}

/** A role in the store: the record and its name in lower case (`nameKey`, unique: names differ in more than letter case). */
type StoredRole = RoleRecord & { nameKey: string };

const WITHOUT_KEY = { projection: { nameKey: 0 } } as const;

/** The `roles` collection: custom roles (the built-in ones are the contracts'), unique by name letter case aside. */
export class RoleRepository {
  private readonly roles: Collection<StoredRole>;

  constructor(store: Store) {
    this.roles = store.collection<StoredRole>('roles');
  }

  /** Stores a new role under a fresh id (24 hex digits, as the platform's ids are); 409 `ROLE_ALREADY_EXISTS` when the name is taken. */
  async insert(record: Omit<RoleRecord, '_id'>): Promise<RoleRecord> {
    const { nameKey: _key, ...stored } = await this.write(() =>
      this.roles.insertOne({ ...record, _id: randomBytes(12).toString('hex'), nameKey: sortKeyOf(String(record.name)) }),
    );
    return stored;
  }

  /** The role; 404 `ROLE_NOT_FOUND`. */
  async get(id: string): Promise<RoleRecord> {
    const role = await this.roles.findOne({ _id: id }, WITHOUT_KEY);
    if (!role) throw roleNotFound(id);
    return role;
  }

  /** A role whose name is `name` in any letter case; null when none. */
  findByNameInAnyCase(name: string): Promise<RoleRecord | null> {
    return this.roles.findOne({ nameKey: sortKeyOf(name) }, WITHOUT_KEY);
  }

  /** Every custom role, by name letter case aside. */
  all(): Promise<RoleRecord[]> {
    return this.roles.find({}, { sort: { nameKey: 1, _id: 1 }, ...WITHOUT_KEY });
  }

  /** The roles of these ids that exist. */
  byIds(ids: readonly string[]): Promise<RoleRecord[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.roles.find({ _id: { $in: [...ids] } }, WITHOUT_KEY);
  }

  /** Sets members of the role; the role as it is after; 404 `ROLE_NOT_FOUND`, 409 `ROLE_ALREADY_EXISTS` for a name taken. */
  async update(id: string, set: Partial<Omit<RoleRecord, '_id'>>): Promise<RoleRecord> {
    const keyed = typeof set.name === 'string' ? { ...set, nameKey: sortKeyOf(set.name) } : set;
    const updated = await this.write(() =>
      this.roles.findOneAndUpdate({ _id: id }, { $set: keyed }, { returnDocument: 'after', ...WITHOUT_KEY }),
    );
    if (!updated) throw roleNotFound(id);
    return updated;
  }

  async delete(id: string): Promise<void> {
    await this.roles.deleteOne({ _id: id });
  }

  private async write<T>(action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY'))
        throw new AppError('ROLE_ALREADY_EXISTS', 'A role of that name already exists', { cause: err });
      throw err;
    }
  }
}

export function roleNotFound(id: string): AppError {
  return new AppError('ROLE_NOT_FOUND', `No role with id "${id}"`);
}
