import { isDeepStrictEqual } from 'node:util';
import { APPLICATION_NAMES, DEFAULT_JOB_RETENTION_DAYS, isLogLevel, parseAs, profileSchema } from '@nap/contracts';
import type { Profile } from '@nap/contracts';
import type { SecretBox } from '@nap/runtime';
import { isRecord } from '@nap/util';
import type { ProfileRecord } from '../store/profiles';
import type { ProfileLiveSettings } from './applications';
import { maskSettings, openSettings, sealSettings } from './sealed-settings';

/**
 * Profiles: the platform's configuration documents. Exactly one is active; its live members reach
 * every replica of every service at once, through the applications' control channels; the rest
 * takes effect when the processes restart.
 */

/** The id of the profile created on the first start. */
export const DEFAULT_PROFILE_ID = 'default';

/**
 * Members of a profile that NAP applies while it runs, the moment the active profile changes. The
 * rest is the record of the platform's configuration: NAP's processes read those settings from
 * their `NAP_*` variables when they start, so a change of them takes effect on restart.
 */
export const LIVE_PROFILE_MEMBERS = [
  'loggerProps.log_level',
  'loggerProps.console_level',
  'authenticationProps.logoutTime',
  'authenticationProps.providers',
  'authenticationProps.admins',
  'authenticationProps.passwordRules',
  'authenticationProps.loginThrottle',
  'integrationProps.timeout',
  'prebuiltProps.repoConfigs',
  'retentionProps.jobsDays',
] as const;

/** Days the audit trail keeps a record when the active profile says nothing (`auditProps.retentionDays`). */
export const DEFAULT_AUDIT_RETENTION_DAYS = 400;

/** The members the server fills when a profile leaves them out. */
export function profileDefaults(): Omit<Profile, 'id'> {
  return {
    description: '',
    services: [...APPLICATION_NAMES],
    uiProps: {},
    authenticationProps: {},
    expressProps: {},
    loggerProps: {},
    systemProps: {},
    integrationProps: { timeout: 30_000 },
    retryStrategy: {},
    prebuiltProps: { repoConfigs: {} },
    auditProps: { retentionDays: DEFAULT_AUDIT_RETENTION_DAYS },
    retentionProps: { jobsDays: DEFAULT_JOB_RETENTION_DAYS },
  };
}

/** The profile with every member it leaves out filled with its default (one level deep: a section given keeps only what it gives, plus defaults of that section). */
export function withDefaults(profile: Profile): Profile {
  const defaults: Record<string, unknown> = profileDefaults();
  const out: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries(profile)) {
    const fallback = defaults[key];
    out[key] = isRecord(value) && isRecord(fallback) ? { ...fallback, ...value } : value;
  }
  return parseAs(profileSchema, out, 'profile');
}

/** Members (`section.member`, or `section` for a scalar or array) whose values differ between two profiles; the id is not compared. */
export function changedMembers(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const changed: string[] = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (key === 'id') continue;
    const a = before[key];
    const b = after[key];
    if (isRecord(a) && isRecord(b)) {
      for (const member of new Set([...Object.keys(a), ...Object.keys(b)]))
        if (!isDeepStrictEqual(a[member], b[member])) changed.push(`${key}.${member}`);
    } else if (!isDeepStrictEqual(a, b)) {
      changed.push(key);
    }
  }
  return changed.sort();
}

/** The live settings a profile gives the services. */
export function liveSettingsOf(profile: Record<string, unknown>): ProfileLiveSettings {
  const logger = isRecord(profile.loggerProps) ? profile.loggerProps : {};
  const auth = isRecord(profile.authenticationProps) ? profile.authenticationProps : {};
  const integration = isRecord(profile.integrationProps) ? profile.integrationProps : {};
  const retention = isRecord(profile.retentionProps) ? profile.retentionProps : {};
  const level = isLogLevel(logger.console_level) ? logger.console_level : isLogLevel(logger.log_level) ? logger.log_level : undefined;
  const admin: Record<string, unknown> = {};
  if (typeof auth.logoutTime === 'number') admin.sessionIdleMinutes = auth.logoutTime;
  const rules = isRecord(auth.passwordRules) ? auth.passwordRules : {};
  if (typeof rules.minLength === 'number') admin.passwordMinLength = rules.minLength;
  if (isRecord(auth.loginThrottle)) admin.loginThrottle = { ...auth.loginThrottle };
  if (typeof integration.timeout === 'number') admin.integrationTimeoutMs = integration.timeout;
  const workflow: Record<string, unknown> = {};
  if (typeof retention.jobsDays === 'number') workflow.jobRetentionDays = retention.jobsDays;
  return { ...(level !== undefined ? { logLevel: level } : {}), admin, workflow };
}

/** A profile as stored: filled with its defaults and its secrets sealed (a secret sent as `********` keeps the one in `current`). */
export function profileRecordOf(
  profile: Profile,
  secrets: SecretBox,
  current: Record<string, unknown> | undefined,
  created: string,
  by: string,
  at = 'body.properties',
): ProfileRecord {
  return {
    _id: profile.id,
    id: profile.id,
    description: profile.description ?? '',
    profile: sealSettings(profile, secrets, current, at),
    created,
    lastUpdated: new Date().toISOString(),
    lastUpdatedBy: by,
  };
}

/** The profile document as answered: secrets `********`. */
export function maskedProfile(record: ProfileRecord): Profile {
  return parseAs(profileSchema, maskSettings(record.profile), 'stored profile');
}

/** The profile document with its secrets opened: only for use inside the admin service, never answered. */
export function openedProfile(record: ProfileRecord, secrets: SecretBox): Profile {
  return parseAs(profileSchema, openSettings(record.profile, secrets), 'stored profile');
}

/** A profile as the routes answer it: whether it is active, and whether every replica carries it. */
export function profileView(record: ProfileRecord, isActive: boolean, activeSync: boolean) {
  return { metadata: { isActive, activeSync }, profile: maskedProfile(record) };
}

/** Of the members a change touched, those applied at once and those that wait for a restart (none unless the profile is active). */
export function appliedMembers(members: string[], active: boolean): { applied: string[]; restartRequired: string[] } {
  const live = new Set<string>(LIVE_PROFILE_MEMBERS);
  return {
    applied: active ? members.filter((m) => live.has(m)) : [],
    restartRequired: active ? members.filter((m) => !live.has(m)) : [],
  };
}
