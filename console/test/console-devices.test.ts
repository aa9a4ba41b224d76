import { startCliSimulator } from '@nap/lab';
import type { CliSimulator } from '@nap/lab';
import { eventually } from '@nap/testing';
import type { Page } from 'playwright-core';
import { accessibilityViolations, launchBrowser, logInAs, screenshot } from './support/browser';
import type { ConsoleBrowser } from './support/browser';
import { tabTo } from './support/keyboard';
import { ADMIN, startPlatform } from './support/platform';
import type { RunningPlatform } from './support/platform';

/**
 * The Devices pages in Chromium against a platform started as `npm start` starts it, the devices
 * real SSH peers: two Cisco IOS command-line simulators of `@nap/lab` that log in at `>` and need
 * the enable secret, put in the inventory as docs/devices.md puts them. The list (filters in the
 * URL, paging by the platform, the empty inventory), a device's page (variables with the secrets
 * as the platform masks them, its groups, the host key the gateway trusts), Run commands (outputs,
 * a refused command, a changed host key), Forget key, and what a read-only account and an operator
 * are offered.
 */

const DEVICE_USER = 'netops';
const DEVICE_PASSWORD = `it's a "lab" password`;
const ENABLE_SECRET = 'en-secret-9';
const READER = { username: 'device-reader', password: 'reader-password-1' } as const;
const OPERATOR = { username: 'device-operator', password: 'operator-password-1' } as const;

let platform: RunningPlatform;
let browser: ConsoleBrowser;
let page: Page;
let edge1: CliSimulator;
let edge2: CliSimulator;

async function addAccount(account: { username: string; password: string }, role: string): Promise<void> {
  const group = await platform.api<{ data: { _id: string } }>('POST', '/user-management/groups', { group: { name: `${role}-people` } });
  await platform.api('PUT', `/user-management/groups/${group.data._id}/roles`, { roles: [role] });
  await platform.api('POST', '/user-management/accounts', {
    account: { ...account, firstname: 'Device', lastname: role, email: `${account.username}@example.net`, groups: [group.data._id] },
  });
}

/** One inventory device on a simulator, as docs/devices.md's add_device writes it. */
async function addDevice(name: string, sim: CliSimulator, groups: string[]): Promise<void> {
  await platform.api('POST', '/gw/createInventoryDevice', {
    name,
    groups,
    variables: {
      gw_host: sim.host,
      gw_port: sim.port,
      gw_network_os: 'cisco_ios',
      gw_user: DEVICE_USER,
      gw_password: DEVICE_PASSWORD,
      gw_become: true,
      gw_become_pass: ENABLE_SECRET,
    },
  });
}

/** The fingerprints the gateway trusts for an endpoint, asked over HTTP. */
async function trustedKeys(hostPort: string): Promise<string[]> {
  const page = await platform.api<{ results: { fingerprint: string }[] }>(
    'GET',
    `/gw/knownHosts?equals[hostPort]=${encodeURIComponent(hostPort)}`,
  );
  return page.results.map((entry) => entry.fingerprint);
}

const endpoint = (sim: CliSimulator) => `${sim.host}:${sim.port}`;

/** What the page put on the clipboard (the context may read it: see beforeAll). */
const clipboard = () => page.evaluate<string>('navigator.clipboard.readText()');

beforeAll(async () => {
  const simulator = (hostname: string) =>
    startCliSimulator({
      deviceType: 'cisco_ios',
      hostname,
      username: DEVICE_USER,
      password: DEVICE_PASSWORD,
      enableSecret: ENABLE_SECRET,
      startPrivileged: false,
    });
  [platform, browser, edge1, edge2] = await Promise.all([startPlatform(), launchBrowser(), simulator('sim-edge1'), simulator('sim-edge2')]);
  await addAccount(READER, 'apiread');
  await addAccount(OPERATOR, 'operations');
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: platform.url });
  page = await browser.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  await edge1?.stop();
  await edge2?.stop();
});

async function expectAccessible(): Promise<void> {
  expect(await accessibilityViolations(page)).toEqual([]);
}

const devicesTable = () => page.getByRole('table', { name: 'Devices' });
/** The names the devices table shows, in order. */
const listedNames = () => devicesTable().locator('tbody tr td:first-child').allTextContents();
const runSection = () => page.getByRole('region', { name: 'Run commands' });
/** The Run button, by any of its names (`Run`, `Running…` while the commands run). */
const runButton = () => runSection().getByRole('button', { name: /^Run/ });
const keySection = () => page.getByRole('region', { name: 'Trusted SSH host key' });

async function openDevice(name: string): Promise<void> {
  await page.goto(`${platform.url}/console/devices/${encodeURIComponent(name)}`);
  await page.getByRole('heading', { name, level: 1 }).waitFor();
}

/** Runs the commands from the device's page and waits until the run has ended (the button says Run again). */
async function runCommands(commands: string[]): Promise<void> {
  await runSection().getByLabel('Commands, one a line').fill(commands.join('\n'));
  await runButton().click();
  await runSection().getByRole('heading', { name: 'Output', level: 3 }).waitFor();
  await runSection().getByRole('button', { name: 'Run', exact: true }).waitFor();
}

describe('the Devices pages', () => {
  it('say how to add a device while the inventory is empty (and Workflows how to add the first workflow)', async () => {
    await logInAs(page, platform.url, ADMIN.username, ADMIN.password);
    // on the same fresh platform, Workflows says how the first one comes (not that none matches)
    await page.goto(`${platform.url}/console/workflows`);
    await page.getByText(/^No workflow yet\. Import workflows exported from another platform with nap import workflow FILE/).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Devices' }).click();
    await page.getByRole('heading', { name: 'Devices', level: 1 }).waitFor();
    await page.getByText('The inventory has no device yet.').waitFor();
    await page.getByText('nap create device -f device.json').waitFor();
    await page.getByText('docs/devices.md').waitFor();
    // the pager counts none, rather than a range of none
    expect(await page.getByRole('navigation', { name: 'Pages of devices' }).locator('[aria-live]').textContent()).toBe('0 devices');
    await expectAccessible();

    // a device the inventory does not have: a heading that says so, and the way back to the list
    await page.goto(`${platform.url}/console/devices/core-9`);
    await page.getByRole('heading', { name: 'Device “core-9” not found', level: 1 }).waitFor();
    await page.getByText('No inventory device named "core-9"').waitFor();
    await expectAccessible();
    await page.getByRole('main').getByRole('link', { name: 'Back to the devices' }).click();
    await page.getByRole('heading', { name: 'Devices', level: 1 }).waitFor();
  }, 60_000);

  it('list each device’s network OS, address and groups, filter by name and group in the URL, and link to the device', async () => {
    await addDevice('edge-1', edge1, ['edge', 'lab']);
    await addDevice('edge-2', edge2, ['edge']);
    await page.reload();
    const table = devicesTable();
    await table.getByRole('link', { name: 'edge-2' }).waitFor();
    for (const column of ['Name', 'Network OS', 'Address', 'Groups']) await table.getByRole('columnheader', { name: column }).waitFor();
    expect(await table.getByRole('row').filter({ hasText: 'edge-1' }).getByRole('cell').allTextContents()).toEqual([
      'edge-1',
      'cisco_ios',
      endpoint(edge1),
      'edgelab',
    ]);
    expect(await listedNames()).toEqual(['edge-1', 'edge-2']);
    await page.getByText('1–2 of 2 devices').waitFor();
    await expectAccessible();

    // the name filter, typed: the platform's substring match, kept in the URL
    await page.getByRole('searchbox', { name: 'Name' }).fill('ge-2');
    await eventually('the name in the URL', () => new URL(page.url()).searchParams.get('name') === 'ge-2');
    await eventually('edge-2 alone', async () => JSON.stringify(await listedNames()) === '["edge-2"]');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await eventually('both again', async () => (await listedNames()).length === 2);

    // the group filter offers the inventory's groups with their sizes
    const group = page.getByRole('combobox', { name: 'Group' });
    expect(await group.getByRole('option').allTextContents()).toEqual(['all', 'edge (2)', 'lab (1)']);
    await group.selectOption('lab');
    await eventually('the group in the URL', () => new URL(page.url()).searchParams.get('group') === 'lab');
    await eventually('edge-1 alone', async () => JSON.stringify(await listedNames()) === '["edge-1"]');
    // a link shows the same list
    await page.reload();
    await eventually('edge-1 alone after a reload', async () => JSON.stringify(await listedNames()) === '["edge-1"]');
    expect(await group.inputValue()).toBe('lab');

    // a group of a device leads to the list of its members
    await devicesTable().getByRole('link', { name: 'Group edge' }).click();
    await eventually('the edge group', async () => JSON.stringify(await listedNames()) === '["edge-1","edge-2"]');
    expect(new URL(page.url()).search).toBe('?group=edge');

    await devicesTable().getByRole('link', { name: 'edge-2' }).click();
    await page.getByRole('heading', { name: 'edge-2', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/devices/edge-2');
  }, 60_000);

  it('page the list by the platform', async () => {
    for (let i = 1; i <= 26; i += 1) {
      const name = `rack-${String(i).padStart(2, '0')}`;
      await platform.api('POST', '/gw/createInventoryDevice', {
        name,
        groups: ['rack'],
        variables: { gw_host: `192.0.2.${i}`, gw_network_os: 'arista_eos', gw_user: DEVICE_USER },
      });
    }
    const bodies: unknown[] = [];
    const listed = (request: { method(): string; url(): string; postDataJSON(): unknown }) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/gw/getInventoryDevices') bodies.push(request.postDataJSON());
    };
    page.on('request', listed);
    try {
      await page.goto(`${platform.url}/console/devices?group=rack`);
      await page.getByText('1–25 of 26 devices').waitFor();
      expect(await listedNames()).toHaveLength(25);
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.getByText('26–26 of 26 devices').waitFor();
      expect(await listedNames()).toEqual(['rack-26']);
      expect(new URL(page.url()).searchParams.get('page')).toBe('2');
      expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
      // the platform skipped the first page: the browser never had more than a page
      expect(bodies).toContainEqual({ filter: { group: 'rack' }, sort: 'name', skip: 25, limit: 25 });
    } finally {
      page.off('request', listed);
    }
  }, 60_000);

  it('show a device’s variables with its secrets as the platform masks them, its groups, and no trusted key before its first session', async () => {
    await openDevice('edge-1');
    const variables = page.getByRole('table', { name: 'Variables' });
    const value = (name: string) =>
      variables
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name, exact: true }) })
        .getByRole('cell');
    expect(await value('gw_user').textContent()).toBe(DEVICE_USER);
    expect(await value('gw_port').textContent()).toBe(String(edge1.port));
    expect(await value('gw_password').textContent()).toBe('********secret, masked by the platform');
    expect(await value('gw_become_pass').textContent()).toBe('********secret, masked by the platform');
    expect(await value('gw_become').textContent()).toBe('true');
    // no secret reached the page
    const html = await page.content();
    expect(html).not.toMatch(/lab(&quot;|")\s*password/);
    expect(html).not.toContain(ENABLE_SECRET);
    // the summary: its groups lead to their lists
    await page.getByRole('link', { name: 'Group lab' }).waitFor();
    await keySection().getByText(endpoint(edge1), { exact: true }).waitFor();
    await keySection().getByText('trust on first use').waitFor();
    await keySection().getByText('No key trusted yet: the first session trusts the key it is shown.').waitFor();
    expect(await keySection().getByRole('button', { name: 'Forget key' }).count()).toBe(0);
    await expectAccessible();
  }, 60_000);

  it('run two commands in one session, show each output under its command while saying it runs, copy them, and show the key the session trusted', async () => {
    // the run is held at the browser until the page has been seen running; then it goes to the platform as sent
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/gw/sshSendCommandExec', async (route) => {
      await held;
      await route.continue();
    });
    try {
      await runSection().getByLabel('Commands, one a line').fill('show clock\nshow ip interface brief');
      const run = runButton();
      await run.click();
      await runSection().getByRole('status').filter({ hasText: 'running 2 commands on edge-1' }).waitFor();
      expect(await run.textContent()).toBe('Running…');
      expect(await run.getAttribute('aria-disabled')).toBe('true');
      // the focus stays on the button while it runs
      expect(await run.evaluate((button) => button === button.ownerDocument.activeElement)).toBe(true);
      release();
      await runSection().getByRole('heading', { name: 'Output', level: 3 }).waitFor();
    } finally {
      release();
      await page.unroute('**/gw/sshSendCommandExec');
    }
    await runSection()
      .getByText(/^2 commands ran \(/)
      .waitFor();
    expect(await runButton().textContent()).toBe('Run');
    const clock = runSection().getByRole('group', { name: 'show clock' });
    const brief = runSection().getByRole('group', { name: 'show ip interface brief' });
    await runSection().getByRole('heading', { name: 'show clock', level: 4 }).waitFor();
    await runSection().getByRole('heading', { name: 'show ip interface brief', level: 4 }).waitFor();
    expect(await clock.textContent()).toMatch(/^\*\d\d:\d\d:\d\d\.\d+ UTC /);
    expect(await brief.textContent()).toMatch(/^Interface +IP-Address +OK\? Method Status +Protocol\nGigabitEthernet0\/0 /);
    // the device ran them, in order, after the enable its login needed
    const log = edge1.commandLog();
    expect(log).toContain('enable');
    expect(log.indexOf('show ip interface brief')).toBeGreaterThan(log.indexOf('show clock'));

    // the first session trusted the device's key: the page finds it under the endpoint it works out
    await keySection().getByText(edge1.hostKeyFingerprint, { exact: true }).waitFor();
    await keySection().getByText('Trusted since').waitFor();
    expect(await trustedKeys(endpoint(edge1))).toEqual([edge1.hostKeyFingerprint]);
    await expectAccessible();
    await page.mouse.move(0, 0);
    await screenshot(page, 'console-devices.png');

    await runSection().getByRole('button', { name: 'Copy the output of show clock' }).click();
    await runSection().getByText('Copied the output of show clock').waitFor();
    expect(await clipboard()).toBe(await clock.textContent());
    await runSection().getByRole('button', { name: 'Copy all' }).click();
    await runSection().getByText('Copied every output').waitFor();
    expect(await clipboard()).toBe(
      `### show clock\n${(await clock.textContent()) ?? ''}\n\n### show ip interface brief\n${(await brief.textContent()) ?? ''}`,
    );
  }, 60_000);

  it('show a command the device refuses with its code and message, the outputs before it, and what was not sent (Ctrl+Enter runs)', async () => {
    const before = edge1.commandLog().length;
    const box = runSection().getByLabel('Commands, one a line');
    await box.fill('show clock\nshow bogus\nshow version');
    await box.press('Control+Enter');
    const refusal = runSection()
      .getByRole('alert')
      .filter({ hasText: /^The commands stopped: / });
    await refusal.waitFor();
    const text = (await refusal.textContent()) ?? '';
    expect(text).toContain('reported an error for command "show bogus": % Invalid input detected');
    expect(text).toContain('DEVICE_COMMAND_FAILED');
    await runSection().getByText('Stopped at command 2 of 3: the device reported an error').waitFor();
    expect(await runSection().getByRole('group', { name: 'show clock' }).textContent()).toMatch(/ UTC /);
    expect(await runSection().getByRole('group', { name: 'show bogus' }).textContent()).toContain('% Invalid input detected');
    await runSection().getByText('the device reported an error', { exact: true }).waitFor();
    expect(await runSection().getByRole('heading', { name: 'Not sent' }).count()).toBe(1);
    expect(await runSection().getByRole('listitem').allTextContents()).toEqual(['show version']);
    expect(await runSection().getByRole('group', { name: 'show version' }).count()).toBe(0);
    // the device never saw the command after the refused one
    expect(edge1.commandLog().slice(before)).not.toContain('show version');
    await expectAccessible();
  }, 60_000);

  it('show the gateway’s refusal of a changed host key, and forget the key after a confirmation, so the next session trusts the device again', async () => {
    // the gateway trusts another key for edge-2's address, as after the device was replaced
    const pinned = `SHA256:${'A'.repeat(43)}`;
    await platform.api('PUT', `/gw/knownHosts/${endpoint(edge2)}`, { fingerprint: pinned });
    await openDevice('edge-2');
    await keySection().getByText(pinned, { exact: true }).waitFor();
    const before = edge2.commandLog().length;
    await runCommands(['show clock']);
    const refusal = runSection()
      .getByRole('alert')
      .filter({ hasText: /^The commands did not run on edge-2: / });
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain(
      `presented host key ${edge2.hostKeyFingerprint}, which differs from the trusted key ${pinned}`,
    );
    expect(await refusal.textContent()).toContain('DEVICE_HOST_KEY_CHANGED');
    await runSection()
      .getByText(/^The command did not run \(/)
      .waitFor();
    await runSection().getByText('If the device was replaced, its new key is expected: Forget key').waitFor();
    expect(edge2.commandLog().slice(before)).toEqual([]);
    await expectAccessible();

    // with the keyboard: the dialog says what the next session does
    const forget = keySection().getByRole('button', { name: 'Forget key' });
    await tabTo(page, forget);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Forget the host key of edge-2?' });
    await dialog.getByText('The next session trusts whatever key it is shown').waitFor();
    await dialog.getByText(pinned).waitFor();
    await expectAccessible();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await trustedKeys(endpoint(edge2))).toEqual([pinned]);

    await forget.click();
    await dialog.getByRole('button', { name: 'Forget key' }).click();
    await dialog.waitFor({ state: 'detached' });
    await keySection().getByText('No key trusted yet: the first session trusts the key it is shown.').waitFor();
    await keySection()
      .getByRole('status')
      .filter({ hasText: `The host key of ${endpoint(edge2)} (${pinned}) is no longer trusted.` })
      .waitFor();
    // the focus is not lost with the button: it is on the section that says what happened
    expect(await page.locator(':focus').textContent()).toBe('Trusted SSH host key');
    expect(await trustedKeys(endpoint(edge2))).toEqual([]);

    await runCommands(['show clock']);
    await runSection()
      .getByText(/^1 command ran \(/)
      .waitFor();
    await keySection().getByText(edge2.hostKeyFingerprint, { exact: true }).waitFor();
    expect(await trustedKeys(endpoint(edge2))).toEqual([edge2.hostKeyFingerprint]);
  }, 60_000);

  it('lay out in a window 768 px wide, and a long device name on a phone, without scrolling sideways', async () => {
    const wide = page.viewportSize();
    await page.setViewportSize({ width: 768, height: 800 });
    try {
      const sideways = () => page.locator('html').evaluate((root) => root.scrollWidth - root.clientWidth);
      await page.goto(`${platform.url}/console/devices`);
      await devicesTable().getByRole('link', { name: 'edge-1' }).waitFor();
      expect(await sideways()).toBe(0);
      await openDevice('edge-1');
      await runCommands(['show version', 'show ip interface brief']);
      await runSection().getByRole('group', { name: 'show ip interface brief' }).waitFor();
      expect(await sideways()).toBe(0);
      // every section of the header is still reachable
      for (const name of ['Jobs', 'Devices', 'Audit'])
        expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).isVisible()).toBe(true);
      expect(await page.getByRole('button', { name: 'Log out' }).isVisible()).toBe(true);
      // on a phone, a device named by a long domain name: its name and facts wrap inside the summary
      const fqdn = 'core-router-paris-th2-rack42-unit17-primary.backbone.netops.example.net';
      await platform.api('POST', '/gw/createInventoryDevice', {
        name: fqdn,
        groups: ['paris-backbone-core-routers-primary'],
        variables: { gw_host: '192.0.2.42', gw_network_os: 'cisco_ios', gw_user: 'netops-automation-service-account' },
      });
      await page.setViewportSize({ width: 390, height: 844 });
      await openDevice(fqdn);
      expect(await sideways()).toBe(0);
    } finally {
      if (wide) await page.setViewportSize(wide);
    }
  }, 60_000);

  it('offer a read-only account the pages but neither Run nor Forget key, and an operator Run but not Forget key', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await logInAs(page, platform.url, READER.username, READER.password);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Devices' }).click();
    await devicesTable().getByRole('link', { name: 'edge-1' }).click();
    await page.getByRole('heading', { name: 'edge-1', level: 1 }).waitFor();
    await keySection().getByText(edge1.hostKeyFingerprint, { exact: true }).waitFor();
    await page.getByRole('table', { name: 'Variables' }).waitFor();
    expect(await runSection().count()).toBe(0);
    expect(await page.getByRole('region', { name: 'Check with a command template' }).count()).toBe(0);
    // the checks that ran on it are there to read
    await page.getByRole('region', { name: 'Recent checks' }).getByText('No command template has run on this device yet.').waitFor();
    expect(await page.getByRole('button', { name: 'Run', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Forget key' }).count()).toBe(0);
    await expectAccessible();
    // the platform still decides
    const readerToken = await platform.login(READER.username, READER.password);
    await expect(platform.api('POST', '/gw/sshSendCommandExec', { host: 'edge-1', commands: ['show clock'] }, readerToken)).rejects.toThrow(
      /403/,
    );

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await logInAs(page, platform.url, OPERATOR.username, OPERATOR.password);
    await openDevice('edge-1');
    await keySection().getByText(edge1.hostKeyFingerprint, { exact: true }).waitFor();
    await runCommands(['show clock']);
    await runSection()
      .getByText(/^1 command ran \(/)
      .waitFor();
    expect(await page.getByRole('button', { name: 'Forget key' }).count()).toBe(0);
    const operatorToken = await platform.login(OPERATOR.username, OPERATOR.password);
    await expect(platform.api('DELETE', `/gw/knownHosts/${endpoint(edge1)}`, undefined, operatorToken)).rejects.toThrow(/403/);
  }, 60_000);

  it('met no Content-Security-Policy violation and no page error on the way', () => {
    expect(browser.problems()).toEqual([]);
  });
});
