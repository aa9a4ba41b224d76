import type { Account, Group } from '../src/api/people';
import {
  accountState,
  byUsername,
  caseTwins,
  clockTime,
  fullName,
  lockExplanation,
  mayUnlock,
  membersOf,
  readAccountParams,
  rolesOf,
  sameMembers,
  sinceText,
  stateText,
  toAccountQuery,
  writeAccountParams,
} from '../src/pages/people/people-data';

/** The People pages' rules: an account's state and lock in words, its roles, a group's members, the list's URL. */

// the test runs with the machine's time zone: times are built in local time, as the page shows them
const NOW = new Date(2026, 11, 7, 15, 58, 0).getTime();
const MIN = 60_000;
const at = (hours: number, minutes: number, day = 7) => new Date(2026, 11, day, hours, minutes, 0);

function account(members: Partial<Account>): Account {
  return { _id: 'a1', username: 'olga', groups: [], inactive: false, failedLogins: 0, ...members };
}

describe('an account’s state', () => {
  it('is locked until the time the platform gives, with its failed logins, while that time is ahead', () => {
    const state = accountState(account({ failedLogins: 6, lockedUntil: at(16, 5).toISOString() }), NOW);
    expect(state).toEqual({ kind: 'locked', failedLogins: 6, lockedUntil: at(16, 5).getTime() });
    expect(stateText(state, NOW)).toBe('Locked until 16:05 · 6 failed logins');
    expect(lockExplanation(state, NOW)).toBe('6 failed logins; logins are refused until 16:05. Unlock lets them log in at once.');
    expect(mayUnlock(state)).toBe(true);
  });

  it('is active again once the lock’s time has passed, its failures still counted and Unlock still offered', () => {
    const state = accountState(account({ failedLogins: 5, lockedUntil: new Date(NOW - MIN).toISOString() }), NOW);
    expect(state).toEqual({ kind: 'active', failedLogins: 5 });
    expect(stateText(state, NOW)).toBe('Active');
    expect(lockExplanation(state, NOW)).toMatch(/^5 failed logins counted since the last successful one; .* Unlock forgets them\.$/);
    expect(mayUnlock(state)).toBe(true);
  });

  it('is inactive whatever its lock says, and active with nothing to unlock when it has no failure', () => {
    expect(accountState(account({ inactive: true, failedLogins: 6, lockedUntil: at(16, 5).toISOString() }), NOW)).toEqual({
      kind: 'inactive',
      failedLogins: 6,
    });
    const fresh = accountState(account({}), NOW);
    expect(fresh).toEqual({ kind: 'active', failedLogins: 0 });
    expect(mayUnlock(fresh)).toBe(false);
    expect(lockExplanation(fresh, NOW)).toBeUndefined();
    // a record without the count (an older platform) reads as none
    expect(accountState({ inactive: false }, NOW)).toEqual({ kind: 'active', failedLogins: 0 });
  });

  it('says a lock that ends on another day with its date, and one failure in the singular', () => {
    expect(clockTime(at(0, 10, 8).getTime(), NOW)).toBe('2026-12-08 00:10');
    const state = accountState(account({ failedLogins: 1 }), NOW);
    expect(lockExplanation(state, NOW)).toMatch(/^1 failed login counted/);
  });
});

describe('when an account last signed in', () => {
  it('is said from now, in the words an access review reads', () => {
    expect(sinceText(NOW - 20_000, NOW)).toBe('just now');
    expect(sinceText(NOW - 5 * MIN, NOW)).toBe('5 min ago');
    expect(sinceText(NOW - 3 * 60 * MIN - 5 * MIN, NOW)).toBe('3 h ago');
    expect(sinceText(NOW - 30 * 60 * MIN, NOW)).toBe('yesterday');
    expect(sinceText(NOW - 12 * 24 * 60 * MIN, NOW)).toBe('12 days ago');
    expect(sinceText(new Date(2026, 0, 3, 9, 0).getTime(), NOW)).toBe('2026-01-03');
  });
});

describe('names, roles and members', () => {
  const groups: Group[] = [
    { _id: 'g-admins', name: 'admins', roles: ['admin'] },
    { _id: 'g-neteng', name: 'neteng', roles: ['engineering', 'operations'] },
    { _id: 'g-noc', name: 'noc', roles: ['operations'] },
  ];

  it('gives the person’s name from what the account holds', () => {
    expect(fullName({ firstname: 'Olga', lastname: 'Petrova' })).toBe('Olga Petrova');
    expect(fullName({ firstname: 'Olga' })).toBe('Olga');
    expect(fullName({ firstname: ' ', lastname: undefined })).toBe('');
  });

  it('gives the roles of a set of groups, each once and sorted', () => {
    expect(rolesOf(['g-noc', 'g-neteng'], groups)).toEqual(['engineering', 'operations']);
    expect(rolesOf([], groups)).toEqual([]);
    expect(rolesOf(['g-gone'], groups)).toEqual([]);
  });

  it('finds a group’s members among the accounts, since a group does not list them', () => {
    const accounts = [
      account({ _id: 'a1', groups: ['g-noc'] }),
      account({ _id: 'a2', groups: ['g-admins', 'g-noc'] }),
      account({ _id: 'a3' }),
    ];
    expect(membersOf('g-noc', accounts).map((a) => a._id)).toEqual(['a1', 'a2']);
    expect(membersOf('g-neteng', accounts)).toEqual([]);
  });

  it('compares two choices of groups whatever their order', () => {
    expect(sameMembers(['a', 'b'], ['b', 'a'])).toBe(true);
    expect(sameMembers(['a'], ['a', 'b'])).toBe(false);
    expect(sameMembers([], [])).toBe(true);
  });
});

describe('the accounts list’s URL', () => {
  it('keeps only what differs from the default, and reads back what it wrote', () => {
    const params = { username: 'ol', page: 2, limit: 50 };
    const search = writeAccountParams(params);
    expect(search.toString()).toBe('username=ol&page=2&limit=50');
    expect(readAccountParams(search)).toEqual(params);
    expect(writeAccountParams({ username: '', page: 1, limit: 25 }).toString()).toBe('');
    // a page size the list does not offer, or a page that is none, falls back
    expect(readAccountParams(new URLSearchParams('limit=7&page=-1'))).toEqual({ username: '', page: 1, limit: 25 });
  });

  it('asks the platform for one page, filtered by username', () => {
    expect(toAccountQuery({ username: 'ol', page: 3, limit: 25 })).toEqual({
      contains: { username: 'ol' },
      sort: 'username',
      skip: 50,
      limit: 25,
    });
    expect(toAccountQuery({ username: '', page: 1, limit: 100 })).toEqual({ sort: 'username', skip: 0, limit: 100 });
  });
});

describe('the accounts list’s order', () => {
  it('sort a page of accounts by username whatever its case, and point out two usernames alike but for case', () => {
    const accounts = ['olga', 'admin', 'OLGA', 'Bob', 'audrey'].map((username) => ({ username }));
    expect([...accounts].sort(byUsername).map((a) => a.username)).toEqual(['admin', 'audrey', 'Bob', 'OLGA', 'olga']);
    // as the platform's pages come (lower case, then code point): a letter with an accent after z
    expect(
      ['émile', 'Zed', 'Eve']
        .map((username) => ({ username }))
        .sort(byUsername)
        .map((a) => a.username),
    ).toEqual(['Eve', 'Zed', 'émile']);
    expect(caseTwins(accounts)).toEqual(
      new Map([
        ['olga', ['OLGA']],
        ['OLGA', ['olga']],
      ]),
    );
    expect(caseTwins([{ username: 'admin' }, { username: 'audrey' }]).size).toBe(0);
  });
});
