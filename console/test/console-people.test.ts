import { eventually } from '@nap/testing';
import type { Page } from 'playwright-core';
import { accessibilityViolations, launchBrowser, logInAs, screenshot } from './support/browser';
import type { ConsoleBrowser } from './support/browser';
import { expectProblemAt, hasFocus } from './support/fields';
import { tabTo } from './support/keyboard';
import { ADMIN, startPlatform } from './support/platform';
import type { RunningPlatform } from './support/platform';

/**
 * The People pages in Chromium against a platform started as `npm start` starts it, the data set up
 * through the HTTP interface as an administrator's team would have it: the accounts list (groups,
 * roles, sign-in method, status, last sign-in; the username filter in the URL), New account (a
 * refused short password at its field), an account throttled by real failed logins shown as locked
 * and unlocked from its page, Deactivate and Reactivate, its groups (and the refusal to leave no
 * admin), Set password, Delete; the groups (New group with roles, its roles edited, its members,
 * Delete); and a person who is not an admin kept out.
 */

interface AccountRecord {
  _id: string;
  username: string;
  groups: string[];
  roles: string[];
  inactive: boolean;
  failedLogins: number;
  lockedUntil?: string;
  lastLogin?: string;
}
interface GroupRecord {
  _id: string;
  name: string;
  roles: string[];
}

/** The team: who is in which group, and each one's password. */
const PEOPLE = {
  olga: { firstname: 'Olga', lastname: 'Petrova', groups: ['neteng'], password: 'olga-password-2026' },
  marc: { firstname: 'Marc', lastname: 'Dubois', groups: ['noc'], password: 'marc-password-2026' },
  priya: { firstname: 'Priya', lastname: 'Raman', groups: ['neteng', 'noc'], password: 'priya-password-2026' },
  sam: { firstname: 'Sam', lastname: 'Okafor', groups: ['noc'], password: 'sam-password-2026' },
  jonas: { firstname: 'Jonas', lastname: 'Berg', groups: ['auditors'], password: 'jonas-password-2026' },
  'ci-pipeline': { firstname: 'CI', lastname: 'pipeline', groups: ['automation'], password: 'ci-pipeline-secret-2026' },
} as const;
type Person = keyof typeof PEOPLE;

const GROUPS = [
  { name: 'neteng', description: 'Network engineering: changes and their automations', roles: ['engineering', 'operations'] },
  { name: 'noc', description: 'NOC shifts: run automations, read results', roles: ['operations'] },
  { name: 'auditors', description: 'Compliance: reads the audit trail', roles: ['auditor'] },
  { name: 'automation', description: 'Scripts and CI pipelines', roles: ['apiwrite', 'apiread'] },
] as const;

let platform: RunningPlatform;
let browser: ConsoleBrowser;
let page: Page;
const groupIds = new Map<string, string>();
const accountIds = new Map<string, string>();

/** `POST /login` as a person's browser or script would send it: the answer's status. */
async function loginStatus(username: string, password: string): Promise<number> {
  const res = await fetch(`${platform.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: { username, password } }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Logs in as a browser or a script of that `User-Agent` would: the token of the session it begins. */
async function signIn(username: string, password: string, userAgent: string): Promise<string> {
  const res = await fetch(`${platform.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': userAgent },
    body: JSON.stringify({ user: { username, password } }),
  });
  expect(res.status).toBe(200);
  return (await res.text()).replace(/^"|"$/g, '');
}

async function whoamiStatus(token: string): Promise<number> {
  const res = await fetch(`${platform.url}/whoami`, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  return res.status;
}

const CHROME_ON_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const SAFARI_ON_MACOS =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15';

const accountOf = (username: string) => platform.api<AccountRecord>('GET', `/user-management/accounts/${idOf(username)}`);

function idOf(username: string): string {
  const id = accountIds.get(username);
  if (id === undefined) throw new Error(`no account ${username} in this test`);
  return id;
}

function groupIdOf(name: string): string {
  const id = groupIds.get(name);
  if (id === undefined) throw new Error(`no group ${name} in this test`);
  return id;
}

beforeAll(async () => {
  [platform, browser] = await Promise.all([startPlatform(), launchBrowser()]);
  const groups = await platform.api<{ results: GroupRecord[] }>('GET', '/user-management/groups');
  for (const group of groups.results) groupIds.set(group.name, group._id);
  for (const group of GROUPS) {
    const created = await platform.api<{ data: { _id: string } }>('POST', '/user-management/groups', { group });
    groupIds.set(group.name, created.data._id);
  }
  const admin = await platform.api<{ results: AccountRecord[] }>('GET', '/user-management/accounts?equals[username]=admin');
  accountIds.set('admin', admin.results[0]?._id ?? '');
  for (const [username, person] of Object.entries(PEOPLE)) {
    const created = await platform.api<{ data: { _id: string } }>('POST', '/user-management/accounts', {
      account: {
        username,
        password: person.password,
        firstname: person.firstname,
        lastname: person.lastname,
        ...(username === 'ci-pipeline' ? {} : { email: `${username}@netops.example.net` }),
        groups: person.groups.map(groupIdOf),
      },
    });
    accountIds.set(username, created.data._id);
  }
  // most of the team has signed in; jonas never has
  for (const username of ['olga', 'marc', 'priya', 'sam', 'ci-pipeline'] as const)
    await platform.login(username, PEOPLE[username].password);
  // olga works from her laptop's browser too
  await signIn('olga', PEOPLE.olga.password, CHROME_ON_LINUX);
  // marc has left: his account is kept, inactive
  await platform.api('PATCH', `/authorization/accounts/${idOf('marc')}`, { inactive: true });
  page = await browser.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

async function expectAccessible(): Promise<void> {
  expect(await accessibilityViolations(page)).toEqual([]);
}

const accountsTable = () => page.getByRole('table', { name: 'Accounts' });
const accountRow = (username: string) =>
  accountsTable()
    .getByRole('row')
    .filter({ has: page.getByRole('link', { name: username, exact: true }) });
/** The usernames the accounts table lists, in order. */
const listedUsernames = () => accountsTable().locator('tbody tr td:first-child a').allTextContents();
const notice = () => page.getByRole('status').filter({ hasText: /\S/ });

async function openAccount(username: Person | 'admin' | 'nina'): Promise<void> {
  await page.goto(`${platform.url}/console/people/accounts/${idOf(username)}`);
  await page.getByRole('heading', { name: username, level: 1 }).waitFor();
}

/** The account's state as its page's title shows it (`Active`, `Inactive`, `Locked until 16:05`). */
const stateOnPage = () => page.locator('h1 + [data-status]').textContent();

/**
 * A moment as the console writes it, in the browser's time zone (UTC, set by `launchBrowser`): the
 * time alone on the same day, with the date before it on another day (a lock taken just before
 * midnight ends tomorrow).
 */
const clockOf = (iso: string, now = new Date()) => {
  const at = new Date(iso).toISOString();
  const time = at.slice(11, 16);
  return at.slice(0, 10) === now.toISOString().slice(0, 10) ? time : `${at.slice(0, 10)} ${time}`;
};

describe('the People pages', () => {
  it('list the accounts with their groups, roles, sign-in method, status and last sign-in, filtered by username in the URL', async () => {
    await logInAs(page, platform.url, ADMIN.username, ADMIN.password);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'People' }).click();
    await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
    await accountRow('priya').waitFor();
    for (const column of ['Account', 'Groups', 'Roles', 'Signs in with', 'Status', 'Last sign-in'])
      await accountsTable().getByRole('columnheader', { name: column }).waitFor();
    expect(await listedUsernames()).toEqual(['admin', 'ci-pipeline', 'jonas', 'marc', 'olga', 'priya', 'sam']);
    expect(await accountRow('priya').getByRole('cell').allTextContents()).toEqual([
      'priyaPriya Raman',
      'netengnoc',
      'engineering, operations',
      'NAP',
      'Active',
      'just now',
    ]);
    expect(await accountRow('marc').getByRole('cell').nth(4).textContent()).toBe('Inactive');
    expect(await accountRow('jonas').getByRole('cell').nth(5).textContent()).toBe('never');
    expect(await accountRow('admin').getByRole('cell').nth(2).textContent()).toBe('admin');
    // the time itself is in the title of the relative one
    expect(await accountRow('olga').locator('time').getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    await page.getByText('1–7 of 7 accounts').waitFor();
    // the tabs say where the person is
    const tabs = page.getByRole('navigation', { name: 'People' });
    expect(await tabs.getByRole('link', { name: 'Accounts' }).getAttribute('aria-current')).toBe('page');
    expect(await tabs.getByRole('link', { name: 'Groups' }).getAttribute('aria-current')).toBeNull();
    await expectAccessible();

    // a group leads to its page
    await accountRow('ci-pipeline').getByRole('link', { name: 'Group automation' }).click();
    await page.getByRole('heading', { name: 'automation', level: 1 }).waitFor();
    await page.goBack();

    // the filter, typed: the platform's substring match, kept in the URL
    await page.getByRole('searchbox', { name: 'Username' }).fill('ri');
    await eventually('the username in the URL', () => new URL(page.url()).searchParams.get('username') === 'ri');
    await eventually('priya alone', async () => JSON.stringify(await listedUsernames()) === '["priya"]');
    await page.reload();
    await eventually('priya alone after a reload', async () => JSON.stringify(await listedUsernames()) === '["priya"]');
    expect(await page.getByRole('searchbox', { name: 'Username' }).inputValue()).toBe('ri');
    await page.getByRole('searchbox', { name: 'Username' }).fill('nobody-here');
    await page.getByText('No account’s username contains “nobody-here”.').waitFor();
    await page.getByRole('button', { name: 'Clear filter' }).click();
    await eventually('every account again', async () => (await listedUsernames()).length === 7);
    expect(new URL(page.url()).search).toBe('');
  }, 60_000);

  it('create an account from the keyboard through New account, refusing a short password at its field', async () => {
    const sent: string[] = [];
    const listen = (request: { method(): string; url(): string }) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/user-management/accounts') sent.push(request.method());
    };
    page.on('request', listen);
    try {
      const open = page.getByRole('button', { name: 'New account' });
      await tabTo(page, open);
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'New account' });
      const username = dialog.getByLabel('Username');
      await eventually('the username field focused', () => hasFocus(username));
      // each group says what it gives
      await dialog.getByText('gives operations · NOC shifts: run automations, read results').waitFor();
      await expectAccessible();

      await page.keyboard.type('nina');
      await dialog.getByLabel('First name').fill('Nina');
      await dialog.getByLabel('Last name').fill('Kowalski');
      await dialog.getByLabel('Email').fill('nina@netops.example.net');
      await dialog.getByRole('checkbox', { name: 'noc' }).check();
      await dialog.getByText('With these groups the account holds: operations.').waitFor();
      const password = dialog.getByLabel('Initial password');
      const repeat = dialog.getByLabel('Repeat the password');

      // two passwords that differ: refused in the browser, nothing sent
      await password.fill('nina-first-password');
      await repeat.fill('nina-first-passwort');
      await dialog.getByRole('button', { name: 'Create account' }).click();
      await expectProblemAt(repeat, /^The two passwords differ/);
      expect(sent).toEqual([]);

      // a password the active profile's rules refuse: the platform's words under the field it names
      await password.fill('short-pw-1');
      await repeat.fill('short-pw-1');
      await dialog.getByRole('button', { name: 'Create account' }).click();
      await expectProblemAt(password, /^At least 12 characters.* The password is 10 characters long; at least 12 are needed\.$/);
      expect(sent).toEqual(['POST']);
      await expect(platform.api('GET', '/user-management/accounts?equals[username]=nina')).resolves.toMatchObject({ results: [] });
      await expectAccessible();

      await password.fill('nina-first-password');
      await repeat.fill('nina-first-password');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'nina', level: 1 }).waitFor();
      await notice().filter({ hasText: 'Account “nina” created. It can log in now.' }).waitFor();
      expect(sent).toEqual(['POST', 'POST']);
    } finally {
      page.off('request', listen);
    }
    const created = await platform.api<{ results: AccountRecord[] }>('GET', '/user-management/accounts?equals[username]=nina');
    const nina = created.results[0];
    expect(nina).toMatchObject({ username: 'nina', groups: [groupIdOf('noc')], roles: ['operations'], inactive: false });
    accountIds.set('nina', nina?._id ?? '');
    const token = await platform.login('nina', 'nina-first-password');
    expect(await platform.api('GET', '/whoami', undefined, token)).toMatchObject({ username: 'nina', roles: ['operations'] });
    // the page shows the new account as it is now
    await page.getByRole('link', { name: 'Group noc' }).waitFor();
    expect(await stateOnPage()).toBe('Active');
  }, 60_000);

  it('show an account throttled by failed logins as locked, in the list and on its page, and let it in again with Unlock', async () => {
    for (let i = 0; i < 5; i += 1) expect(await loginStatus('olga', `not-olgas-password-${i}`)).toBe(401);
    // the right password too is refused now
    expect(await loginStatus('olga', PEOPLE.olga.password)).toBe(429);
    const locked = await accountOf('olga');
    expect(locked.failedLogins).toBeGreaterThanOrEqual(5);
    expect(typeof locked.lockedUntil).toBe('string');
    const until = clockOf(locked.lockedUntil ?? '');
    const failures = `${locked.failedLogins} failed logins`;

    await page.goto(`${platform.url}/console/people`);
    const status = accountRow('olga').getByRole('cell').nth(4);
    await status.getByText(`Locked until ${until}`).waitFor();
    expect(await status.textContent()).toBe(`Locked until ${until} · ${failures}`);
    await expectAccessible();
    await page.mouse.move(0, 0);
    await screenshot(page, 'console-people.png');

    await accountRow('olga').getByRole('link', { name: 'olga' }).click();
    await page.getByRole('heading', { name: 'olga', level: 1 }).waitFor();
    expect(await stateOnPage()).toBe(`Locked until ${until}`);
    await page.getByText(`${failures}; logins are refused until ${until}. Unlock lets them log in at once.`).waitFor();
    await expectAccessible();
    await page.mouse.move(0, 0);
    await screenshot(page, 'console-account.png');

    await page.getByRole('button', { name: 'Unlock' }).click();
    await notice().filter({ hasText: 'Account "olga" may log in again at once; its failed logins are forgotten.' }).waitFor();
    await eventually('olga active on her page', async () => (await stateOnPage()) === 'Active');
    expect(await page.getByRole('button', { name: 'Unlock' }).count()).toBe(0);
    // the focus is not lost with the button: it is on the page's title, which the notice follows
    expect(await hasFocus(page.getByRole('heading', { name: 'olga', level: 1 }))).toBe(true);
    expect(await accountOf('olga')).toMatchObject({ failedLogins: 0 });
    expect((await accountOf('olga')).lockedUntil).toBeUndefined();
    expect(await loginStatus('olga', PEOPLE.olga.password)).toBe(200);
  }, 60_000);

  it('list an account’s live sessions (how, when, from where, which client) and end one, then every one after a confirmation', async () => {
    const laptop = await signIn('priya', PEOPLE.priya.password, SAFARI_ON_MACOS);
    const script = await signIn('priya', PEOPLE.priya.password, 'python-requests/2.32.3');
    await openAccount('priya');
    const card = page.getByRole('region', { name: /^Sessions/ });
    const rows = card.getByRole('row');
    // the header and priya's three sessions: the log-in of the team's setup, her laptop, a script
    await eventually('three sessions listed', async () => (await rows.count()) === 4);
    expect(await card.getByRole('heading', { level: 2 }).textContent()).toBe('Sessions 3 live');
    const safari = rows.filter({ hasText: 'Safari 17 on macOS' });
    expect(await safari.getByRole('cell').nth(0).textContent()).toBe('Log-injust now');
    expect(await safari.getByRole('cell').nth(1).textContent()).toBe('Safari 17 on macOS127.0.0.1');
    await rows.filter({ hasText: 'python-requests/2.32.3' }).waitFor();
    await expectAccessible();

    await safari.getByRole('button', { name: /^End the session that began .* from 127\.0\.0\.1$/ }).click();
    await notice()
      .filter({ hasText: /Session [0-9a-f]{24} of "priya" ended; its token is refused from now on\.$/ })
      .waitFor();
    await eventually('two sessions left', async () => (await rows.count()) === 3);
    expect(await whoamiStatus(laptop)).toBe(401);
    expect(await whoamiStatus(script)).toBe(200);

    await card.getByRole('button', { name: 'End every session' }).click();
    const dialog = page.getByRole('dialog', { name: 'End every session of priya?' });
    await dialog.getByText('The 2 sessions of priya end now').waitFor();
    await expectAccessible();
    await dialog.getByRole('button', { name: 'End every session' }).click();
    await dialog.waitFor({ state: 'detached' });
    await notice().filter({ hasText: '2 sessions of "priya" ended; its tokens are refused from now on.' }).waitFor();
    await card.getByText('No live session: no token or browser of priya is signed in now.').waitFor();
    expect(await whoamiStatus(script)).toBe(401);
    // she may log in again
    expect(await loginStatus('priya', PEOPLE.priya.password)).toBe(200);
  }, 60_000);

  it('deactivate an account after a confirmation that says what happens, ending its sessions, and reactivate it', async () => {
    const samSession = await platform.login('sam', PEOPLE.sam.password);
    await openAccount('sam');
    await page.getByRole('button', { name: 'Deactivate' }).click();
    const dialog = page.getByRole('dialog', { name: 'Deactivate sam?' });
    await dialog.getByText('Their sessions end now and they cannot log in').waitFor();
    await expectAccessible();
    // Escape keeps the account as it is
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await accountOf('sam')).toMatchObject({ inactive: false });

    await page.getByRole('button', { name: 'Deactivate' }).click();
    await dialog.getByRole('button', { name: 'Deactivate' }).click();
    await dialog.waitFor({ state: 'detached' });
    await notice().filter({ hasText: 'Account “sam” is inactive: its sessions ended and it cannot log in.' }).waitFor();
    await eventually('sam inactive on his page', async () => (await stateOnPage()) === 'Inactive');
    await page.getByText('Inactive: sam cannot log in, by any method.').waitFor();
    expect(await accountOf('sam')).toMatchObject({ inactive: true });
    expect(await loginStatus('sam', PEOPLE.sam.password)).toBe(401);
    await expect(platform.api('GET', '/whoami', undefined, samSession)).rejects.toThrow(/401/);

    // the same button, now Reactivate, keeps the focus
    const reactivate = page.getByRole('button', { name: 'Reactivate' });
    await reactivate.click();
    await notice().filter({ hasText: 'Account “sam” is active again: it can log in.' }).waitFor();
    await eventually('sam active on his page', async () => (await stateOnPage()) === 'Active');
    expect(await hasFocus(page.getByRole('button', { name: 'Deactivate' }))).toBe(true);
    expect(await loginStatus('sam', PEOPLE.sam.password)).toBe(200);

    // who did it is in the audit trail, one link away
    await page.getByRole('link', { name: 'Its changes in the audit trail' }).click();
    await page.getByRole('heading', { name: 'Audit trail', level: 1 }).waitFor();
    expect(new URL(page.url()).searchParams.get('target')).toBe(idOf('sam'));
    await eventually(
      'both changes of sam listed',
      async () => (await page.getByRole('row').filter({ hasText: 'admin.updateAccount' }).count()) === 2,
    );
  }, 60_000);

  it('change an account’s groups with one Save, and show the refusal to leave the platform without an admin', async () => {
    await openAccount('priya');
    const card = page.getByRole('region', { name: 'Groups' });
    const save = card.getByRole('button', { name: 'Save groups' });
    expect(await save.isDisabled()).toBe(true);
    await card.getByRole('checkbox', { name: 'noc' }).uncheck();
    await card.getByRole('checkbox', { name: 'auditors' }).check();
    await card.getByText('With these groups: auditor, engineering, operations.').waitFor();
    await save.click();
    await notice().filter({ hasText: 'Groups of “priya” saved: auditors, neteng.' }).waitFor();
    const priya = await accountOf('priya');
    expect([...priya.groups].sort()).toEqual([groupIdOf('auditors'), groupIdOf('neteng')].sort());
    expect(priya.roles).toEqual(['auditor', 'engineering', 'operations']);
    // the summary shows the account as it is now
    await page.getByRole('link', { name: 'Group auditors' }).waitFor();
    expect(await page.getByRole('link', { name: 'Group noc' }).count()).toBe(0);
    await eventually('the save done', () => save.isDisabled());

    // the only admin taken out of the admins group: refused, nothing changed
    await openAccount('admin');
    const adminCard = page.getByRole('region', { name: 'Groups' });
    await adminCard.getByRole('checkbox', { name: 'admins' }).uncheck();
    await adminCard.getByRole('button', { name: 'Save groups' }).click();
    const refusal = adminCard.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(
      /^The groups were not changed: The change would leave no active account with the admin role: first give another active account the admin role \(put it in a group that has it\), then make this change \(ACCOUNT_PROTECTED · request \S+\)$/,
    );
    expect(await accountOf('admin')).toMatchObject({ groups: [groupIdOf('admins')], roles: ['admin'] });
    await expectAccessible();
    await adminCard.getByRole('button', { name: 'Undo changes' }).click();
    expect(await adminCard.getByRole('checkbox', { name: 'admins' }).isChecked()).toBe(true);
    expect(await adminCard.getByRole('alert').count()).toBe(0);
    // one's own account offers no Delete
    expect(await page.getByRole('button', { name: 'Delete' }).count()).toBe(0);
  }, 60_000);

  it('set a NAP account’s password, ending its sessions, so that it logs in with the new one', async () => {
    const ninaSession = await platform.login('nina', 'nina-first-password');
    await openAccount('nina');
    await page.getByRole('button', { name: 'Set password' }).click();
    const dialog = page.getByRole('dialog', { name: 'Set the password of nina' });
    await dialog.getByText('Every session of nina ends when the password is set').waitFor();
    const fresh = dialog.getByLabel('New password', { exact: true });
    const repeat = dialog.getByLabel('Repeat the new password');
    await eventually('the new password focused', () => hasFocus(fresh));
    await fresh.fill('too-short1');
    await repeat.fill('too-short1');
    await dialog.getByRole('button', { name: 'Set password' }).click();
    await expectProblemAt(fresh, /The password is 10 characters long; at least 12 are needed\.$/);
    await expectAccessible();
    await fresh.fill('nina-second-password');
    await repeat.fill('nina-second-password');
    await dialog.getByRole('button', { name: 'Set password' }).click();
    await dialog.waitFor({ state: 'detached' });
    await notice().filter({ hasText: 'Password of “nina” set. Every session of the account ended' }).waitFor();
    await expect(platform.api('GET', '/whoami', undefined, ninaSession)).rejects.toThrow(/401/);
    expect(await loginStatus('nina', 'nina-first-password')).toBe(401);
    expect(await loginStatus('nina', 'nina-second-password')).toBe(200);
  }, 60_000);

  it('delete an account once its username is typed', async () => {
    await openAccount('jonas');
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete jonas?' });
    const confirm = dialog.getByLabel('Type jonas to confirm');
    await eventually('the confirmation focused', () => hasFocus(confirm));
    const remove = dialog.getByRole('button', { name: 'Delete account' });
    expect(await remove.isDisabled()).toBe(true);
    await confirm.fill('jona');
    expect(await remove.isDisabled()).toBe(true);
    await expectAccessible();
    await confirm.fill('jonas');
    await remove.click();
    await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
    await notice().filter({ hasText: 'Account "jonas" deleted.' }).waitFor();
    await eventually('jonas gone from the list', async () => !(await listedUsernames()).includes('jonas'));
    await expect(accountOf('jonas')).rejects.toThrow(/404/);
    expect(browser.problems()).toEqual([]);
  }, 60_000);

  it('list the groups with their roles and members, create one with roles, edit its roles, list its members and delete it', async () => {
    await page
      .getByRole('navigation', { name: 'People' })
      .getByRole('link', { name: /^Groups/ })
      .click();
    await page.getByRole('heading', { name: 'Groups', level: 1 }).waitFor();
    expect(await page.getByRole('navigation', { name: 'People' }).getByRole('link', { name: 'Groups' }).getAttribute('aria-current')).toBe(
      'page',
    );
    const table = page.getByRole('table', { name: 'Groups' });
    const row = (name: string) => table.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
    await row('noc').waitFor();
    // member counts come with the accounts, after the list (the cell shows … until then)
    const memberCount = (name: string) => row(name).getByRole('cell').nth(3).textContent();
    await eventually('member counts shown', async () => (await memberCount('noc')) !== '…' && (await memberCount('neteng')) !== '…');
    expect(await row('neteng').getByRole('cell').allTextContents()).toEqual([
      'neteng',
      'Network engineering: changes and their automations',
      'engineering, operations',
      '2',
      'NAP',
    ]);
    // sam and nina (priya left it, marc is inactive but still in it)
    expect(await memberCount('noc')).toBe('3');
    await expectAccessible();
    await page.mouse.move(0, 0);
    await screenshot(page, 'console-groups.png');

    await page.getByRole('button', { name: 'New group' }).click();
    const dialog = page.getByRole('dialog', { name: 'New group' });
    await dialog.getByLabel('Name').fill('change-board');
    await dialog.getByLabel('Description').fill('Reviews and approves changes');
    // each role says what it allows
    await dialog.getByText('Author and change workflows, templates and devices; run automations.').waitFor();
    await dialog.getByRole('checkbox', { name: 'engineering' }).check();
    await expectAccessible();
    await dialog.getByRole('button', { name: 'Create group' }).click();
    await page.getByRole('heading', { name: 'change-board', level: 1 }).waitFor();
    await notice().filter({ hasText: 'Group “change-board” created.' }).waitFor();
    const groups = await platform.api<{ results: GroupRecord[] }>('GET', '/user-management/groups?equals[name]=change-board');
    const board = groups.results[0];
    expect(board).toMatchObject({ name: 'change-board', roles: ['engineering'] });
    groupIds.set('change-board', board?._id ?? '');
    await page.getByText('No account is in this group.').waitFor();

    // a member put in through the interface shows on the group's page, a link to their account
    await platform.api('PUT', `/user-management/accounts/${idOf('priya')}/groups`, {
      groups: [groupIdOf('neteng'), groupIdOf('change-board')],
    });
    await page.reload();
    const members = page.getByRole('table', { name: 'Members' });
    await members.getByRole('link', { name: 'priya' }).waitFor();
    expect(await members.getByRole('row').nth(1).getByRole('cell').allTextContents()).toEqual(['priya', 'Priya Raman', 'Active']);

    // its roles edited and saved with one button
    const card = page.getByRole('region', { name: 'Roles' });
    await card.getByRole('checkbox', { name: 'engineering' }).uncheck();
    await card.getByRole('checkbox', { name: 'apiread' }).check();
    await card.getByRole('button', { name: 'Save roles' }).click();
    await notice().filter({ hasText: 'Roles of “change-board” saved: its members hold apiread.' }).waitFor();
    expect(await platform.api('GET', `/user-management/groups/${groupIdOf('change-board')}`)).toMatchObject({ roles: ['apiread'] });
    expect((await accountOf('priya')).roles).toEqual(['apiread', 'engineering', 'operations']);

    await members.getByRole('link', { name: 'priya' }).click();
    await page.getByRole('heading', { name: 'priya', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Group change-board' }).click();
    await page.getByRole('heading', { name: 'change-board', level: 1 }).waitFor();

    // deleted after a confirmation that names who loses what
    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete the group change-board?' });
    await confirm
      .getByText('Its member (priya) leaves it and loses the roles it gives (apiread), unless another of their groups gives them.')
      .waitFor();
    await expectAccessible();
    await confirm.getByRole('button', { name: 'Delete group' }).click();
    await page.getByRole('heading', { name: 'Groups', level: 1 }).waitFor();
    await notice().filter({ hasText: 'Group "change-board" deleted.' }).waitFor();
    await eventually('change-board gone from the list', async () => (await row('change-board').count()) === 0);
    expect((await accountOf('priya')).groups).toEqual([groupIdOf('neteng')]);
  }, 60_000);

  it('refuse to take the admin role from the only group that gives it to an active account', async () => {
    await page.goto(`${platform.url}/console/people/groups/${groupIdOf('admins')}`);
    await page.getByRole('heading', { name: 'admins', level: 1 }).waitFor();
    const card = page.getByRole('region', { name: 'Roles' });
    await card.getByRole('checkbox', { name: 'admin' }).uncheck();
    await card.getByRole('button', { name: 'Save roles' }).click();
    const refusal = card.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/^The roles were not changed: .*admin role.*\(ACCOUNT_PROTECTED/);
    expect(await platform.api('GET', `/user-management/groups/${groupIdOf('admins')}`)).toMatchObject({ roles: ['admin'] });
  }, 60_000);

  it('lay out in a window 768 px wide without scrolling sideways', async () => {
    const wide = page.viewportSize();
    await page.setViewportSize({ width: 768, height: 800 });
    try {
      const sideways = () => page.locator('html').evaluate((root) => root.scrollWidth - root.clientWidth);
      await page.goto(`${platform.url}/console/people`);
      await accountRow('priya').waitFor();
      expect(await sideways()).toBe(0);
      await openAccount('olga');
      await page.getByRole('region', { name: 'Sign-in' }).waitFor();
      expect(await sideways()).toBe(0);
      await page.goto(`${platform.url}/console/people/groups/${groupIdOf('neteng')}`);
      await page.getByRole('table', { name: 'Members' }).waitFor();
      expect(await sideways()).toBe(0);
    } finally {
      if (wide) await page.setViewportSize(wide);
    }
  }, 60_000);

  it('show no People section to a person who is not an admin, and tell them they may not read it', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await logInAs(page, platform.url, 'sam', PEOPLE.sam.password);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Jobs' }).waitFor();
    expect(await nav.getByRole('link', { name: 'People' }).count()).toBe(0);
    await page.goto(`${platform.url}/console/people`);
    const refusal = page.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/^You may not read accounts and groups: they are for the admin role: .*\(FORBIDDEN/);
    expect(await page.getByRole('table', { name: 'Accounts' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'New account' }).count()).toBe(0);
    await expectAccessible();
  }, 60_000);

  it('met no Content-Security-Policy violation and no page error on the way', () => {
    expect(browser.problems()).toEqual([]);
  });
});
