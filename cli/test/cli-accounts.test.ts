import { rmSync } from 'node:fs';
import type { NapHome, NapResult } from './support/nap';
import { createHome, napInProcess, profileSection } from './support/nap';
import type { Platform } from './support/platform';
import { startPlatform } from './support/platform';
import { VERSION } from '../src/version';

/**
 * An administrator's account chores with `nap`: who is locked out and who has not signed in
 * (`nap get accounts`), letting a locked-out colleague in again (`nap unlock`), and someone who left
 * (`nap disable account`, `nap enable account`). Each test owns its accounts, so that the failed
 * logins one counts do not throttle another.
 */
let platform: Platform;
let h: NapHome;
let groupId: string;
let adminToken: string;

async function login(username: string, password: string): Promise<Response> {
  return fetch(`${platform.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: { username, password } }),
  });
}

async function api<T>(method: string, route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${platform.url}${route}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status).toBeLessThan(300);
  return (await res.json()) as T;
}

/** A local account in a group with the operations role; answers its id. */
async function account(username: string, password: string): Promise<string> {
  const res = await api<{ data: { _id: string } }>('POST', '/user-management/accounts', {
    account: { username, password, groups: [groupId] },
  });
  return res.data._id;
}

async function failLogins(username: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) expect((await login(username, `wrong-password-${i}`)).status).toBe(401);
}

function run(...args: string[]): Promise<NapResult> {
  return napInProcess(args, { env: h.env });
}

/** The row of `nap get accounts` for a username, split on the table's column gaps. */
function rowOf(table: string, username: string): string[] {
  const line = table.split('\n').find((l) => l.startsWith(`${username} `));
  if (line === undefined) throw new Error(`no row for ${username} in:\n${table}`);
  return line.trim().split(/\s{2,}/);
}

beforeAll(async () => {
  platform = await startPlatform('accounts-admin-password');
  const res = await login('admin', platform.password);
  adminToken = (await res.text()).replace(/^"|"$/g, '');
  groupId = (
    await api<{ data: { _id: string } }>('POST', '/user-management/groups', { group: { name: 'cli-operators', roles: ['operations'] } })
  ).data._id;
  h = createHome();
  h.writeNapConfig(profileSection('default', platform.port, platform.password));
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  if (h !== undefined) rmSync(h.home, { recursive: true, force: true });
});

describe('nap get accounts', () => {
  it('shows who is locked out and until when, who is inactive, and when each last signed in', async () => {
    await account('acct-locked', 'locked-password-1');
    await account('acct-never', 'never-password-1');
    await account('acct-signed', 'signed-password-1');
    expect((await login('acct-signed', 'signed-password-1')).status).toBe(200);
    await failLogins('acct-locked', 5);

    const res = await run('get', 'accounts');
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout.split('\n')[0]?.split(/\s{2,}/)).toEqual(['USERNAME', 'ROLES', 'STATUS', 'LAST LOGIN', 'ID']);
    const locked = rowOf(res.stdout, 'acct-locked');
    expect(locked[2]).toMatch(/^locked until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    expect(locked[3]).toBe('never');
    expect(rowOf(res.stdout, 'acct-never').slice(1, 4)).toEqual(['operations', 'active', 'never']);
    const signed = rowOf(res.stdout, 'acct-signed');
    expect(signed[2]).toBe('active');
    expect(Date.now() - Date.parse(signed[3] ?? '')).toBeLessThan(60_000);

    // the document in full has the counts a script reads
    const json = await run('describe', 'account', 'acct-locked', '-o', 'json');
    expect(JSON.parse(json.stdout)).toMatchObject({ username: 'acct-locked', failedLogins: 5, lockedUntil: expect.any(String) });
  });
});

describe('nap unlock', () => {
  it('lets a locked-out account log in at once, saying what it forgot; an account with nothing counted is said so', async () => {
    await account('acct-unlock', 'unlock-password-1');
    await account('acct-clean', 'clean-password-1');
    await failLogins('acct-unlock', 5);
    expect((await login('acct-unlock', 'unlock-password-1')).status).toBe(429);

    const res = await run('unlock', 'acct-unlock', 'acct-clean');
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const [unlocked, clean] = res.stdout.trim().split('\n');
    expect(unlocked).toMatch(
      /^account "acct-unlock" \([0-9a-f-]{36}\) may log in at once: 5 failed logins forgotten \(it was locked until \d{4}-/,
    );
    expect(clean).toMatch(/^account "acct-clean" \([0-9a-f-]{36}\) may log in at once: no failed logins were counted$/);
    expect((await login('acct-unlock', 'unlock-password-1')).status).toBe(200);
  });

  it('says which name it does not know, unlocks the others and exits 1', async () => {
    await account('acct-unlock-2', 'unlock-password-2');
    await failLogins('acct-unlock-2', 5);
    const res = await run('unlock', 'no-such-person', 'acct-unlock-2');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/no-such-person/);
    expect(res.stderr).toMatch(/1 of 2 accounts not unlocked/);
    expect(res.stdout).toMatch(/account "acct-unlock-2" .* may log in at once: 5 failed logins forgotten/);
    expect((await login('acct-unlock-2', 'unlock-password-2')).status).toBe(200);
  });
});

describe('nap disable account and nap enable account', () => {
  it('makes an account inactive (its sessions end, it cannot log in) and active again, and says when nothing changed', async () => {
    const id = await account('acct-leaver', 'leaver-password-1');
    const session = (await (await login('acct-leaver', 'leaver-password-1')).text()).replace(/^"|"$/g, '');
    const whoami = async () => (await fetch(`${platform.url}/whoami`, { headers: { authorization: `Bearer ${session}` } })).status;
    expect(await whoami()).toBe(200);

    const disabled = await run('disable', 'account', 'acct-leaver');
    expect(disabled.stderr).toBe('');
    expect(disabled.stdout).toBe(`account "acct-leaver" (${id}) disabled: it cannot log in, and its sessions have ended\n`);
    expect(await api('GET', `/user-management/accounts/${id}`)).toMatchObject({ inactive: true });
    expect(await whoami()).toBe(401);
    expect((await login('acct-leaver', 'leaver-password-1')).status).toBe(401);
    expect(rowOf((await run('get', 'accounts')).stdout, 'acct-leaver')[2]).toBe('inactive');

    const again = await run('disable', 'account', 'acct-leaver');
    expect(again.stdout).toBe(`account "acct-leaver" (${id}) was already disabled\n`);

    const enabled = await run('enable', 'accounts', 'acct-leaver', '-o', 'json');
    expect(enabled.code).toBe(0);
    expect(JSON.parse(enabled.stdout)).toMatchObject({ _id: id, inactive: false });
    expect((await login('acct-leaver', 'leaver-password-1')).status).toBe(200);
  });

  it('refuses to disable the last active administrator with the platform’s reason', async () => {
    const res = await run('disable', 'account', 'admin');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      /^nap: account "admin" \([0-9a-f-]{36}\) not disabled: The change would leave no active account with the admin role: first give another active account the admin role \(put it in a group that has it\), then make this change \(422 ACCOUNT_PROTECTED\)\n$/,
    );
    expect((await login('admin', platform.password)).status).toBe(200);
  });
});

describe('nap sessions', () => {
  async function signIn(username: string, password: string, userAgent: string): Promise<string> {
    const res = await fetch(`${platform.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': userAgent },
      body: JSON.stringify({ user: { username, password } }),
    });
    expect(res.status).toBe(200);
    return (await res.text()).replace(/^"|"$/g, '');
  }
  const whoami = async (token: string) => (await fetch(`${platform.url}/whoami`, { headers: { authorization: `Bearer ${token}` } })).status;

  it('lists an account’s live sessions with how, when, from where and which client, and ends one, then every one', async () => {
    await account('acct-sessions', 'sessions-password-1');
    const empty = await run('sessions', 'list', 'acct-sessions');
    expect(empty.stdout).toMatch(/^account "acct-sessions" \([0-9a-f-]{36}\) has no live session\n$/);

    const laptop = await signIn(
      'acct-sessions',
      'sessions-password-1',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0.0.0 Safari/537.36',
    );
    const script = await signIn('acct-sessions', 'sessions-password-1', 'python-requests/2.32.3');
    const listed = await run('sessions', 'list', 'acct-sessions');
    expect(listed.stderr).toBe('');
    const lines = listed.stdout
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s{2,}/));
    expect(lines[0]).toEqual(['SESSION', 'HOW', 'STARTED', 'LAST USED', 'FROM', 'CLIENT']);
    expect(lines.slice(1).map((l) => [l[1], l[4], l[5]])).toEqual([
      ['login', '127.0.0.1', 'python-requests/2.32.3'],
      ['login', '127.0.0.1', 'Chrome 131 on Linux'],
    ]);
    const json = (await run('sessions', 'list', 'acct-sessions', '-o', 'json')).json<{ id: string; userAgent: string }[]>();
    const laptopRef = json.find((s) => s.userAgent.includes('Chrome'))?.id ?? '';

    const one = await run('sessions', 'end', 'acct-sessions', laptopRef);
    expect(one.code).toBe(0);
    expect(one.stdout).toBe(`Session ${laptopRef} of "acct-sessions" ended; its token is refused from now on\n`);
    expect(await whoami(laptop)).toBe(401);
    expect(await whoami(script)).toBe(200);

    const gone = await run('sessions', 'end', 'acct-sessions', laptopRef);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/has no live session .* \(404 SESSION_NOT_FOUND\)\n$/);

    const all = await run('sessions', 'end', 'acct-sessions');
    expect(all.stdout).toBe('1 session of "acct-sessions" ended; its tokens are refused from now on\n');
    expect(await whoami(script)).toBe(401);

    // nap names itself: its own session says nap and its release, not undici's `node`
    const own = (await run('sessions', 'list', 'admin', '-o', 'json')).json<{ userAgent?: string }[]>();
    expect(own.map((s) => s.userAgent)).toContain(`nap/${VERSION}`);
  });
});
