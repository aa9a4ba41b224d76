import { hasCode } from '@nap/contracts';
import type { SecretBox } from '@nap/runtime';
import { newAccountRecord, newGroupRecord } from '../domain/accounts';
import { attemptId } from '../domain/login-throttle';
import { hashPassword, verifyPassword } from '../domain/password';
import { DEFAULT_PROFILE_ID, profileRecordOf, withDefaults } from '../domain/profiles';
import type { AccountRepository } from '../store/accounts';
import type { ActiveProfileRepository } from '../store/active-profile';
import type { GroupRecord, GroupRepository } from '../store/groups';
import type { LoginAttemptRepository } from '../store/login-attempts';
import type { ProfileRepository } from '../store/profiles';
import type { SessionRepository } from '../store/sessions';
import type { AdminEvents } from '../clients/events';
import type { SerializedChanges } from './serialized-changes';

/**
 * First start: the `admins` group with role admin and the first administrator account in it.
 * Replicas starting together race safely: the unique username and group name let one of them
 * create each. `created` is false when accounts exist already.
 */
export async function bootstrapAdministrator(
  repositories: { accounts: AccountRepository; groups: GroupRepository; scryptCost: number },
  username: string,
  password: string,
): Promise<{ created: boolean }> {
  const { accounts, groups, scryptCost } = repositories;
  if ((await accounts.count()) > 0) return { created: false };
  let group = await groups.findByName('admins');
  if (!group) {
    try {
      group = await groups.insert(
        newGroupRecord({ name: 'admins', description: 'Platform administrators', roles: ['admin'] }, 'system', new Date().toISOString()),
      );
    } catch (err) {
      if (!hasCode(err, 'GROUP_ALREADY_EXISTS')) throw err;
      group = await groups.findByName('admins');
    }
  }
  const memberOf = group ? [group._id] : [];
  try {
    await accounts.insert(
      newAccountRecord(
        { username, password, groups: memberOf },
        memberOf,
        await hashPassword(password, scryptCost),
        'system',
        new Date().toISOString(),
      ),
    );
    return { created: true };
  } catch (err) {
    if (hasCode(err, 'ACCOUNT_ALREADY_EXISTS')) return { created: false };
    throw err;
  }
}

/** What became of `NAP_ADMIN_PASSWORD` on a start that created no account. */
export type AdministratorPasswordOutcome =
  /** The account has that password already. */
  | 'matches'
  /** The account has another password, kept: the variable only sets the password of the account the first start creates. */
  | 'ignored'
  /** `NAP_ADMIN_PASSWORD_RESET` asked for it: the account now has that password, and its sessions ended. */
  | 'reset'
  /** No account has that username (the first administrator was created under another name). */
  | 'no-account';

/**
 * A later start with `NAP_ADMIN_PASSWORD` set: the first administrator exists, so the variable
 * changes nothing unless `reset` (`NAP_ADMIN_PASSWORD_RESET=true`) asks to apply it. Says which.
 * A reset also forgets the failed logins counted for the username, so that a lockout does not keep
 * the way back closed.
 */
export async function reconcileAdministratorPassword(
  svc: {
    accounts: AccountRepository;
    sessions: SessionRepository;
    loginAttempts: LoginAttemptRepository;
    events: AdminEvents;
    scryptCost: number;
  },
  username: string,
  password: string,
  reset: boolean,
): Promise<AdministratorPasswordOutcome> {
  const account = await svc.accounts.findByUsername(username);
  if (account === null) return 'no-account';
  const matches = await verifyPassword(password, account.passwordHash);
  if (!reset) return matches ? 'matches' : 'ignored';
  await svc.loginAttempts.forget(attemptId('account', username));
  if (matches) return 'matches';
  await svc.accounts.update(account._id, {
    passwordHash: await hashPassword(password, svc.scryptCost),
    lastUpdated: new Date().toISOString(),
    lastUpdatedBy: 'system',
  });
  await svc.sessions.revokeAllOf(account._id);
  await svc.events.accountChanged({ accountId: account._id, reason: 'password' });
  return 'reset';
}

/** What `NAP_ADMIN_PASSWORD_RESET` did to give the first administrator the admin role back. */
export interface AdministratorRestored {
  /** The group that gives the account the admin role now. */
  group: string;
  /** True when no group of NAP's own gave the role, so the group was made. */
  createdGroup: boolean;
  /** True when the account was put in that group (it held the role through none of its groups). */
  joined: boolean;
  /** True when the account was inactive and is active again. */
  reactivated: boolean;
}

/** Names tried, in order, for the group a restore makes when none of NAP's own gives the admin role. */
const RESTORED_GROUP_NAMES = ['admins', 'admins-restored', ...Array.from({ length: 8 }, (_, i) => `admins-restored-${i + 2}`)];
/** How long the restore at start waits for a change of accounts another replica is making, ms. */
const RESTORE_WAIT_MS = 60_000;

/**
 * `NAP_ADMIN_PASSWORD_RESET=true`, the way back in: the first administrator (`username`) holds the
 * admin role and is active again. When it holds the role through none of its groups it is put in
 * the group `admins` (or, when none of NAP's own groups gives the role any more, in a group made
 * for it: `admins`, else `admins-restored`, … when the name is taken by a group without the role);
 * other accounts and groups are left as they are. Serialised with the changes of accounts and
 * groups of every replica. Answers what it did; undefined when there was nothing to do (or no such account).
 */
export async function restoreAdministrator(
  svc: { accounts: AccountRepository; groups: GroupRepository; events: AdminEvents; serialized: SerializedChanges },
  username: string,
): Promise<AdministratorRestored | undefined> {
  const restored = await svc.serialized.run('administrators', Date.now() + RESTORE_WAIT_MS, async (held) => {
    const account = await svc.accounts.findByUsername(username);
    if (account === null) return undefined;
    const own = account.groups.length > 0 ? await svc.groups.byIds(account.groups) : [];
    const adminGroup = own.find((g) => g.roles.includes('admin'));
    if (adminGroup !== undefined && !account.inactive) return undefined;
    const joined = adminGroup === undefined;
    const { group, created } = adminGroup !== undefined ? { group: adminGroup, created: false } : await administratorsGroup(svc.groups);
    await held.confirm();
    await svc.accounts.update(account._id, {
      ...(joined ? { groups: [...account.groups, group._id] } : {}),
      inactive: false,
      lastUpdated: new Date().toISOString(),
      lastUpdatedBy: 'system',
    });
    return { accountId: account._id, result: { group: group.name, createdGroup: created, joined, reactivated: account.inactive } };
  });
  if (restored === undefined) return undefined;
  await svc.events.accountChanged({ accountId: restored.accountId, reason: 'groups' });
  return restored.result;
}

/** A group of NAP's own (not a sign-in method's) that gives the admin role: `admins` first; made when there is none. */
async function administratorsGroup(groups: GroupRepository): Promise<{ group: GroupRecord; created: boolean }> {
  const withRole = await groups.byIds(await groups.withRole('admin'));
  const own = withRole.filter((g) => g.provenance === undefined).sort((a, b) => a.name.localeCompare(b.name));
  const found = own.find((g) => g.name === 'admins') ?? own[0];
  if (found !== undefined) return { group: found, created: false };
  for (const name of RESTORED_GROUP_NAMES) {
    try {
      const group = await groups.insert(
        newGroupRecord(
          { name, description: 'Platform administrators (NAP_ADMIN_PASSWORD_RESET)', roles: ['admin'] },
          'system',
          new Date().toISOString(),
        ),
      );
      return { group, created: true };
    } catch (err) {
      if (!hasCode(err, 'GROUP_ALREADY_EXISTS')) throw err;
    }
  }
  throw new Error(`Every name for a group of administrators is taken (${RESTORED_GROUP_NAMES.join(', ')}); delete one of those groups`);
}

/** First start: the default profile, active. */
export async function bootstrapProfiles(parts: {
  profiles: ProfileRepository;
  activeProfile: ActiveProfileRepository;
  secrets: SecretBox;
}): Promise<void> {
  const now = new Date().toISOString();
  try {
    await parts.profiles.insert(
      profileRecordOf(
        withDefaults({ id: DEFAULT_PROFILE_ID, description: 'Created on the first start' }),
        parts.secrets,
        undefined,
        now,
        'system',
      ),
    );
  } catch (err) {
    if (!hasCode(err, 'PROFILE_ALREADY_EXISTS')) throw err;
  }
  await parts.activeProfile.initialize(DEFAULT_PROFILE_ID, now);
}
