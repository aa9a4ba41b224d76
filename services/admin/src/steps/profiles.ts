// Profiles: the active one, its live settings, changes, and the sign-in methods it holds.
import { AppError, auditChanges, checkNotReservedKey, escapeUnprintable } from '@nap/contracts';
import type { Profile } from '@nap/contracts';
import type { ActiveAuthentication } from '../clients/sign-in-methods';
import type { AdminContext, AuditSink } from '../context';
import type { ProfileLiveSettings } from '../domain/applications';
import {
  appliedMembers,
  changedMembers,
  liveSettingsOf,
  openedProfile,
  profileRecordOf,
  profileView,
  withDefaults,
} from '../domain/profiles';
import { providersOf, seededAuthenticationProps } from '../domain/sign-in';
import type { ProviderConfig } from '../domain/sign-in';
import { invalidMember } from '../domain/validation-error';
import type { ProfileRecord } from '../store/profiles';

/** The active profile as stored, null when none is. */
export async function activeProfileRecord(svc: AdminContext): Promise<ProfileRecord | null> {
  const id = await svc.activeProfile.activeId();
  return id === undefined ? null : svc.profiles.find(id);
}

/** The live settings of the active profile (what the applications carry to the replicas). */
export async function profileLiveSettings(svc: AdminContext): Promise<ProfileLiveSettings> {
  const active = await activeProfileRecord(svc);
  return active === null ? { admin: {} } : liveSettingsOf(active.profile);
}

/** Stores a new profile, inactive, filled with its defaults and its secrets sealed (`at`: where it sits in the request). */
export async function addProfile(svc: AdminContext, profile: Profile, by: string, at: string, audit?: AuditSink) {
  // a profile is kept by its id (the store's _id)
  checkNotReservedKey(profile.id, `${at}.id`);
  providersOf(profile.authenticationProps, `${at}.authenticationProps`);
  const record = await svc.profiles.insert(
    profileRecordOf(withDefaults(profile), svc.secrets, undefined, new Date().toISOString(), by, at),
  );
  // the answer names the profile under `profile`, where the audit trail does not look for it
  audit?.audit({ target: { kind: 'profile', id: profile.id, name: profile.id } });
  return profileView(record, false, false);
}

/** Replaces a profile (the id stays; defaults fill what it lacks); when it is active, its live members reach every replica. */
export async function replaceProfile(svc: AdminContext, id: string, profile: Profile, by: string, audit?: AuditSink) {
  if (profile.id !== id)
    throw invalidMember('body.properties.id', `is "${escapeUnprintable(profile.id)}"; a profile keeps its id ("${id}")`);
  providersOf(profile.authenticationProps, 'body.properties.authenticationProps');
  const before = await svc.profiles.get(id);
  const record = profileRecordOf(withDefaults(profile), svc.secrets, before.profile, before.created, by);
  await svc.profiles.replace(record);
  // secrets are compared sealed: a secret sent back as ******** keeps its sealed value, a new one shows as changed
  audit?.audit({ target: { kind: 'profile', id, name: id }, changes: auditChanges(before.profile, record.profile) });
  const active = (await svc.activeProfile.activeId()) === id;
  return profileChanged(svc, record, active, active ? changedMembers(before.profile, record.profile) : []);
}

/** The answer to a change of a profile: which members apply at once, and whether every replica took them. */
export async function profileChanged(svc: AdminContext, record: ProfileRecord, active: boolean, members: string[]) {
  const { applied, restartRequired } = appliedMembers(members, active);
  const sync = active ? await svc.reconciler.pushAll() : false;
  return { ...profileView(record, active, sync), applied, restartRequired };
}

/** The active profile's authentication settings for the sign-in methods: a version to compare, the settings opened only when asked. */
export async function activeAuthentication(svc: AdminContext): Promise<ActiveAuthentication> {
  const active = await activeProfileRecord(svc);
  if (active === null) return { version: 'none', authenticationProps: () => ({}) };
  return {
    version: `${active._id}@${active.lastUpdated}`,
    authenticationProps: () => openedProfile(active, svc.secrets).authenticationProps,
  };
}

/**
 * First start by environment: the providers of `NAP_LDAP_*` (`ldap`), `NAP_RADIUS_*` (`radius`),
 * `NAP_OIDC_*` (`oidc`) and `NAP_SAML_*` (`saml`)
 * written into the active profile when it has none of that name; the profile counts from then on.
 * The names of those it added.
 */
export async function seedSignInProviders(
  svc: AdminContext,
  fromEnvironment: Record<string, ProviderConfig | undefined>,
): Promise<string[]> {
  if (Object.values(fromEnvironment).every((config) => config === undefined)) return [];
  const profile = await activeProfile(svc);
  const auth = profile.authenticationProps as Record<string, unknown> | undefined;
  const seeded = seededAuthenticationProps(auth, fromEnvironment);
  if (seeded === undefined) return [];
  const before = new Set(Object.keys((auth?.providers as Record<string, unknown> | undefined) ?? {}));
  await replaceProfile(svc, profile.id, { ...profile, authenticationProps: seeded }, 'system');
  return Object.keys(seeded.providers as Record<string, unknown>).filter((name) => !before.has(name));
}

/** The active profile with its secrets opened: only for use inside the admin service, never answered. */
export async function activeProfile(svc: AdminContext): Promise<Profile> {
  const active = await activeProfileRecord(svc);
  if (active === null) throw new AppError('PROFILE_NOT_FOUND', 'No profile is active');
  return openedProfile(active, svc.secrets);
}
