import { hasCode } from '@nap/contracts';
import type { SecretBox } from '@nap/runtime';
import { newAccountRecord, newGroupRecord } from '../domain/accounts';
import { hashPassword, verifyPassword } from '../domain/password';
import { DEFAULT_PROFILE_ID, profileRecordOf, withDefaults } from '../domain/profiles';
import type { AccountRepository } from '../store/accounts';
import type { ActiveProfileRepository } from '../store/active-profile';
import type { GroupRepository } from '../store/groups';
import type { ProfileRepository } from '../store/profiles';
import type { SessionRepository } from '../store/sessions';
import type { AdminEvents } from '../clients/events';

/**
 * First start: the `admins` group with role admin and the first administrator account in it.
 * Replicas starting together race safely: the unique username and group name let one of them
 * create each. `created` is false when accounts exist already.
 */
export async function bootstrapAdministrator(
  repositories: { accounts: AccountRepository; groups: GroupRepository },
  username: string,
  password: string,
): Promise<{ created: boolean }> {
  const { accounts, groups } = repositories;
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
        await hashPassword(password),
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
 */
export async function reconcileAdministratorPassword(
  svc: { accounts: AccountRepository; sessions: SessionRepository; events: AdminEvents },
  username: string,
  password: string,
  reset: boolean,
): Promise<AdministratorPasswordOutcome> {
  const account = await svc.accounts.findByUsername(username);
  if (account === null) return 'no-account';
  if (await verifyPassword(password, account.passwordHash)) return 'matches';
  if (!reset) return 'ignored';
  await svc.accounts.update(account._id, {
    passwordHash: await hashPassword(password),
    lastUpdated: new Date().toISOString(),
    lastUpdatedBy: 'system',
  });
  await svc.sessions.revokeAllOf(account._id);
  await svc.events.accountChanged({ accountId: account._id, reason: 'password' });
  return 'reset';
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
