import { eventually } from '@nap/testing';
import type { Locator, Page } from 'playwright-core';
import { accessibilityViolations, launchBrowser, logInAs, screenshot } from './support/browser';
import type { ConsoleBrowser } from './support/browser';
import { descriptionOf, expectProblemAt, hasFocus } from './support/fields';
import { startPlatform } from './support/platform';
import type { RunningPlatform } from './support/platform';

/**
 * A person changes their own password from the console's header (`PUT /whoami/password`): each
 * refusal of the platform at the field it concerns, the repeat checked before anything is sent,
 * their other sessions ended and this one going on, and a throttled account told how long to wait,
 * in the dialog and on the login page.
 */

const OPERATOR = { username: 'night-operator', password: 'operator-password-1' } as const;
const HURRIED = { username: 'night-hurried', password: 'hurried-password-1' } as const;
const NEW_PASSWORD = 'fresh-password-2026';

let platform: RunningPlatform;
let browser: ConsoleBrowser;
let page: Page;
/** The group that gives the people of these tests the operations role. */
let operators: string;

beforeAll(async () => {
  [platform, browser] = await Promise.all([startPlatform(), launchBrowser()]);
  const group = await platform.api<{ data: { _id: string } }>('POST', '/user-management/groups', { group: { name: 'operators' } });
  operators = group.data._id;
  await platform.api('PUT', `/user-management/groups/${operators}/roles`, { roles: ['operations'] });
  for (const person of [OPERATOR, HURRIED])
    await platform.api('POST', '/user-management/accounts', { account: { ...person, groups: [group.data._id] } });
  page = await browser.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

function logIn(username: string, password: string): Promise<void> {
  return logInAs(page, platform.url, username, password);
}

async function expectAccessible(): Promise<void> {
  expect(await accessibilityViolations(page)).toEqual([]);
}

async function openDialog(): Promise<Locator> {
  await page.getByRole('banner').getByRole('button', { name: 'Change password' }).click();
  const dialog = page.getByRole('dialog', { name: 'Change password' });
  await dialog.waitFor();
  return dialog;
}

describe('changing one’s own password', () => {
  it('refuses a wrong current password, differing new ones and a too short one at their fields, then changes it and ends the other sessions', async () => {
    const otherSession = await platform.login(OPERATOR.username, OPERATOR.password);
    const sent: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/whoami/password') sent.push(request.method());
    });
    await logIn(OPERATOR.username, OPERATOR.password);
    const dialog = await openDialog();
    const current = dialog.getByLabel('Current password');
    const fresh = dialog.getByLabel('New password', { exact: true });
    const repeat = dialog.getByLabel('Repeat new password');
    await eventually('the current password field focused', () => hasFocus(current));
    for (const [field, autocomplete] of [
      [current, 'current-password'],
      [fresh, 'new-password'],
      [repeat, 'new-password'],
    ] as const) {
      expect(await field.getAttribute('type')).toBe('password');
      expect(await field.getAttribute('autocomplete')).toBe(autocomplete);
    }
    expect(await descriptionOf(fresh)).toMatch(/^At least 12 characters/);
    await expectAccessible();

    // a wrong current password: the platform's refusal at that field, typed over from the keyboard
    await current.fill('not-my-password');
    await fresh.fill(NEW_PASSWORD);
    await repeat.fill(NEW_PASSWORD);
    await dialog.getByRole('button', { name: 'Change password' }).click();
    await expectProblemAt(current, /^The current password of "night-operator" is wrong; the password is unchanged$/);
    expect(sent).toEqual(['PUT']);
    await page.keyboard.type(OPERATOR.password);
    expect(await current.getAttribute('aria-invalid')).toBeNull();

    // new passwords that differ: refused in the browser, nothing sent
    await repeat.fill(`${NEW_PASSWORD}!`);
    await page.keyboard.press('Enter');
    await expectProblemAt(repeat, /^The two new passwords differ/);
    expect(sent).toEqual(['PUT']);

    // a new password the profile's rules refuse: the platform's words at the new password
    await fresh.fill('too-short1');
    await repeat.fill('too-short1');
    await dialog.getByRole('button', { name: 'Change password' }).click();
    await expectProblemAt(fresh, /^At least 12 characters.* The new password is 10 characters long; at least 12 are needed\.$/);
    expect(sent).toEqual(['PUT', 'PUT']);
    await expectAccessible();
    await screenshot(page, 'console-password.png');

    // the change itself
    await fresh.fill(NEW_PASSWORD);
    await repeat.fill(NEW_PASSWORD);
    await dialog.getByRole('button', { name: 'Change password' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page
      .getByRole('status')
      .filter({ hasText: 'Your password is changed. Your other sessions are signed out; this one goes on.' })
      .waitFor();
    // the focus is back on the control that opened the dialog
    await eventually('the focus back on Change password', () =>
      hasFocus(page.getByRole('banner').getByRole('button', { name: 'Change password' })),
    );
    expect(sent).toEqual(['PUT', 'PUT', 'PUT']);
    await expectAccessible();
    await page.getByRole('button', { name: 'Dismiss' }).click();
    await eventually('the notice dismissed', async () => (await page.getByRole('button', { name: 'Dismiss' }).count()) === 0);

    // the other session is over; this one goes on
    await expect(platform.api('GET', '/whoami', undefined, otherSession)).rejects.toThrow(/401/);
    await page.reload();
    await page.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/jobs');

    // the old password no longer logs in, the new one does
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByLabel('Username').fill(OPERATOR.username);
    await page.getByLabel('Password').fill(OPERATOR.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The username or password is wrong.' }).waitFor();
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor();
    await page.getByRole('banner').getByText(OPERATOR.username).waitFor();
  }, 60_000);

  it('tells a person whose wrong current passwords throttled the account how long to wait, and lets them try again after', async () => {
    // a profile that throttles an account after two failed logins, for 2 s at first
    await platform.api('POST', '/profiles', {
      properties: { id: 'quick-throttle', authenticationProps: { loginThrottle: { accountFailures: 2, firstWaitSeconds: 2 } } },
    });
    await platform.api('PUT', '/profiles/quick-throttle/active');
    try {
      await page.getByRole('button', { name: 'Log out' }).click();
      await logIn(HURRIED.username, HURRIED.password);
      const dialog = await openDialog();
      const current = dialog.getByLabel('Current password');
      const submit = dialog.getByRole('button', { name: 'Change password' });
      await dialog.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
      await dialog.getByLabel('Repeat new password').fill(NEW_PASSWORD);
      for (let i = 0; i < 2; i += 1) {
        await current.fill(`wrong-password-${i}`);
        await submit.click();
        await expectProblemAt(current, /is wrong; the password is unchanged$/);
      }
      // the next attempt, the right password included, waits
      await current.fill(HURRIED.password);
      await submit.click();
      await expectProblemAt(current, /^Too many failed logins for username "night-hurried"; try again in [12] seconds?/);
      await dialog.getByText(/^You can try again in [12] s\.$/).waitFor();
      expect(await submit.isDisabled()).toBe(true);
      await expectAccessible();

      await eventually('Change password enabled again', () => submit.isEnabled(), { timeoutMs: 5_000 });
      await submit.click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('status').filter({ hasText: 'Your password is changed.' }).waitFor();
      await platform.login(HURRIED.username, NEW_PASSWORD);
    } finally {
      await platform.api('PUT', '/profiles/default/active');
    }
  }, 60_000);

  it('tells a person whose failed logins throttled the account how long to wait, with Log in disabled until then', async () => {
    const person = { username: 'night-guesser', password: 'guesser-password-1' };
    await platform.api('POST', '/user-management/accounts', { account: { ...person, groups: [operators] } });
    await platform.api('POST', '/profiles', {
      properties: { id: 'login-throttle', authenticationProps: { loginThrottle: { accountFailures: 2, firstWaitSeconds: 2 } } },
    });
    await platform.api('PUT', '/profiles/login-throttle/active');
    try {
      await page.context().clearCookies();
      await page.goto(`${platform.url}/console/login`);
      const logInButton = page.getByRole('button', { name: 'Log in' });
      await page.getByLabel('Username').fill(person.username);
      for (let i = 0; i < 2; i += 1) {
        await page.getByLabel('Password').fill(`wrong-guess-${i}`);
        await logInButton.click();
        await page.getByRole('alert').filter({ hasText: 'The username or password is wrong.' }).waitFor();
      }
      // the next attempt, the right password included, waits: the platform's words, and a countdown
      await page.getByLabel('Password').fill(person.password);
      await logInButton.click();
      await page
        .getByRole('alert')
        .filter({ hasText: /^Too many failed logins for username "night-guesser"; try again in [12] seconds?/ })
        .waitFor();
      await page.getByText(/^You can try again in [12] s\.$/).waitFor();
      expect(await logInButton.isDisabled()).toBe(true);
      await expectAccessible();

      await eventually('Log in enabled again', () => logInButton.isEnabled(), { timeoutMs: 5_000 });
      await logInButton.click();
      await page.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor();
    } finally {
      await platform.api('PUT', '/profiles/default/active');
    }
  }, 60_000);

  it('met no Content-Security-Policy violation and no page error on the way', () => {
    expect(browser.problems()).toEqual([]);
  });
});
