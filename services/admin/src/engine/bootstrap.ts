import { hasCode } from '@nap/contracts';
import type { SecretBox } from '@nap/runtime';
import { newAccountRecord, newGroupRecord } from '../domain/accounts';
import { hashPassword } from '../domain/password';
import { DEFAULT_PROFILE_ID, profileRecordOf, withDefaults } from '../domain/profiles';
import type { AccountRepository } from '../store/accounts';
import type { ActiveProfileRepository } from '../store/active-profile';
import type { GroupRepository } from '../store/groups';
import type { ProfileRepository } from '../store/profiles';

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
