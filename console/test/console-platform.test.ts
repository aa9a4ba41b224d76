import { startOpenApiPeer } from '@nap/lab';
import type { OpenApiPeer } from '@nap/lab';
import { eventually } from '@nap/testing';
import { peerAdapter } from '../../test/support/adapters';
import type { Locator, Page } from 'playwright-core';
import { accessibilityViolations, launchBrowser, logInAs, screenshot } from './support/browser';
import type { ConsoleBrowser } from './support/browser';
import { tabTo } from './support/keyboard';
import { ADMIN, startPlatform } from './support/platform';
import type { RunningPlatform } from './support/platform';

/**
 * The Platform pages in Chromium against a platform started as `npm start` starts it. The adapters
 * are real: HTTP adapters whose connection checks reach the lab's ServiceNow Table peers, one made
 * DEAD by stopping its peer (as services/admin/test/adapters.test.ts does), one stopped by an
 * operator; the integration is an instance of an OpenAPI model imported through the HTTP interface.
 * The page's states are checked against what the platform answers over HTTP.
 */

const OPERATOR = { username: 'platform-operator', password: 'operator-password-1' } as const;

let platform: RunningPlatform;
let browser: ConsoleBrowser;
let page: Page;
/** The system the `servicenow` adapter checks: stopped to make it DEAD, started again to bring it back. */
let snow: OpenApiPeer;
/** The system the other adapters check. */
let lab: OpenApiPeer;

interface Health {
  name: string;
  state: string;
  connection: { state: string };
  lastError: { message: string; at: string } | null;
}

const health = (name: string) => platform.api<Health>('GET', `/health/adapters/${name}`);

/** Waits until the platform reports the adapter so (its health read over HTTP), and answers that health. */
function adapterBecomes(name: string, check: (h: Health) => boolean, what: string): Promise<Health> {
  return eventually(
    `adapter ${name} ${what}`,
    async () => {
      const h = await health(name);
      if (!check(h)) throw new Error(`last read: ${JSON.stringify(h)}`);
      return h;
    },
    { timeoutMs: 15_000 },
  );
}

async function addAccount(account: { username: string; password: string }, role: string): Promise<void> {
  const group = await platform.api<{ data: { _id: string } }>('POST', '/user-management/groups', { group: { name: `${role}-people` } });
  await platform.api('PUT', `/user-management/groups/${group.data._id}/roles`, { roles: [role] });
  await platform.api('POST', '/user-management/accounts', { account: { ...account, groups: [group.data._id] } });
}

beforeAll(async () => {
  [platform, browser, snow, lab] = await Promise.all([startPlatform(), launchBrowser(), startOpenApiPeer(), startOpenApiPeer()]);
  await addAccount(OPERATOR, 'operations');

  // four adapters: servicenow DEAD (its system gone), gitlab STOPPED by an operator, netbox and infoblox RUNNING
  await platform.api('POST', '/adapters', {
    properties: peerAdapter('servicenow', snow, { healthcheck: { intervalSeconds: 0.25, failuresBeforeDead: 3 } }),
  });
  for (const name of ['gitlab', 'netbox', 'infoblox'])
    await platform.api('POST', '/adapters', {
      properties: peerAdapter(name, lab, { healthcheck: { intervalSeconds: 5, failuresBeforeDead: 3 } }),
    });
  for (const name of ['servicenow', 'gitlab', 'netbox', 'infoblox']) await platform.api('PUT', `/adapters/${name}/start`);
  for (const name of ['servicenow', 'gitlab', 'netbox', 'infoblox'])
    await adapterBecomes(name, (h) => h.state === 'RUNNING' && h.connection.state === 'ONLINE', 'RUNNING and ONLINE');
  await platform.api('PUT', '/adapters/gitlab/stop');
  await adapterBecomes('gitlab', (h) => h.state === 'STOPPED', 'STOPPED');
  await snow.stop();
  await adapterBecomes('servicenow', (h) => h.state === 'DEAD', 'DEAD');

  // an integration of an OpenAPI model, its password sealed
  await platform.api('POST', '/integration-models', {
    model: {
      openapi: '3.0.3',
      info: { title: 'ServiceNow Table', version: '2026.1' },
      servers: [{ url: `${lab.url}/api/now` }],
      paths: {
        '/table/{tableName}': {
          get: {
            operationId: 'getRecords',
            parameters: [{ name: 'tableName', in: 'path', required: true, schema: { type: 'string' } }],
            responses: { '200': { description: 'the records' } },
          },
        },
      },
    },
  });
  await platform.api('POST', '/integrations', {
    properties: {
      name: 'snow-tables',
      model: 'ServiceNow Table:2026.1',
      properties: { authentication: { type: 'basic', username: lab.user, password: lab.password } },
    },
  });
  page = await browser.newPage();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  await snow?.close();
  await lab?.close();
});

async function expectAccessible(): Promise<void> {
  expect(await accessibilityViolations(page)).toEqual([]);
}

const summary = () => page.getByRole('region', { name: 'Summary' }).getByRole('status');
const adaptersSection = () => page.getByRole('region', { name: 'Adapters' });
const adaptersTable = () => page.getByRole('table', { name: 'Adapters' });
const adapterRow = (name: string) =>
  adaptersTable()
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${name}\\b`) }) });
/** The adapters the table lists, in order. */
const listedAdapters = () => adaptersTable().locator('tbody th a').allTextContents();
/** A cell of an adapter's row by its column (1: Type, 2: State, 3: Connection). */
const cell = (name: string, column: number) =>
  adapterRow(name)
    .getByRole('cell')
    .nth(column - 1);
const applicationsTable = () => page.getByRole('table', { name: 'Applications' });
const applicationRow = (service: string) =>
  applicationsTable()
    .getByRole('row')
    .filter({ hasText: `service ${service}` });

/** How often the Platform pages read the platform again by themselves (console/src/pages/platform/queries.ts). */
const REFRESH_MS = 10_000;
let clockInstalled = false;

/**
 * Puts the page's timers under the test's hand from the next page loaded on (the clock still runs
 * as the real one does): see {@link refreshNow}.
 */
async function controlPageClock(): Promise<void> {
  if (clockInstalled) return;
  await page.clock.install();
  clockInstalled = true;
}

/**
 * Moves the page's timers over its wait between two reads, so that it reads the platform again
 * by itself now rather than up to 10 s later; its dates stay the real ones.
 */
async function refreshNow(): Promise<void> {
  await page.clock.fastForward(REFRESH_MS);
  await page.clock.setSystemTime(Date.now());
}

async function openPlatform(): Promise<void> {
  await page.goto(`${platform.url}/console/platform`);
  await page.getByRole('heading', { name: 'Platform', level: 1 }).waitFor();
  await adaptersTable().waitFor();
}

describe('the Platform pages', () => {
  it('list the adapters problems first, the applications, the integrations and the server as the platform reports them', async () => {
    await logInAs(page, platform.url, ADMIN.username, ADMIN.password);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Platform' }).click();
    await page.getByRole('heading', { name: 'Platform', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/platform');

    // the summary names what is wrong, problems first
    await summary().filter({ hasText: '1 problem: adapter servicenow DEAD; 1 stopped by an operator: adapter gitlab STOPPED' }).waitFor();
    expect(await summary().getByRole('link', { name: 'servicenow' }).getAttribute('href')).toBe('/console/platform/adapters/servicenow');

    // the DEAD adapter first, then the stopped one, then the running ones by name
    await eventually('the adapters listed', async () => (await listedAdapters()).length === 4);
    expect(await listedAdapters()).toEqual(['servicenow', 'gitlab', 'infoblox', 'netbox']);
    const dead = await health('servicenow');
    expect(dead).toMatchObject({ state: 'DEAD', connection: { state: 'OFFLINE' } });
    expect(await cell('servicenow', 1).textContent()).toBe('HTTP');
    expect(await cell('servicenow', 2).textContent()).toMatch(/^DEADfor \d/);
    // the reason is the platform's own words
    const reason = cell('servicenow', 3);
    expect(await reason.textContent()).toContain(`OFFLINE${dead.lastError?.message ?? 'no last error'}`);
    expect(dead.lastError?.message).toMatch(/could not be reached/);
    await reason.getByText('ADAPTER_NOT_RUNNING').waitFor();
    expect(await cell('gitlab', 2).textContent()).toMatch(/^STOPPEDby admin, (just now|.+ ago)$/);
    for (const name of ['netbox', 'infoblox']) expect(await cell(name, 2).textContent()).toMatch(/^RUNNINGfor \d/);
    expect(await cell('netbox', 3).textContent()).toMatch(/^ONLINE · checked /);
    // the actions each state allows, named with the adapter
    const buttons = (name: string) => adapterRow(name).getByRole('button').allTextContents();
    expect(await buttons('servicenow')).toEqual(['Restart']);
    expect(await buttons('gitlab')).toEqual(['Start']);
    expect(await buttons('netbox')).toEqual(['Restart', 'Stop']);
    await adapterRow('netbox').getByRole('button', { name: 'Stop adapter netbox' }).waitFor();

    // the applications: one row a service, their names and states as GET /applications answers them
    const applications = await platform.api<{ results: { data: { name: string }; metadata: { state: string; service: string } }[] }>(
      'GET',
      '/applications',
    );
    const services = [...new Set(applications.results.map((a) => a.metadata.service))];
    expect(await applicationsTable().locator('tbody tr').count()).toBe(services.length);
    for (const service of services) {
      const names = applications.results.filter((a) => a.metadata.service === service).map((a) => a.data.name);
      const row = applicationRow(service);
      expect(await row.getByRole('rowheader').textContent()).toBe(
        `${names.sort((a, b) => a.localeCompare(b)).join(', ')}service ${service}`,
      );
      expect(await row.getByRole('cell').first().textContent()).toMatch(/^RUNNINGfor \d/);
      expect(await row.getByRole('cell').nth(1).textContent()).toBe('1 of 1 running');
    }
    // the admin service serves log-in and this page: it offers no stop
    expect(await applicationRow('admin').getByRole('button').count()).toBe(0);
    await applicationRow('admin').getByText('Serves log-in: it cannot be stopped.').waitFor();
    expect(await applicationRow('mop').getByRole('button').allTextContents()).toEqual(['Restart', 'Stop']);

    // the integration, its server and model; the server as /health/server answers
    const integration = page.getByRole('table', { name: 'Integrations' }).getByRole('row').filter({ hasText: 'snow-tables' });
    expect(await integration.getByRole('cell').allTextContents()).toEqual(['ServiceNow Table:2026.1authentication: basic', 'ACTIVE']);
    await integration.getByText(`${lab.url}/api/now`).waitFor();
    const server = await platform.api<{ release: string; node: string }>('GET', '/health/server');
    const facts = page.getByRole('region', { name: 'Server' });
    await facts.getByText(server.release, { exact: true }).waitFor();
    await facts.getByText(server.node, { exact: true }).waitFor();
    await page.getByText(/^Updated \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · refreshes every 10 s$/).waitFor();
    // no secret reached the page
    expect(await page.content()).not.toContain(lab.password);
    await expectAccessible();
    await page.mouse.move(0, 0);
    await screenshot(page, 'console-platform.png');
  }, 60_000);

  it('show an adapter’s state, its reason and its properties with the secrets masked, and change its log level', async () => {
    await adapterRow('servicenow').getByRole('link', { name: 'servicenow' }).click();
    await page.getByRole('heading', { name: 'servicenow', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/platform/adapters/servicenow');
    const dead = await health('servicenow');
    await page.getByText(`DEAD after 3 failed connection checks in a row`).waitFor();
    await page.getByText(dead.lastError?.message ?? 'no last error').waitFor();
    await page.getByText(`GET http://127.0.0.1:${snow.port}/stats.do`).waitFor();

    // the properties as the platform answers them: the password masked, never revealed
    const properties = page.getByLabel('Properties of servicenow');
    const shown = JSON.parse((await properties.textContent()) ?? '{}') as Record<string, unknown>;
    const answered = await platform.api<{ data: { properties: unknown } }>('GET', '/adapters/servicenow');
    expect(shown).toEqual(answered.data.properties);
    expect(shown).toMatchObject({ properties: { authentication: { username: snow.user, password: '********' } } });
    expect(await page.getByRole('region', { name: 'Properties' }).getByRole('code').allTextContents()).toEqual([
      'properties.authentication.password',
    ]);
    expect(await page.content()).not.toContain(snow.password);

    // the changelog the platform keeps
    const changelog = page.getByRole('table', { name: 'Changelog' });
    expect(await changelog.getByRole('row').nth(1).getByRole('cell').allTextContents()).toEqual([
      '1',
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      'created by admin',
    ]);

    // the log level, with the keyboard: none set, then debug
    const logLevel = page.getByRole('region', { name: 'Log level' });
    await logLevel.getByText('None set: the adapter logs at the admin service’s level.').waitFor();
    const select = logLevel.getByLabel('Level');
    // none set, none shown as if it were: nothing to set until a level is chosen
    expect(await select.inputValue()).toBe('');
    expect(await logLevel.getByRole('button', { name: 'Set level' }).isDisabled()).toBe(true);
    await tabTo(page, select);
    await select.selectOption('debug');
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').textContent()).toBe('Set level');
    await page.keyboard.press('Enter');
    await logLevel.getByRole('status').filter({ hasText: 'Log level of servicenow set to debug.' }).waitFor();
    const after = await platform.api<{ data: { loggerProps: Record<string, unknown> } }>('GET', '/adapters/servicenow');
    expect(after.data.loggerProps).toMatchObject({ console_level: 'debug', log_level: 'debug' });
    await logLevel.getByText('It logs at debug').waitFor();
    expect(await logLevel.getByRole('button', { name: 'Set level' }).isDisabled()).toBe(true);
    await expectAccessible();
    // the keyboard's way to the select scrolled the page: the picture shows it from its top
    await page.evaluate('window.scrollTo(0, 0)');
    await page.mouse.move(0, 0);
    await screenshot(page, 'console-adapter.png');

    // on a phone: its state and what an operator acts on (Restart, the log level) before the long properties
    const wide = page.viewportSize();
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      const top = async (locator: Locator): Promise<number> => (await locator.boundingBox())?.y ?? Number.NaN;
      const state = await top(page.getByRole('heading', { name: 'servicenow', level: 1 }));
      const restart = await top(page.getByRole('button', { name: /^Restart/ }));
      const level = await top(page.getByRole('region', { name: 'Log level' }));
      const properties = await top(page.getByRole('region', { name: 'Properties' }));
      expect(state).toBeLessThan(restart);
      expect(restart).toBeLessThan(level);
      expect(level).toBeLessThan(properties);
      expect(await page.locator('html').evaluate((root) => root.scrollWidth - root.clientWidth)).toBe(0);
    } finally {
      if (wide) await page.setViewportSize(wide);
    }
  }, 60_000);

  it('stop an adapter after a confirmation that says what happens, and start it again', async () => {
    await openPlatform();
    // with the keyboard: the dialog says what stopping does; Escape changes nothing
    const stop = adapterRow('netbox').getByRole('button', { name: 'Stop adapter netbox' });
    await tabTo(page, stop);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Stop adapter netbox?' });
    await dialog.getByText('fails at once with').waitFor();
    await dialog.getByText('ADAPTER_NOT_RUNNING').waitFor();
    await dialog.getByText('It stays stopped, across restarts of the platform, until someone starts it.').waitFor();
    // its paragraphs wrap inside it: opened from a cell kept on one line, they ran on past its right edge
    expect(
      await dialog.evaluate((element) =>
        [element, ...element.querySelectorAll('p')].filter((e) => e.scrollWidth > e.clientWidth).map((e) => e.textContent?.slice(0, 40)),
      ),
    ).toEqual([]);
    await expectAccessible();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.locator(':focus').getAttribute('aria-label')).toBe('Stop adapter netbox');
    expect((await health('netbox')).state).toBe('RUNNING');

    await stop.click();
    await dialog.getByRole('button', { name: 'Stop adapter' }).click();
    await dialog.waitFor({ state: 'detached' });
    await adaptersSection()
      .getByRole('status')
      .filter({ hasText: /^Adapter netbox stopped: STOP(PING|PED)/ })
      .waitFor();
    // the platform reports it STOPPED, and so does the page, with who stopped it
    await adapterBecomes('netbox', (h) => h.state === 'STOPPED' && h.connection.state === 'UNKNOWN', 'STOPPED');
    await cell('netbox', 2)
      .getByText(/^by admin, /)
      .waitFor();
    expect(await cell('netbox', 2).textContent()).toMatch(/^STOPPED/);
    await summary().filter({ hasText: '2 stopped by an operator: adapter gitlab STOPPED, adapter netbox STOPPED' }).waitFor();
    // the button used is gone with the state: the focus is on the section, which says what happened
    expect(await page.locator(':focus').textContent()).toBe('Adapters');

    await adapterRow('netbox').getByRole('button', { name: 'Start adapter netbox' }).click();
    await adaptersSection()
      .getByRole('status')
      .filter({ hasText: 'Adapter netbox started: STARTING, RUNNING after its first connection check.' })
      .waitFor();
    await adapterBecomes('netbox', (h) => h.state === 'RUNNING' && h.connection.state === 'ONLINE', 'RUNNING and ONLINE again');
    await eventually('netbox RUNNING on the page', async () => /^RUNNING/.test((await cell('netbox', 2).textContent()) ?? ''));
    await cell('netbox', 3).getByText('ONLINE').waitFor();
    await summary().filter({ hasText: '1 stopped by an operator: adapter gitlab STOPPED' }).waitFor();
  }, 60_000);

  it('restart a DEAD adapter: DEAD again while its system is down, RUNNING once it answers', async () => {
    await controlPageClock();
    await openPlatform();
    const restart = adapterRow('servicenow').getByRole('button', { name: 'Restart adapter servicenow' });
    await restart.click();
    const dialog = page.getByRole('dialog', { name: 'Restart adapter servicenow?' });
    await dialog.getByText(`GET http://127.0.0.1:${snow.port}/stats.do every 0.25 s`, { exact: false }).waitFor();
    await dialog.getByText('it is DEAD again after 3 failed checks in a row', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Restart adapter' }).click();
    await dialog.waitFor({ state: 'detached' });
    await adaptersSection().getByRole('status').filter({ hasText: 'Adapter servicenow restarted: STARTING' }).waitFor();
    // its system is still down: the platform's checks fail again, and the page says so
    const before = Date.now();
    await adapterBecomes('servicenow', (h) => h.state === 'DEAD' && Date.parse(h.lastError?.at ?? '') >= before - 1000, 'DEAD again');
    await refreshNow();
    await summary().filter({ hasText: '1 problem: adapter servicenow DEAD' }).waitFor();
    expect((await listedAdapters())[0]).toBe('servicenow');

    // the system answers again: a restart brings the adapter back
    await snow.restart();
    await adapterRow('servicenow').getByRole('button', { name: 'Restart adapter servicenow' }).click();
    await dialog.getByRole('button', { name: 'Restart adapter' }).click();
    await adapterBecomes('servicenow', (h) => h.state === 'RUNNING' && h.connection.state === 'ONLINE', 'RUNNING and ONLINE');
    await refreshNow();
    await cell('servicenow', 3).getByText('ONLINE').waitFor();
    await summary()
      .filter({ hasText: /^1 stopped by an operator: adapter gitlab STOPPED$/ })
      .waitFor();
    expect(await listedAdapters()).toEqual(['gitlab', 'infoblox', 'netbox', 'servicenow']);
  }, 60_000);

  it('stop and start an application’s service, naming the applications that stop with it', async () => {
    await openPlatform();
    await applicationRow('mop').getByRole('button', { name: 'Stop MOP' }).click();
    const dialog = page.getByRole('dialog', { name: 'Stop application MOP?' });
    await dialog.getByText('503 SERVICE_UNAVAILABLE').waitFor();
    await dialog.getByRole('button', { name: 'Stop MOP' }).click();
    await dialog.waitFor({ state: 'detached' });
    const mop = () => platform.api<{ metadata: { state: string } }>('GET', '/applications/MOP');
    await eventually('MOP STOPPED', async () => (await mop()).metadata.state === 'STOPPED');
    // its routes answer 503 while it is stopped
    await expect(platform.api('GET', '/mop/listTemplates')).rejects.toThrow(/503/);
    await summary().filter({ hasText: 'stopped by an operator: application MOP STOPPED' }).waitFor();
    expect(await applicationRow('mop').getByRole('cell').first().textContent()).toMatch(/^STOPPEDStopped by an operator/);
    expect(await applicationRow('mop').getByRole('cell').nth(1).textContent()).toBe('0 of 1 running (1 paused)');
    // a stopped service comes first
    expect(await applicationsTable().locator('tbody tr').first().textContent()).toContain('service mop');

    await applicationRow('mop').getByRole('button', { name: 'Start MOP' }).click();
    await page.getByRole('region', { name: 'Applications' }).getByRole('status').filter({ hasText: 'MOP started: RUNNING' }).waitFor();
    await eventually('MOP RUNNING', async () => (await mop()).metadata.state === 'RUNNING');
    await platform.api('GET', '/mop/listTemplates');
    await eventually('MOP RUNNING on the page', async () =>
      /^RUNNING/.test((await applicationRow('mop').getByRole('cell').first().textContent()) ?? ''),
    );
    // running again since the Start: not since its process began (the record's time), which Stop and Start leave running
    const record = await platform.api<{ instances: { started?: string }[] }>('GET', '/applications/MOP');
    const processAge = (Date.now() - Date.parse(record.instances[0]?.started ?? '')) / 1000;
    const state = (await applicationRow('mop').getByRole('cell').first().textContent()) ?? '';
    // "for 850 ms", "for 3 s"
    const since = /for (?:(\d+) s|\d+ ms)/.exec(state);
    expect({ state, matched: since !== null }).toEqual({ state, matched: true });
    expect(Number(since?.[1] ?? 0)).toBeLessThan(Math.min(30, processAge - 5));
  }, 60_000);

  it('follow changes by itself, without a reload', async () => {
    await controlPageClock();
    await openPlatform();
    await page.evaluate('window.__samePage = true');
    // another administrator stops infoblox with the command line's route
    await platform.api('PUT', '/adapters/infoblox/stop');
    await adapterBecomes('infoblox', (h) => h.state === 'STOPPED', 'STOPPED');
    // the page's next read, without the 10 s wait
    await refreshNow();
    await eventually('infoblox STOPPED on the page', async () => /^STOPPED/.test((await cell('infoblox', 2).textContent()) ?? ''));
    await summary().filter({ hasText: '2 stopped by an operator: adapter gitlab STOPPED, adapter infoblox STOPPED' }).waitFor();
    expect(await page.evaluate('window.__samePage')).toBe(true);
    await platform.api('PUT', '/adapters/infoblox/start');
    await adapterBecomes('infoblox', (h) => h.state === 'RUNNING', 'RUNNING');
    await refreshNow();
    await eventually('infoblox RUNNING on the page', async () => /^RUNNING/.test((await cell('infoblox', 2).textContent()) ?? ''));
    expect(await page.evaluate('window.__samePage')).toBe(true);
  }, 60_000);

  it('keep what it read when a refresh is refused, and show the platform’s refusal of an action', async () => {
    await controlPageClock();
    await page.goto(`${platform.url}/console/platform/adapters/gitlab`);
    await page.getByRole('heading', { name: 'gitlab', level: 1 }).waitFor();
    // someone deletes the adapter while its page is open
    await platform.api('DELETE', '/adapters/gitlab');
    await refreshNow();
    const failed = page.getByRole('alert').filter({ hasText: 'Refreshing failed' });
    await failed.waitFor();
    expect(await failed.textContent()).toMatch(/No adapter "gitlab" \(it was deleted\) \(ADAPTER_NOT_FOUND · request [\w-]+\)/);
    // what it read stays
    await page.getByLabel('Properties of gitlab').waitFor();
    await page.getByRole('button', { name: 'Start adapter gitlab' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Adapter gitlab was not started: Adapter "gitlab" is DELETED; create it again to use it (ADAPTER_STATE_CONFLICT' })
      .waitFor();
    await expectAccessible();
  }, 60_000);

  it('lay out in a window 768 px wide without scrolling sideways', async () => {
    const wide = page.viewportSize();
    await page.setViewportSize({ width: 768, height: 800 });
    try {
      const sideways = (selector: string) =>
        page
          .locator(selector)
          .first()
          .evaluate((element) => element.scrollWidth - element.clientWidth);
      await openPlatform();
      await applicationsTable().waitFor();
      expect(await sideways('html')).toBe(0);
      // every table fits its card: no column, and no action, is hidden behind a scroll
      for (const name of ['Adapters', 'Applications', 'Integrations'])
        expect(
          await page.getByRole('table', { name }).evaluate((table) => table.parentElement!.scrollWidth - table.parentElement!.clientWidth),
        ).toBe(0);
      // a version reads on one line (it wrapped inside, "2026.1." over "0")
      expect(
        await applicationRow('mop')
          .getByRole('cell')
          .nth(2)
          .evaluate((cell) => {
            const range = cell.ownerDocument.createRange();
            range.selectNodeContents(cell);
            return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
          }),
      ).toBe(1);
      await page.goto(`${platform.url}/console/platform/adapters/servicenow`);
      await page.getByRole('heading', { name: 'servicenow', level: 1 }).waitFor();
      expect(await sideways('html')).toBe(0);
    } finally {
      if (wide) await page.setViewportSize(wide);
    }
  }, 60_000);

  it('are not offered to an account without the admin role, and say so at their address', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await logInAs(page, platform.url, OPERATOR.username, OPERATOR.password);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Jobs' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Platform' }).count()).toBe(0);
    for (const address of ['/console/platform', '/console/platform/adapters/servicenow']) {
      await page.goto(`${platform.url}${address}`);
      await page.getByRole('heading', { name: 'Platform', level: 1 }).waitFor();
      const refusal = page.getByRole('alert');
      await refusal.filter({ hasText: 'You may not read the platform’s state' }).waitFor();
      expect(await refusal.textContent()).toMatch(
        /GET \/applications needs one of the roles admin; the caller has operations \(FORBIDDEN · request /,
      );
      await page.getByText('Your roles are operations.').waitFor();
      expect(await page.getByRole('button', { name: /^(Stop|Start|Restart)/ }).count()).toBe(0);
    }
    await expectAccessible();
    // the platform decides: its routes refuse the operator
    const token = await platform.login(OPERATOR.username, OPERATOR.password);
    await expect(platform.api('PUT', '/adapters/netbox/stop', undefined, token)).rejects.toThrow(/403/);
  }, 60_000);

  it('met no Content-Security-Policy violation and no page error on the way', () => {
    expect(browser.problems()).toEqual([]);
  });
});
