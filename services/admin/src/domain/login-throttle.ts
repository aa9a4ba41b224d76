import { createHash } from 'node:crypto';
import { AppError } from '@nap/contracts';

/**
 * Login protection: failed logins are counted per username and per source address, and once a
 * count reaches its threshold further attempts wait, the wait doubling with each further failure up
 * to a limit. The counts live in the admin store, so that every gateway and admin replica sees the
 * same ones; this file is the arithmetic, values in and values out.
 *
 * An attempt is counted as a failure before its password is checked, and given back when the
 * password holds (the username's count is then forgotten altogether: a success resets it), so that
 * many attempts sent at once meet the threshold as surely as attempts sent one after another.
 */

/** The thresholds and waits (the active profile's `authenticationProps.loginThrottle`). */
export interface LoginThrottleRules {
  /** Failures for one username before its attempts wait. */
  accountFailures: number;
  /** Failures from one address, across usernames, before its attempts wait. */
  addressFailures: number;
  /** A count is forgotten after this many minutes without a failure, counted from the end of any wait. */
  windowMinutes: number;
  /** The wait once the threshold is reached, seconds; it doubles with every further failure. */
  firstWaitSeconds: number;
  /** The longest wait, minutes. */
  maxWaitMinutes: number;
}

/** The defaults: 5 per username, 50 per address, 15 quiet minutes, waits of 1, 2, 4, 8, then 15 minutes. */
export const DEFAULT_LOGIN_THROTTLE: LoginThrottleRules = Object.freeze({
  accountFailures: 5,
  addressFailures: 50,
  windowMinutes: 15,
  firstWaitSeconds: 60,
  maxWaitMinutes: 15,
});

/** Fewest characters of a new password unless the active profile says otherwise. */
export const DEFAULT_PASSWORD_MIN_LENGTH = 12;

/** What a count is kept for. */
export type AttemptScope = 'account' | 'address';

/** One count of failed logins, as stored. */
export interface AttemptRecord {
  _id: string;
  [key: string]: unknown;
  scope: AttemptScope;
  /** Failures counted (attempts under way included) since the count was last forgotten. */
  failures: number;
  /** Epoch ms of the last failure counted. */
  lastFailureAt: number;
  /** Epoch ms until which attempts wait (0 or past: they do not). */
  lockedUntil: number;
  /** Epoch ms after which the count is forgotten. */
  expiresAt: number;
  /** The attempt that counted the last failure. */
  lastAttempt: string;
}

/** What an attempt counted ahead: enough to give its failure back when the password holds. */
export interface CountedAttempt {
  /** The attempt's own id. */
  attempt: string;
  /** The count's members before the attempt changed them; null when it started the count. */
  before: Pick<AttemptRecord, 'lastFailureAt' | 'lockedUntil' | 'expiresAt' | 'lastAttempt'> | null;
}

/** The id of the count of a username (hashed: people type passwords into the username field) or of an address. */
export function attemptId(scope: AttemptScope, key: string): string {
  return scope === 'account' ? `account:${createHash('sha256').update(key).digest('base64url')}` : `address:${key}`;
}

function thresholdOf(scope: AttemptScope, rules: LoginThrottleRules): number {
  return scope === 'account' ? rules.accountFailures : rules.addressFailures;
}

/** The wait after `failures` failures, ms: none below the threshold, then the first wait doubled per further failure, up to the limit. */
export function waitAfter(failures: number, threshold: number, rules: LoginThrottleRules): number {
  if (failures < threshold) return 0;
  const doublings = Math.min(failures - threshold, 30);
  return Math.min(rules.firstWaitSeconds * 1000 * 2 ** doublings, rules.maxWaitMinutes * 60_000);
}

/** Seconds an attempt must still wait at `now` (rounded up), 0 when it may go on. */
export function secondsToWait(record: AttemptRecord | null, now: number): number {
  if (record === null || record.expiresAt <= now || record.lockedUntil <= now) return 0;
  return Math.ceil((record.lockedUntil - now) / 1000);
}

/** What an administrator sees of an account's count at `now`: the failures it holds and, while logins wait, until when. */
export interface ThrottleState {
  failedLogins: number;
  /** Epoch ms; absent unless a login of the account is answered 429 `LOGIN_THROTTLED` at `now`. */
  lockedUntil?: number;
}

export function throttleState(record: AttemptRecord | null | undefined, now: number): ThrottleState {
  if (record === null || record === undefined || record.expiresAt <= now) return { failedLogins: 0 };
  return { failedLogins: record.failures, ...(record.lockedUntil > now ? { lockedUntil: record.lockedUntil } : {}) };
}

/** The count after one more failure, by `attempt` at `now` (a count forgotten by then starts again from nothing). */
export function withFailure(
  current: AttemptRecord | null,
  id: string,
  scope: AttemptScope,
  attempt: string,
  now: number,
  rules: LoginThrottleRules,
): AttemptRecord {
  const live = current !== null && current.expiresAt > now ? current : null;
  const failures = (live?.failures ?? 0) + 1;
  const wait = waitAfter(failures, thresholdOf(scope, rules), rules);
  const lockedUntil = wait > 0 ? now + wait : 0;
  return {
    _id: id,
    scope,
    failures,
    lastFailureAt: now,
    lockedUntil,
    expiresAt: Math.max(now, lockedUntil) + rules.windowMinutes * 60_000,
    lastAttempt: attempt,
  };
}

/** What `withFailure` changed of `current`, for giving it back. */
export function countedAttempt(current: AttemptRecord | null, attempt: string, now: number): CountedAttempt {
  const live = current !== null && current.expiresAt > now ? current : null;
  return {
    attempt,
    before:
      live === null
        ? null
        : { lastFailureAt: live.lastFailureAt, lockedUntil: live.lockedUntil, expiresAt: live.expiresAt, lastAttempt: live.lastAttempt },
  };
}

/**
 * The count once an attempt counted ahead turned out to succeed: its failure given back and, when
 * no failure was counted after it, the wait and expiry as they were before it. Null when nothing is left.
 */
export function withoutFailure(current: AttemptRecord, counted: CountedAttempt, now: number): AttemptRecord | null {
  const failures = current.failures - 1;
  if (failures <= 0 || current.expiresAt <= now) return null;
  if (current.lastAttempt === counted.attempt && counted.before !== null) return { ...current, failures, ...counted.before };
  return { ...current, failures };
}

/** Where a throttled attempt came from: a username, an address, or both. */
export interface Throttled {
  scope: AttemptScope;
  retryAfterSeconds: number;
}

/** The ids of the counts an attempt is counted in: its username's and, when known, its address's. */
export interface AttemptCounts {
  account: string;
  address?: string;
}

export function attemptCounts(username: string, address: string | undefined): AttemptCounts {
  return {
    account: attemptId('account', username),
    ...(address === undefined ? {} : { address: attemptId('address', countedAddress(address)) }),
  };
}

/**
 * What an address is counted as: an IPv4 address as it is (also when written IPv4-mapped,
 * `::ffff:203.0.113.7`, as a dual-stack listener sees IPv4 clients), an IPv6 address as its /64
 * (`2001:db8:5:6::/64`): a single host is given a whole /64 and may take a new address of it for
 * every try, so counting full IPv6 addresses would count a sprayer not at all. Anything else as it is.
 */
export function countedAddress(address: string): string {
  const groups = ipv6Groups(address);
  if (groups === undefined) return address;
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0] = groups;
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0xffff) return `${g >> 8}.${g & 0xff}.${h >> 8}.${h & 0xff}`;
  return `${[a, b, c, d].map((n) => n.toString(16)).join(':')}::/64`;
}

const HEX_GROUP = /^[0-9a-f]{1,4}$/i;

/**
 * The eight 16-bit groups of an IPv6 address (`::` expanded, a dotted IPv4 tail as its two groups,
 * a zone `%eth0` left out); undefined for anything else (an IPv4 address, a name).
 */
function ipv6Groups(address: string): number[] | undefined {
  const zoneless = address.split('%')[0] ?? '';
  const dotted = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(zoneless);
  const octets = dotted?.slice(2).map(Number);
  if (octets?.some((o) => o > 255)) return undefined;
  const [o1 = 0, o2 = 0, o3 = 0, o4 = 0] = octets ?? [];
  const text = dotted ? `${dotted[1] ?? ''}${((o1 << 8) | o2).toString(16)}:${((o3 << 8) | o4).toString(16)}` : zoneless;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const [left = '', right] = halves;
  const head = left === '' ? [] : left.split(':');
  const tail = right === undefined || right === '' ? [] : right.split(':');
  const missing = 8 - head.length - tail.length;
  if (right === undefined ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...new Array<string>(right === undefined ? 0 : missing).fill('0'), ...tail];
  return groups.every((group) => HEX_GROUP.test(group)) ? groups.map((group) => parseInt(group, 16)) : undefined;
}

/** Of an attempt's counts, the one that makes it wait longest at `now`; undefined when none does. */
export function longestWait(records: AttemptRecord[], counts: AttemptCounts, now: number): Throttled | undefined {
  let longest: Throttled | undefined;
  for (const record of records) {
    const retryAfterSeconds = secondsToWait(record, now);
    if (retryAfterSeconds > (longest?.retryAfterSeconds ?? 0))
      longest = { scope: record._id === counts.account ? 'account' : 'address', retryAfterSeconds };
  }
  return longest;
}

/**
 * 429 `LOGIN_THROTTLED` with `details.retryAfterSeconds` (the gateway's `Retry-After`). The message
 * is the same whether or not an account of that name exists.
 */
export function loginThrottled(username: string, throttled: Throttled): AppError {
  const wait = throttled.retryAfterSeconds;
  const subject = throttled.scope === 'account' ? `for username "${username}"` : 'from this address';
  return new AppError(
    'LOGIN_THROTTLED',
    `Too many failed logins ${subject}; try again in ${wait} second${wait === 1 ? '' : 's'}, or ask an administrator to unlock the account`,
    { details: { retryAfterSeconds: wait, scope: throttled.scope } },
  );
}

/** Checks a new password against the rules; the problem, in words, when it breaks one. */
export function passwordProblem(password: string, minLength: number): string | undefined {
  const length = [...password].length;
  if (length < minLength)
    // read by the person choosing a password: where an admin sets the rule (passwordMinLength of
    // AdminEssentials, from the profile or the application's properties) is for docs/administration.md
    return `is ${length} characters long; at least ${minLength} are needed`;
  return undefined;
}
