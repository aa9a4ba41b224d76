import { AppError, checkPrintableName, isRole } from '@nap/contracts';
import type { BodyOf, Caller, Role } from '@nap/contracts';
import type { AccountRecord } from '../store/accounts';
import type { GroupRecord } from '../store/groups';
import type { ThrottleState } from './login-throttle';
import type { ExternalIdentity } from './sign-in';
import { invalidMember } from './validation-error';

/** The provenance of an account or group made through the routes, where an answer names one (one a sign-in method brought in has the method's). */
export const OWN_PROVENANCE = 'NAP';

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
  /** The sign-in method the account comes from; absent for NAP's own accounts. */
  provenance?: string;
  /** ISO time of the last successful sign-in; absent when never. */
  lastLogin?: string;
  /** Failed logins counted now for the username (login protection); 0 when none. */
  failedLogins: number;
  /** ISO time until which a login of the account is answered 429 `LOGIN_THROTTLED`; absent when it is not. */
  lockedUntil?: string;
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
}

/** The record of the account of a person a sign-in method vouched for: no password of NAP's (none verifies), `provenance` the method. */
export function externalAccountRecord(
  identity: ExternalIdentity,
  provenance: string,
  groups: string[],
  now: string,
): Omit<AccountRecord, '_id'> {
  return {
    username: identity.username,
    ...namesOf(identity),
    groups,
    inactive: false,
    passwordHash: '',
    provenance,
    ...(identity.externalId !== undefined ? { externalId: identity.externalId } : {}),
    created: now,
    createdBy: provenance,
    lastUpdated: now,
    lastUpdatedBy: provenance,
  };
}

/** What a sign-in changes of an account of a method (groups, names, where the method keeps it); undefined when nothing. */
export function externalAccountChanges(
  account: AccountRecord,
  identity: ExternalIdentity,
  groups: string[],
  provenance: string,
  now: string,
): Record<string, unknown> | undefined {
  const set: Record<string, unknown> = {};
  const sameGroups = groups.length === account.groups.length && groups.every((g) => account.groups.includes(g));
  if (!sameGroups) set.groups = groups;
  if (identity.externalId !== undefined && identity.externalId !== account.externalId) set.externalId = identity.externalId;
  for (const [key, value] of Object.entries(namesOf(identity))) if (account[key] !== value) set[key] = value;
  if (Object.keys(set).length === 0) return undefined;
  return { ...set, lastUpdated: now, lastUpdatedBy: provenance };
}

function namesOf(identity: ExternalIdentity): Partial<Pick<AccountRecord, 'firstname' | 'lastname' | 'email'>> {
  return {
    ...(identity.firstname !== undefined ? { firstname: identity.firstname } : {}),
    ...(identity.lastname !== undefined ? { lastname: identity.lastname } : {}),
    ...(identity.email !== undefined ? { email: identity.email } : {}),
  };
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

/**
 * Refuses a group name people could not tell apart or type (400 naming `member`): only whitespace,
 * a character no name may hold (a control character such as NUL or a line break, a bidirectional
 * override: `checkPrintableName` of the contracts), or whitespace at either end (" netops " beside
 * "netops"). The length is bounded by the schema (256 characters).
 */
export function checkGroupName(name: string, member: string): void {
  if (name.trim() === '') throw invalidMember(member, 'is only whitespace: give the group a name');
  checkPrintableName(name, member);
  if (name.trim() !== name) throw invalidMember(member, `"${name}" begins or ends with whitespace; give it as "${name.trim()}"`);
  checkComposed(name, member);
}

/**
 * Refuses a name not written in Unicode's composed form (NFC): "e" and a combining accent read as
 * "é", and two names people read alike would both be kept, neither found by the other's spelling.
 */
function checkComposed(name: string, member: string): void {
  const composed = name.normalize('NFC');
  if (composed !== name)
    throw invalidMember(member, `"${name}" has letters written as a letter and a combining mark; give it as "${composed}" (Unicode NFC)`);
}

/** Longest username an account made through the routes may have: as long as a group name, and all the audit trail keeps of a username that Basic credentials claimed. */
export const MAX_USERNAME_LENGTH = 256;

/**
 * Refuses a username people could not tell apart, type or find again (400 naming `member`): only
 * whitespace, whitespace at either end ("admin " beside "admin", which logs in as neither), or
 * longer than {@link MAX_USERNAME_LENGTH}. Control and bidirectional characters are the schema's.
 */
export function checkUsername(username: string, member: string): void {
  if (username.trim() === '') throw invalidMember(member, 'is only whitespace: give the account a username');
  if (username.trim() !== username)
    throw invalidMember(member, `"${username}" begins or ends with whitespace; give it as "${username.trim()}"`);
  if (username.length > MAX_USERNAME_LENGTH)
    throw invalidMember(member, `is ${username.length} characters long; a username has at most ${MAX_USERNAME_LENGTH}`);
  checkComposed(username, member);
}

/** The record of a new group, each role once (`assignedRoles` already checked). */
export function newGroupRecord(
  input: Omit<NewGroup, 'assignedRoles'>,
  by: string,
  now: string,
  assignedRoles: { roleId: string }[] = [],
): Omit<GroupRecord, '_id'> {
  return {
    name: input.name,
    description: input.description ?? '',
    roles: [...new Set(input.roles ?? [])],
    ...(assignedRoles.length > 0 ? { assignedRoles } : {}),
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
export function accountView(account: AccountRecord, groups: ReadonlyMap<string, GroupRecord>, throttle: ThrottleState): AccountView {
  const roles = [...new Set(account.groups.flatMap((id) => groups.get(id)?.roles ?? []))].sort();
  return {
    _id: account._id,
    username: account.username,
    ...(account.firstname !== undefined ? { firstname: account.firstname } : {}),
    ...(account.lastname !== undefined ? { lastname: account.lastname } : {}),
    ...(account.email !== undefined ? { email: account.email } : {}),
    groups: [...account.groups],
    inactive: account.inactive,
    ...(account.provenance !== undefined ? { provenance: account.provenance } : {}),
    ...(account.lastLogin !== undefined ? { lastLogin: account.lastLogin } : {}),
    failedLogins: throttle.failedLogins,
    ...(throttle.lockedUntil !== undefined ? { lockedUntil: new Date(throttle.lockedUntil).toISOString() } : {}),
    created: account.created,
    createdBy: account.createdBy,
    lastUpdated: account.lastUpdated,
    lastUpdatedBy: account.lastUpdatedBy,
    roles,
  };
}

/**
 * The caller an account stands for: the union of its groups' roles, and the operations the custom
 * roles of its groups allow (`operations`, absent when none).
 */
export function callerOf(account: AccountRecord, groups: readonly GroupRecord[], operations: readonly string[] = []): Caller {
  const roles = [...new Set(groups.flatMap((g) => g.roles))].filter(isRole).sort();
  return {
    id: account._id,
    username: account.username,
    roles,
    groups: [...account.groups],
    ...(operations.length > 0 ? { operations: [...operations] } : {}),
  };
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
  return new AppError(
    'ACCOUNT_PROTECTED',
    'The change would leave no active account with the admin role: first give another active account the admin role (put it in a group that has it), then make this change',
  );
}
