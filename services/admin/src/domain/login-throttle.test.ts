import {
  DEFAULT_LOGIN_THROTTLE,
  attemptCounts,
  attemptId,
  countedAddress,
  countedAttempt,
  longestWait,
  loginThrottled,
  passwordProblem,
  secondsToWait,
  waitAfter,
  withFailure,
  withoutFailure,
} from './login-throttle';
import type { AttemptRecord } from './login-throttle';

const rules = DEFAULT_LOGIN_THROTTLE;
const MINUTE = 60_000;

/** `n` failures of `scope`, one a second from `start`, each by its own attempt. */
function failures(n: number, scope: 'account' | 'address', start = 0): AttemptRecord {
  let record: AttemptRecord | null = null;
  for (let i = 0; i < n; i += 1) record = withFailure(record, 'id', scope, `attempt-${i}`, start + i * 1000, rules);
  if (record === null) throw new Error('no failure');
  return record;
}

describe('login throttle arithmetic', () => {
  it('waits nothing below the threshold, then 1, 2, 4, 8 minutes and never more than 15', () => {
    const waits = [4, 5, 6, 7, 8, 9, 10, 40].map((n) => waitAfter(n, 5, rules) / MINUTE);
    expect(waits).toEqual([0, 1, 2, 4, 8, 15, 15, 15]);
  });

  it('makes the fifth failure of a username wait a minute from it, and the fiftieth of an address', () => {
    const four = failures(4, 'account');
    expect(secondsToWait(four, 4000)).toBe(0);
    const five = failures(5, 'account');
    expect(five).toMatchObject({ failures: 5, lastFailureAt: 4000, lockedUntil: 4000 + MINUTE });
    expect(secondsToWait(five, 4000)).toBe(60);
    expect(secondsToWait(five, 4000 + 59_001)).toBe(1);
    expect(secondsToWait(five, 4000 + MINUTE)).toBe(0);
    expect(secondsToWait(failures(49, 'address'), 49_000)).toBe(0);
    expect(secondsToWait(failures(50, 'address'), 49_000)).toBe(60);
  });

  it('forgets a count 15 minutes after its last failure or the end of its wait, whichever is later', () => {
    const two = failures(2, 'account');
    expect(two.expiresAt).toBe(1000 + 15 * MINUTE);
    const again = withFailure(two, 'id', 'account', 'later', two.expiresAt, rules);
    expect(again.failures).toBe(1);
    const locked = failures(5, 'account');
    expect(locked.expiresAt).toBe(locked.lockedUntil + 15 * MINUTE);
  });

  it('gives back a failure counted ahead, and the wait it set when none came after it', () => {
    const four = failures(4, 'account');
    const counted = countedAttempt(four, 'mine', 10_000);
    const five = withFailure(four, 'id', 'account', 'mine', 10_000, rules);
    expect(secondsToWait(five, 10_000)).toBe(60);
    const back = withoutFailure(five, counted, 10_001);
    expect(back).toEqual({ ...four, failures: 4 });
    expect(secondsToWait(back, 10_001)).toBe(0);

    // another failure came after it: that one's wait stays
    const six = withFailure(five, 'id', 'account', 'theirs', 10_000, rules);
    expect(withoutFailure(six, counted, 10_001)).toMatchObject({ failures: 5, lockedUntil: six.lockedUntil, lastAttempt: 'theirs' });

    // the only failure: nothing is left
    const first = withFailure(null, 'id', 'address', 'only', 0, rules);
    expect(withoutFailure(first, countedAttempt(null, 'only', 0), 1)).toBeNull();
  });

  it('refuses an attempt by the count that makes it wait longest', () => {
    const counts = attemptCounts('ana', '203.0.113.7');
    const account = { ...failures(5, 'account'), _id: counts.account };
    const address = { ...failures(51, 'address'), _id: counts.address ?? '' };
    expect(longestWait([account], counts, 10_000)).toEqual({ scope: 'account', retryAfterSeconds: 54 });
    expect(longestWait([account, address], counts, 51_000)).toEqual({ scope: 'address', retryAfterSeconds: 119 });
    expect(longestWait([account, address], counts, 10 * MINUTE)).toBeUndefined();
    expect(attemptCounts('ana', undefined)).toEqual({ account: counts.account });
  });

  it('counts an IPv6 address by its /64 and an IPv4-mapped one as its IPv4 address, however either is written', () => {
    for (const written of ['2001:db8:5:6::1', '2001:0DB8:0005:0006:ffff:ffff:ffff:ffff', '2001:db8:5:6:0:0:192.0.2.1'])
      expect(countedAddress(written)).toBe('2001:db8:5:6::/64');
    expect(countedAddress('2001:db8:5:7::1')).toBe('2001:db8:5:7::/64');
    expect(countedAddress('::1')).toBe('0:0:0:0::/64');
    expect(countedAddress('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    for (const written of ['::ffff:203.0.113.7', '::FFFF:cb00:7107', '0:0:0:0:0:ffff:203.0.113.7'])
      expect(countedAddress(written)).toBe('203.0.113.7');
    expect(countedAddress('203.0.113.7')).toBe('203.0.113.7');
    for (const other of ['not an address', '1:2:3', '1::2::3', '2001:db8::g', '::ffff:203.0.113.300'])
      expect(countedAddress(other)).toBe(other);
    expect(attemptCounts('ana', '2001:db8:5:6::99').address).toBe(attemptId('address', '2001:db8:5:6::/64'));
  });

  it('keeps no username in clear in the id of its count', () => {
    expect(attemptId('account', 'p4ssw0rd-typed-as-username')).not.toContain('p4ssw0rd');
    expect(attemptId('account', 'a')).toBe(attemptId('account', 'a'));
    expect(attemptId('address', '203.0.113.7')).toBe('address:203.0.113.7');
  });

  it('answers 429 with the seconds to wait, in the same words whether or not the account exists', () => {
    const err = loginThrottled('nobody', { scope: 'account', retryAfterSeconds: 60 });
    expect(err).toMatchObject({ code: 'LOGIN_THROTTLED', status: 429, details: { retryAfterSeconds: 60, scope: 'account' } });
    expect(err.message).toBe(
      'Too many failed logins for username "nobody"; try again in 60 seconds, or ask an administrator to unlock the account',
    );
    expect(loginThrottled('x', { scope: 'address', retryAfterSeconds: 1 }).message).toMatch(/from this address; try again in 1 second,/);
  });

  it('names the length a new password has and the one the rules ask for', () => {
    expect(passwordProblem('short-pass', 12)).toBe('is 10 characters long; at least 12 are needed');
    expect(passwordProblem('long-enough-password', 12)).toBeUndefined();
    // characters, not UTF-16 units
    expect(passwordProblem('🔑'.repeat(12), 12)).toBeUndefined();
  });
});
