import os from 'node:os';
import path from 'node:path';
import { freePort } from '@nap/testing';
import type { Page } from 'playwright-core';
import { startOpenIdProvider } from '../../test/support/identity-providers';
import type { OpenIdProviderHandle } from '../../test/support/identity-providers';
import { launchBrowser } from './support/browser';
import type { ConsoleBrowser } from './support/browser';
import { startPlatform } from './support/platform';
import type { RunningPlatform } from './support/platform';

/**
 * Single sign-on from the console's login page, in Chromium: the platform started as `npm start`
 * with its OpenID provider given by `NAP_OIDC_*` (a first start), the provider (oidc-provider)
 * run by the test. "Sign in with Corp SSO", the provider's login and consent pages, and back on
 * the console's jobs page signed in, within the console's Content-Security-Policy.
 */

let op: OpenIdProviderHandle;
let platform: RunningPlatform;
let browser: ConsoleBrowser;
let page: Page;

beforeAll(async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  op = await startOpenIdProvider({
    redirectUri: `${url}/sso/callback`,
    people: { 'alice-sub': { preferred_username: 'alice', given_name: 'Alice', groups: ['nap-admins'] } },
  });
  [platform, browser] = await Promise.all([
    startPlatform(
      {
        NAP_PUBLIC_URL: url,
        NAP_OIDC_ISSUER: op.issuer,
        NAP_OIDC_CLIENT_ID: op.clientId,
        NAP_OIDC_CLIENT_SECRET: op.clientSecret,
        NAP_OIDC_ADMIN_GROUPS: 'nap-admins',
        NAP_OIDC_LABEL: 'Corp SSO',
      },
      { port },
    ),
    launchBrowser(),
  ]);
  page = await browser.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  await op?.stop();
});

describe('single sign-on from the console', () => {
  it('signs in with the identity provider from the login page and lands on the jobs page', async () => {
    await page.goto(`${platform.url}/console/login`);
    const sso = page.getByRole('navigation', { name: 'Single sign-on' });
    await sso.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
    // the identity provider's own pages
    await page.locator('input[name="login"]').fill('alice-sub');
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    // back at the console, signed in
    await page.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/jobs');
    await page.getByText('alice').first().waitFor();
    // the identity provider keeps alice's password: the header offers Log out, not Change password
    const header = page.getByRole('banner');
    await header.getByRole('button', { name: 'Log out' }).waitFor();
    expect(await header.getByRole('button', { name: 'Change password' }).count()).toBe(0);
    const whoami = await page.evaluate(async () => (await fetch('/whoami')).json());
    expect(whoami).toMatchObject({ username: 'alice', provenance: expect.any(String) });
    const cookies = await browser.context.cookies(platform.url);
    expect(cookies.find((c) => c.name === 'token')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(cookies.find((c) => c.name === 'nap_sso')).toBeUndefined();
    expect(browser.problems()).toEqual([]);
  }, 60_000);

  it('brings a person whose sign-in was refused back to the login page, saying so', async () => {
    await browser.context.clearCookies();
    const fresh = await browser.newPage();
    // a sign-in this browser did not begin (its state is not the binding cookie): refused
    await fresh.goto(`${platform.url}/sso/callback?state=not-begun-here&code=x`);
    await fresh.getByRole('heading', { name: /NAP operations console/ }).waitFor();
    expect(new URL(fresh.url()).pathname).toBe('/console/login');
    await expect(fresh.getByRole('alert').textContent()).resolves.toMatch(
      /^Signing in with your identity provider was refused.*Request id: [\w-]+\.$/,
    );
    await fresh.screenshot({ path: path.join(os.tmpdir(), 'nap-console-sso-refused.png') });
    // the form still works from there
    await expect(fresh.getByRole('link', { name: 'Sign in with Corp SSO' }).isVisible()).resolves.toBe(true);
    await fresh.close();
  }, 60_000);
});
