import { hasCode } from '@nap/contracts';
import { newGroupRecord } from '../domain/accounts';
import { DEFAULT_PROFILE_ID, profileRecordOf, withDefaults } from '../domain/profiles';
import { addAccount } from '../context';
import type { AdminContext } from '../context';

/**
 * First start: the `admins` group with role admin and the first administrator account. Replicas
 * starting together race safely: the unique username and group name let one of them create each.
 */
export async function bootstrapAdministrator(svc: AdminContext, username: string, password: string): Promise<{ created: boolean }> {
  if ((await svc.accounts.count()) > 0) return { created: false };
  let group = await svc.groups.findByName('admins');
  if (!group) {
    try {
      group = await svc.groups.insert(
        newGroupRecord({ name: 'admins', description: 'Platform administrators', roles: ['admin'] }, 'system', new Date().toISOString()),
      );
    } catch (err) {
      if (!hasCode(err, 'GROUP_ALREADY_EXISTS')) throw err;
      group = await svc.groups.findByName('admins');
    }
  }
  try {
    await addAccount(svc, { username, password, groups: group ? [group._id] : [] }, 'system');
    return { created: true };
  } catch (err) {
    if (hasCode(err, 'ACCOUNT_ALREADY_EXISTS')) return { created: false };
    throw err;
  }
}

/** First start: the default profile, active. */
export async function bootstrapProfiles(svc: AdminContext): Promise<void> {
  const now = new Date().toISOString();
  try {
    await svc.profiles.insert(
      profileRecordOf(
        withDefaults({ id: DEFAULT_PROFILE_ID, description: 'Created on the first start' }),
        svc.secrets,
        undefined,
        now,
        'system',
      ),
    );
  } catch (err) {
    if (!hasCode(err, 'PROFILE_ALREADY_EXISTS')) throw err;
  }
  await svc.activeProfile.initialize(DEFAULT_PROFILE_ID, now);
}
