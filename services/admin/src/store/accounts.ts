import { randomUUID } from 'node:crypto';
import { AppError, hasCode } from '@nap/contracts';
import type { ListQueryOptions } from '@nap/contracts';
import { MAX_LIST_LIMIT, toListQuery } from '@nap/store';
import type { Collection, ListFields, Store } from '@nap/store';
import { backfillSortKeys, caseInsensitiveSort, sortKeyOf } from './sort-keys';

/** An account as stored: the password only as its scrypt hash. */
export interface AccountRecord {
  _id: string;
  [key: string]: unknown;
  username: string;
  firstname?: string;
  lastname?: string;
  email?: string;
  groups: string[];
  inactive: boolean;
  /** The scrypt hash of a local account's password; empty for an account of an external sign-in method (no password verifies). */
  passwordHash: string;
  /** The sign-in method (provider name) an account comes from; absent for NAP's own accounts. */
  provenance?: string;
  /** Where that method keeps the person (an LDAP DN), for re-checks. */
  externalId?: string;
  /** ISO time of the last successful sign-in by any method; absent when the account never signed in. Not a change of the account: `lastUpdated` stays. */
  lastLogin?: string;
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
}

/** An account in the store: the record and its username in lower case, which the list sorts by (`usernameKey`, indexed). */
type StoredAccount = AccountRecord & { usernameKey: string };

/** Leaves the sort key out of what the store read: it is the store's, never part of the record. */
const WITHOUT_KEY = { projection: { usernameKey: 0 } } as const;

function recordOf(stored: StoredAccount): AccountRecord {
  const { usernameKey: _key, ...record } = stored;
  return record;
}

/** What the account list filters and sorts on (username letter case aside: see {@link caseInsensitiveSort}). */
const ACCOUNT_LIST_FIELDS: ListFields = {
  filter: ['username', '_id', 'email', 'firstname', 'lastname'],
  sort: ['username', '_id', 'created', 'lastLogin'],
  defaultSort: { username: 1 },
  defaultLimit: MAX_LIST_LIMIT,
};

/** The `accounts` collection (unique `username`; listed by `usernameKey`, its lower case). */
export class AccountRepository {
  private readonly accounts: Collection<StoredAccount>;

  constructor(store: Store) {
    this.accounts = store.collection<StoredAccount>('accounts');
  }

  /** Stores a new account under a fresh id; 409 `ACCOUNT_ALREADY_EXISTS` when the username is taken. */
  async insert(record: Omit<AccountRecord, '_id'>): Promise<AccountRecord> {
    try {
      return recordOf(await this.accounts.insertOne({ _id: randomUUID(), ...record, usernameKey: sortKeyOf(String(record.username)) }));
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY'))
        throw new AppError('ACCOUNT_ALREADY_EXISTS', `An account with username "${record.username}" already exists`, { cause: err });
      throw err;
    }
  }

  /** The account; 404 `ACCOUNT_NOT_FOUND`. */
  async get(id: string): Promise<AccountRecord> {
    const account = await this.accounts.findOne({ _id: id }, WITHOUT_KEY);
    if (!account) throw accountNotFound(id);
    return account;
  }

  find(id: string): Promise<AccountRecord | null> {
    return this.accounts.findOne({ _id: id }, WITHOUT_KEY);
  }

  findByUsername(username: string): Promise<AccountRecord | null> {
    return this.accounts.findOne({ username }, WITHOUT_KEY);
  }

  /**
   * A page of accounts by the shared list options (every account up to 500 when no limit is given),
   * by username letter case aside (`alice`, `Bob`, `zed`), through the `usernameKey` index.
   */
  async list(options: ListQueryOptions = {}): Promise<{ results: AccountRecord[]; total: number }> {
    const query = toListQuery(options, ACCOUNT_LIST_FIELDS);
    const [results, total] = await Promise.all([
      this.accounts.find(query.filter, {
        sort: caseInsensitiveSort(query.sort, 'username', 'usernameKey'),
        skip: query.skip,
        limit: query.limit,
        ...WITHOUT_KEY,
      }),
      this.accounts.countDocuments(query.filter),
    ]);
    return { results, total };
  }

  /**
   * Gives the accounts stored before `usernameKey` existed their key, found through its index
   * (where they have none); how many. Run at start: once every account has one it reads one index key.
   */
  backfillSortKeys(): Promise<number> {
    return backfillSortKeys(this.accounts, 'username', 'usernameKey');
  }

  count(): Promise<number> {
    return this.accounts.countDocuments({});
  }

  /** Sets members of the account; the account as it is after; 404 `ACCOUNT_NOT_FOUND`. */
  async update(id: string, set: Record<string, unknown>): Promise<AccountRecord> {
    const keyed = typeof set.username === 'string' ? { ...set, usernameKey: sortKeyOf(set.username) } : set;
    const updated = await this.accounts.findOneAndUpdate({ _id: id }, { $set: keyed }, { returnDocument: 'after', ...WITHOUT_KEY });
    if (!updated) throw accountNotFound(id);
    return updated;
  }

  /** Notes a successful sign-in at `at` (ISO), leaving `lastUpdated` alone; nothing when the account is gone. */
  async signedIn(id: string, at: string): Promise<void> {
    await this.accounts.updateOne({ _id: id }, { $set: { lastLogin: at } });
  }

  async delete(id: string): Promise<void> {
    await this.accounts.deleteOne({ _id: id });
  }

  /** Takes a deleted group out of every account that was in it. */
  async removeGroup(groupId: string): Promise<void> {
    await this.accounts.updateMany({ groups: groupId }, { $pull: { groups: groupId } });
  }

  /** Active accounts in any of these groups, leaving out `except`. */
  countActiveIn(groupIds: string[], except?: string): Promise<number> {
    return this.accounts.countDocuments({
      ...(except !== undefined ? { _id: { $ne: except } } : {}),
      inactive: false,
      groups: { $in: groupIds },
    });
  }
}

function accountNotFound(id: string): AppError {
  return new AppError('ACCOUNT_NOT_FOUND', `No account with id "${id}"`);
}
