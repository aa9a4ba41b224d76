import { AppError, isRole } from '@nap/contracts';
import type { BodyOf, Caller, Role } from '@nap/contracts';
import type { AccountRecord } from '../store/accounts';
import type { GroupRecord } from '../store/groups';

/** An account to create, as `POST /user-management/accounts` carries it. */
export type NewAccount = BodyOf<'admin.createAccount'>['account'];

/** Members of an account to change, as `PATCH /authorization/accounts/:accountId` carries them. */
export type AccountPatch = BodyOf<'admin.updateAccount'>;

/** A group to create, as `POST /user-management/groups` carries it. */
export type NewGroup = BodyOf<'admin.createGroup'>['group'];

/** An account as the interface returns it: no password hash, ever; roles resolved from its groups. */
export interface AccountView {
  _id: string;
  username: string;
  firstname?: string;
  lastname?: string;
  email?: string;
  groups: string[];
  roles: Role[];
  inactive: boolean;
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
}

/** The record of a new account (`groups` checked, the password already hashed). */
export function newAccountRecord(
  input: NewAccount,
  groups: string[],
  passwordHash: string,
  by: string,
  now: string,
): Omit<AccountRecord, '_id'> {
  return {
    username: input.username,
    ...(input.firstname !== undefined ? { firstname: input.firstname } : {}),
    ...(input.lastname !== undefined ? { lastname: input.lastname } : {}),
    ...(input.email !== undefined ? { email: input.email } : {}),
    groups,
    inactive: false,
    passwordHash,
    created: now,
    createdBy: by,
    lastUpdated: now,
    lastUpdatedBy: by,
  };
}

/** The record of a new group, each role once. */
export function newGroupRecord(input: NewGroup, by: string, now: string): Omit<GroupRecord, '_id'> {
  return {
    name: input.name,
    description: input.description ?? '',
    roles: [...new Set(input.roles ?? [])],
    created: now,
    createdBy: by,
    lastUpdated: now,
    lastUpdatedBy: by,
  };
}

/** The members a patch sets, with who changed the account and when. */
export function accountChanges(patch: AccountPatch, by: string, now: string): Record<string, unknown> {
  const set: Record<string, unknown> = { lastUpdated: now, lastUpdatedBy: by };
  for (const key of ['firstname', 'lastname', 'email', 'inactive'] as const) if (patch[key] !== undefined) set[key] = patch[key];
  return set;
}

/** The members an account shows, named one by one: whatever else a stored record holds (its password hash) stays in the store. */
export function accountView(account: AccountRecord, groups: ReadonlyMap<string, GroupRecord>): AccountView {
  const roles = [...new Set(account.groups.flatMap((id) => groups.get(id)?.roles ?? []))].sort();
  return {
    _id: account._id,
    username: account.username,
    ...(account.firstname !== undefined ? { firstname: account.firstname } : {}),
    ...(account.lastname !== undefined ? { lastname: account.lastname } : {}),
    ...(account.email !== undefined ? { email: account.email } : {}),
    groups: [...account.groups],
    inactive: account.inactive,
    created: account.created,
    createdBy: account.createdBy,
    lastUpdated: account.lastUpdated,
    lastUpdatedBy: account.lastUpdatedBy,
    roles,
  };
}

/** The caller an account stands for: the union of its groups' roles. */
export function callerOf(account: AccountRecord, groups: readonly GroupRecord[]): Caller {
  const roles = [...new Set(groups.flatMap((g) => g.roles))].filter(isRole).sort();
  return { id: account._id, username: account.username, roles, groups: [...account.groups] };
}

/** The group ids asked for, each once; 400 naming `member` when some do not exist. */
export function checkedGroups(ids: string[], existing: ReadonlySet<string>, member: string): string[] {
  const unique = [...new Set(ids)];
  const missing = unique.filter((id) => !existing.has(id));
  if (missing.length > 0) {
    throw new AppError('VALIDATION_FAILED', `${member} names groups that do not exist: ${missing.join(', ')}`, {
      details: missing.map((id) => ({ member, message: `group "${id}" does not exist` })),
    });
  }
  return unique;
}

/** True when an account in groups `before` holds the admin role and in groups `after` no longer does. */
export function losesAdmin(before: string[], after: string[], adminGroups: string[]): boolean {
  return before.some((g) => adminGroups.includes(g)) && !after.some((g) => adminGroups.includes(g));
}

/** The refusal of a change that would leave no active account holding the admin role. */
export function lastAdmin(): AppError {
  return new AppError('ACCOUNT_PROTECTED', 'The change would leave no active account with the admin role');
}
