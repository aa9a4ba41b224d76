import { formatTime } from '../../api/job-data';
import type { Account, Group, RoleName } from '../../api/people';

/**
 * What the People pages say about accounts and groups: an account's state (active, inactive,
 * locked after failed logins), its sign-in method, its roles and a group's members. Pure rules (no
 * React): the pages and their tests read the same ones.
 */

/** The rows an accounts page may hold, and the rows it holds unless the URL says otherwise. */
export const ACCOUNT_PAGE_SIZES = [25, 50, 100] as const;
const DEFAULT_LIMIT = 25;

/** The accounts page's filter and page: kept in the URL, so that a reload or a shared link shows the same list. */
export interface AccountListParams {
  /** Part of the username (the platform's `contains[username]`). */
  username: string;
  page: number;
  limit: number;
}

export function readAccountParams(search: URLSearchParams): AccountListParams {
  const limit = Number(search.get('limit'));
  const page = Number(search.get('page'));
  return {
    username: search.get('username') ?? '',
    page: Number.isInteger(page) && page > 0 ? page : 1,
    limit: (ACCOUNT_PAGE_SIZES as readonly number[]).includes(limit) ? limit : DEFAULT_LIMIT,
  };
}

/** The URL of a list: only what differs from the default is written. */
export function writeAccountParams(params: AccountListParams): URLSearchParams {
  const search = new URLSearchParams();
  if (params.username) search.set('username', params.username);
  if (params.page !== 1) search.set('page', String(params.page));
  if (params.limit !== DEFAULT_LIMIT) search.set('limit', String(params.limit));
  return search;
}

/** The query of `GET /user-management/accounts` for a list: the platform filters, sorts by username and pages. */
export function toAccountQuery(params: AccountListParams): {
  contains?: { username: string };
  sort: 'username';
  skip: number;
  limit: number;
} {
  return {
    ...(params.username ? { contains: { username: params.username } } : {}),
    sort: 'username',
    skip: (params.page - 1) * params.limit,
    limit: params.limit,
  };
}

/**
 * Usernames in the platform's list order (`GET /user-management/accounts?sort=username`): letter
 * case aside (`admin`, `audrey`, `Bob`), names that differ only in case capitals first (`OLGA`,
 * `olga`), by code point otherwise, so that a page sorted again here keeps the order of the pages.
 */
export function byUsername(a: Pick<Account, 'username'>, b: Pick<Account, 'username'>): number {
  const x = a.username ?? '';
  const y = b.username ?? '';
  return codePointOrder(x.normalize('NFC').toLowerCase(), y.normalize('NFC').toLowerCase()) || codePointOrder(x, y);
}

function codePointOrder(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The usernames of `accounts` that another of them spells the same but for case (`olga` and `OLGA`): two accounts easy to mistake. */
export function caseTwins(accounts: readonly Pick<Account, 'username'>[]): Map<string, string[]> {
  const byFold = new Map<string, string[]>();
  for (const { username = '' } of accounts) byFold.set(username.toLowerCase(), [...(byFold.get(username.toLowerCase()) ?? []), username]);
  const twins = new Map<string, string[]>();
  for (const names of byFold.values())
    if (names.length > 1)
      for (const name of names)
        twins.set(
          name,
          names.filter((other) => other !== name),
        );
  return twins;
}

/** The person's name as their account gives it ('' when it gives none). */
export function fullName(account: Pick<Account, 'firstname' | 'lastname'>): string {
  return [account.firstname, account.lastname]
    .filter((part) => part !== undefined && part.trim() !== '')
    .join(' ')
    .trim();
}

/** An account as the lists show it: whether it may log in now. */
export type AccountState =
  | { kind: 'active'; failedLogins: number }
  | { kind: 'inactive'; failedLogins: number }
  | { kind: 'locked'; failedLogins: number; lockedUntil: number };

/**
 * Whether the account may log in at `now`: inactive (set so by an admin), locked (its logins are
 * answered 429 `LOGIN_THROTTLED` until `lockedUntil`) or active. A lock whose time has passed is
 * over even before the page reads the account again; its failures still count.
 */
export function accountState(account: Pick<Account, 'inactive' | 'failedLogins' | 'lockedUntil'>, now: number): AccountState {
  const failedLogins = account.failedLogins ?? 0;
  if (account.inactive === true) return { kind: 'inactive', failedLogins };
  const until = account.lockedUntil === undefined ? Number.NaN : Date.parse(account.lockedUntil);
  if (Number.isFinite(until) && until > now) return { kind: 'locked', failedLogins, lockedUntil: until };
  return { kind: 'active', failedLogins };
}

/** True when Unlock has something to forget: failed logins counted, or a lock. */
export function mayUnlock(state: AccountState): boolean {
  return state.kind === 'locked' || state.failedLogins > 0;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A time of the coming minutes as a clock says it (`16:05`), with its date when it is not today's (`2026-12-05 00:10`). */
export function clockTime(at: number, now: number): string {
  const day = (ms: number) => new Date(ms).toDateString();
  const d = new Date(at);
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return day(at) === day(now) ? time : `${formatTime(at).slice(0, 10)} ${time}`;
}

/** `1 failed login`, `6 failed logins`. */
export function failedLoginsText(count: number): string {
  return `${count} failed login${count === 1 ? '' : 's'}`;
}

/** The state in a few words, as the accounts table shows it: `Active`, `Inactive`, `Locked until 16:05 · 6 failed logins`. */
export function stateText(state: AccountState, now: number): string {
  switch (state.kind) {
    case 'locked':
      return `Locked until ${clockTime(state.lockedUntil, now)} · ${failedLoginsText(state.failedLogins)}`;
    case 'inactive':
      return 'Inactive';
    default:
      return 'Active';
  }
}

/** What an account's page says of its failed logins and lock, and what Unlock does; undefined when there is nothing to say. */
export function lockExplanation(state: AccountState, now: number): string | undefined {
  if (state.kind === 'locked')
    return `${failedLoginsText(state.failedLogins)}; logins are refused until ${clockTime(state.lockedUntil, now)}. Unlock lets them log in at once.`;
  if (state.failedLogins > 0)
    return `${failedLoginsText(state.failedLogins)} counted since the last successful one; a few more and logins are refused for a while. Unlock forgets them.`;
  return undefined;
}

/**
 * How long ago a moment was, in the words an access review reads: `just now`, `5 min ago`,
 * `3 h ago`, `yesterday`, `12 days ago`; past 60 days the date.
 */
export function sinceText(at: number, now: number): string {
  const minutes = Math.floor((now - at) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  if (days === 1) return 'yesterday';
  if (days <= 60) return `${days} days ago`;
  return formatTime(at).slice(0, 10);
}

/** How the account signs in: NAP's own password, or the method it comes from (LDAP, RADIUS, OIDC, SAML). */
export function signInText(account: Pick<Account, 'provenance'>): string {
  return account.provenance ?? 'NAP';
}

/** True when NAP keeps the account's password (an account of a sign-in method has none here). */
export function hasNapPassword(account: Pick<Account, 'provenance'>): boolean {
  return account.provenance === undefined;
}

/** The roles a set of groups gives, each once, sorted: what an account in exactly those groups holds. */
export function rolesOf(groupIds: readonly string[], groups: readonly Group[]): RoleName[] {
  const roles = new Set<RoleName>();
  for (const group of groups)
    if (group._id !== undefined && groupIds.includes(group._id)) for (const role of group.roles ?? []) roles.add(role);
  return [...roles].sort();
}

/** The accounts in a group: those whose `groups` hold its id (a group does not list its members). */
export function membersOf<A extends Pick<Account, 'groups'>>(groupId: string, accounts: readonly A[]): A[] {
  return accounts.filter((account) => (account.groups ?? []).includes(groupId));
}

/** True when two lists hold the same members, whatever their order. */
export function sameMembers(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((member) => right.has(member));
}
