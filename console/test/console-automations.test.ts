import { eventually } from '@nap/testing';
import type { Locator, Page } from 'playwright-core';
import { accessibilityViolations, launchBrowser, logInAs, screenshot } from './support/browser';
import type { ConsoleBrowser } from './support/browser';
import { ADMIN, startPlatform } from './support/platform';
import type { RunningPlatform } from './support/platform';
import { CHECK, createWorkflows } from './support/workflows';

/**
 * The Automations page during a change freeze, in Chromium against a platform started as `npm
 * start` starts it: which schedules start jobs next and when (the Coming up card, each trigger's
 * next run and last job), disabling a schedule and enabling it again, the platform's refusal to
 * enable an event trigger imported on an event it does not publish, and an operator who sees the
 * times but may not change triggers.
 */

const OPERATOR = { username: 'night-operator', password: 'operator-password-1' } as const;
const MIN = 60_000;

interface StoredTrigger {
  _id: string;
  name: string;
  enabled: boolean;
  nextRunAt?: number | null;
  lastExecuted?: number | null;
}

let platform: RunningPlatform;
let browser: ConsoleBrowser;
let page: Page;
/** The first run of the hourly schedule: a few minutes ahead, on a whole minute. */
let hourlyAt: number;
/** The first run of the config backup: three hours ahead. */
let backupAt: number;
const ids: Record<string, string> = {};
let backupsId: string;

/** A time as the console writes it on the browser's clock (UTC here: see launchBrowser). */
const exact = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

async function createTrigger(body: Record<string, unknown>): Promise<string> {
  const answer = await platform.api<{ data: StoredTrigger }>('POST', '/operations-manager/triggers', body);
  ids[answer.data.name] = answer.data._id;
  return answer.data._id;
}

const getTrigger = async (name: string) =>
  (await platform.api<{ data: StoredTrigger }>('GET', `/operations-manager/triggers/${ids[name] ?? ''}`)).data;

beforeAll(async () => {
  [platform, browser] = await Promise.all([startPlatform(), launchBrowser()]);
  await createWorkflows(platform, CHECK);
  const audit = await platform.api<{ data: { _id: string } }>('POST', '/operations-manager/automations', {
    automation: { name: 'Interface audit', description: 'Checks the core interfaces', componentName: 'Interface check' },
  });
  const backups = await platform.api<{ data: { _id: string } }>('POST', '/operations-manager/automations', {
    automation: { name: 'Config backup', componentName: 'Interface check' },
  });
  backupsId = backups.data._id;
  const alarms = await platform.api<{ data: { _id: string } }>('POST', '/operations-manager/automations', {
    automation: { name: 'Alarm intake', description: 'Imported from the old platform', componentName: 'Interface check' },
  });
  const now = Date.now();
  hourlyAt = Math.ceil((now + 8 * MIN) / MIN) * MIN;
  backupAt = Math.ceil((now + 3 * 60 * MIN) / MIN) * MIN;
  await createTrigger({ name: 'On demand', type: 'manual', actionId: audit.data._id, formData: { mode: 'success' } });
  await createTrigger({
    name: 'Hourly interface check',
    type: 'schedule',
    actionId: audit.data._id,
    firstRunAt: hourlyAt,
    repeatUnit: 'hour',
    repeatFrequency: 1,
    formData: { mode: 'success' },
  });
  await createTrigger({
    name: 'Nightly backup',
    type: 'schedule',
    actionId: audit.data._id,
    enabled: false,
    firstRunAt: now + 5 * 60 * MIN,
    repeatUnit: 'day',
    repeatFrequency: 1,
    formData: { mode: 'success' },
  });
  await createTrigger({
    name: 'Running config backup',
    type: 'schedule',
    actionId: backups.data._id,
    firstRunAt: backupAt,
    repeatUnit: 'day',
    repeatFrequency: 1,
    formData: { mode: 'success' },
  });
  // an event trigger of another platform's adapter: imported, it comes in disabled
  const imported = await platform.api<{ imported: { success: boolean; created: StoredTrigger | null; message: string }[] }>(
    'PUT',
    '/operations-manager/triggers',
    { triggers: [{ name: 'On Kafka alarm', type: 'eventSystem', actionId: alarms.data._id, topic: 'kafka.alarms.raised' }] },
  );
  const created = imported.imported[0]?.created;
  if (!created) throw new Error(`The event trigger was not imported: ${JSON.stringify(imported)}`);
  expect(created.enabled).toBe(false);
  ids[created.name] = created._id;
  // the manual trigger starts a job: its line says when
  await platform.api('POST', `/operations-manager/triggers/manual/${ids['On demand'] ?? ''}/run`, { formData: { mode: 'success' } });

  const group = await platform.api<{ data: { _id: string } }>('POST', '/user-management/groups', { group: { name: 'operators' } });
  await platform.api('PUT', `/user-management/groups/${group.data._id}/roles`, { roles: ['operations'] });
  await platform.api('POST', '/user-management/accounts', {
    account: { ...OPERATOR, firstname: 'Night', lastname: 'Operator', email: 'operator@example.net', groups: [group.data._id] },
  });
  page = await browser.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

async function expectAccessible(): Promise<void> {
  expect(await accessibilityViolations(page)).toEqual([]);
}

const comingUp = () => page.getByRole('region', { name: 'Coming up' });
/** The schedules the Coming up card lists, soonest first (their Schedule cells). */
const comingNames = () => comingUp().locator('tbody tr td:nth-child(4)').allTextContents();
/** A trigger's line in the automations table. */
const line = (name: string): Locator =>
  page
    .getByRole('table', { name: 'Automations and their triggers' })
    .getByRole('listitem')
    .filter({ has: page.getByText(name, { exact: true }) });
const toggles = () => page.getByRole('button', { name: /^(Enable|Disable|Enabling|Disabling) / });

async function openAutomations(): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Automations' }).click();
  await page.getByRole('heading', { name: 'Automations', level: 1 }).waitFor();
  await line('Hourly interface check').waitFor();
}

describe('the Automations page', () => {
  it('says which schedules start jobs next and when, soonest first, and each trigger’s next run or why none comes', async () => {
    await logInAs(page, platform.url, ADMIN.username, ADMIN.password);
    await openAutomations();

    await comingUp().getByRole('columnheader', { name: 'Starts' }).waitFor();
    expect(await comingNames()).toEqual(['Hourly interface check · every hour', 'Running config backup · every day']);
    const first = comingUp().locator('tbody tr').first();
    expect(await first.locator('td').first().textContent()).toMatch(/^in [789] min \d\d s$/);
    expect(await first.locator('td').nth(1).textContent()).toBe(exact(hourlyAt));
    expect(await first.locator('td').nth(2).textContent()).toBe('Interface audit');
    expect(await comingUp().locator('tbody tr').nth(1).locator('td').first().textContent()).toMatch(/^in (2 h 5\d|3 h 00) min$/);
    expect(await comingUp().textContent()).not.toContain('Nightly backup');
    await comingUp().getByText('1 schedule disabled, its runs skipped').waitFor();
    // the times count on without a reload
    const before = await first.locator('td').first().textContent();
    await eventually('the next run counted down', async () => (await first.locator('td').first().textContent()) !== before, {
      timeoutMs: 5_000,
    });

    const hourly = line('Hourly interface check');
    expect(await hourly.textContent()).toMatch(new RegExp(`next run in [789] min \\d\\d s · ${exact(hourlyAt)}`));
    await hourly.getByRole('button', { name: 'Disable Hourly interface check' }).waitFor();
    const nightly = line('Nightly backup');
    await nightly.getByText('Disabled', { exact: true }).waitFor();
    await nightly.getByText('its runs are skipped while disabled').waitFor();
    expect(await nightly.textContent()).not.toContain('next run');
    await nightly.getByRole('button', { name: 'Enable Nightly backup' }).waitFor();
    // the manual trigger started a job a moment ago: the words, and the exact time in its title
    const manual = line('On demand');
    const last = manual.locator('time');
    expect(await manual.textContent()).toMatch(/last started a job \d+ s ago/);
    const onDemand = await getTrigger('On demand');
    expect(await last.getAttribute('title')).toBe(exact(onDemand.lastExecuted ?? 0));
    // and its jobs are one click away (the jobs page narrowed to the trigger)
    expect(await manual.getByRole('link', { name: 'its jobs: On demand' }).getAttribute('href')).toMatch(
      new RegExp(`/jobs\\?trigger=${onDemand._id}$`),
    );
    const kafka = line('On Kafka alarm');
    await kafka.getByText('Disabled', { exact: true }).waitFor();
    await kafka.getByText('its events start no job').waitFor();
    await expectAccessible();
  }, 60_000);

  it('disables a schedule (its line says Disabled, Coming up no longer lists it) and enables it again at its next due time', async () => {
    const hourly = line('Hourly interface check');
    const disable = hourly.getByRole('button', { name: 'Disable Hourly interface check' });
    // the request is held a moment: meanwhile the button is busy and keeps the focus
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(
      `**/operations-manager/triggers/${ids['Hourly interface check'] ?? ''}`,
      async (route) => {
        await held;
        await route.continue();
      },
      { times: 1 },
    );
    await disable.click();
    const busy = hourly.getByRole('button', { name: 'Disabling Hourly interface check' });
    await busy.waitFor();
    expect(await busy.getAttribute('aria-busy')).toBe('true');
    expect(await busy.getAttribute('aria-disabled')).toBe('true');
    release();

    const enable = hourly.getByRole('button', { name: 'Enable Hourly interface check' });
    await enable.waitFor();
    expect(await enable.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);
    await hourly.getByText('Disabled', { exact: true }).waitFor();
    await hourly.getByText('its runs are skipped while disabled').waitFor();
    expect(await hourly.textContent()).not.toContain('next run');
    await page.getByRole('status').filter({ hasText: 'Hourly interface check is disabled.' }).waitFor({ state: 'attached' });
    await eventually('Coming up without the disabled schedule', async () => {
      const names = await comingNames();
      return names.length === 1 && names[0] === 'Running config backup · every day';
    });
    await comingUp().getByText('2 schedules disabled, their runs skipped').waitFor();
    expect(await getTrigger('Hourly interface check')).toMatchObject({ enabled: false });

    await enable.click();
    await hourly.getByRole('button', { name: 'Disable Hourly interface check' }).waitFor();
    const stored = await getTrigger('Hourly interface check');
    expect(stored.enabled).toBe(true);
    expect(stored.nextRunAt).toBeGreaterThan(Date.now());
    expect(await hourly.textContent()).toContain(`next run in`);
    expect(await hourly.textContent()).toContain(exact(stored.nextRunAt ?? 0));
    expect(await hourly.getByText('Disabled', { exact: true }).count()).toBe(0);
    await eventually('Coming up with the schedule again', async () => (await comingNames())[0] === 'Hourly interface check · every hour');
    await expectAccessible();
  }, 60_000);

  it('shows the platform’s refusal to enable an event trigger on an event it does not publish, under the trigger', async () => {
    const kafka = line('On Kafka alarm');
    await kafka.getByRole('button', { name: 'Enable On Kafka alarm' }).click();
    const refusal = kafka.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/^On Kafka alarm was not enabled: .*kafka\.alarms\.raised.*names no event of the platform/);
    expect(await refusal.textContent()).toContain('VALIDATION_FAILED');
    await kafka.getByRole('button', { name: 'Enable On Kafka alarm' }).waitFor();
    await kafka.getByText('Disabled', { exact: true }).waitFor();
    expect(await getTrigger('On Kafka alarm')).toMatchObject({ enabled: false });
    await expectAccessible();
    await page.mouse.move(0, 0);
    await screenshot(page, 'console-automations.png');
  }, 60_000);

  it('moves a schedule on once it fired: its last job, and its next run an interval later, or none for a one-off', async () => {
    // the page's timers under the test's hand (its clock still runs as the real one does): its
    // reads of the triggers come when the test moves its clock over the wait, not 30 s later
    await page.clock.install();
    await page.reload();
    await line('Hourly interface check').waitFor();
    const readAgain = async () => {
      await page.clock.fastForward(30_000);
      await page.clock.setSystemTime(Date.now());
    };
    const soon = Date.now() + 8_000;
    const fired = { actionId: backupsId, type: 'schedule', firstRunAt: soon, formData: { mode: 'success' } };
    await createTrigger({ ...fired, name: 'Every minute', repeatUnit: 'minute', repeatFrequency: 1 });
    await createTrigger({ ...fired, name: 'One-off check' });
    // the page reads the triggers again by itself (every 30 s, every 5 s once a run is due)
    const every = line('Every minute');
    const once = line('One-off check');
    await readAgain();
    await every.waitFor();
    // fired, and moved on: a schedule records its job's start before it moves its next run on
    const movedOn = async (name: string) => {
      const t = await getTrigger(name);
      return typeof t.lastExecuted === 'number' && t.nextRunAt !== soon;
    };
    await eventually('both schedules fired and moved on', async () => (await movedOn('Every minute')) && (await movedOn('One-off check')), {
      timeoutMs: 25_000,
    });
    await readAgain();
    await every.getByText(/last started a job/).waitFor();
    expect(await every.textContent()).toContain(`next run in`);
    expect(await every.textContent()).toContain(exact(soon + MIN));
    await once.getByText(/last started a job/).waitFor();
    await once.getByText('does not run again').waitFor();
    expect(await once.textContent()).not.toContain('next run');
    await eventually('Coming up with the repeating schedule first, without the one-off', async () => {
      const names = await comingNames();
      return names[0] === 'Every minute · every minute' && !names.some((name) => name.startsWith('One-off check'));
    });
    // off again: it would start a job every minute for the rest of the tests
    await every.getByRole('button', { name: 'Disable Every minute' }).click();
    await every.getByRole('button', { name: 'Enable Every minute' }).waitFor();
  }, 90_000);

  it('keeps every automation’s triggers readable when a description is a long URL or an unbroken token', async () => {
    const url =
      'Runbook: https://wiki.example.net/display/NETOPS/Change+Approval+Process+for+Core+Switch+Maintenance+Windows+2026-Q4-runbook-v3';
    for (const [name, description] of [
      ['Core switch change', url],
      ['Token automation', 'x'.repeat(400)],
    ] as const) {
      const automation = await platform.api<{ data: { _id: string } }>('POST', '/operations-manager/automations', {
        automation: { name, description, componentName: 'Interface check' },
      });
      await createTrigger({ name: `Run ${name}`, type: 'manual', actionId: automation.data._id, formData: { mode: 'success' } });
    }
    await page.reload();
    await line('Run Token automation').waitFor();
    const table = page.getByRole('table', { name: 'Automations and their triggers' });
    await table.getByText(url).waitFor();
    // nothing scrolls sideways: not the page, not the table's card
    const sideways = (locator: Locator) => locator.evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(await sideways(page.locator('html'))).toBe(0);
    expect(await sideways(table.locator('xpath=..'))).toBe(0);
    // each trigger's name on a line of words (it was one letter a line), its Run in the window
    for (const name of ['On demand', 'Hourly interface check', 'Run Core switch change', 'Run Token automation']) {
      const box = await line(name).getByText(name, { exact: true }).boundingBox();
      expect({ name, oneLine: box !== null && box.height < 30 && box.width > 50 }).toEqual({ name, oneLine: true });
    }
    const run = await line('Run Token automation').getByRole('button', { name: 'Run', exact: true }).boundingBox();
    expect(run !== null && run.x + run.width <= 1280).toBe(true);
    await expectAccessible();
  }, 60_000);

  it('lays out in a window 800 px wide without scrolling sideways, the Disable buttons in view, and a trigger’s words on a phone', async () => {
    const wide = page.viewportSize();
    await page.setViewportSize({ width: 800, height: 800 });
    try {
      const sideways = () => page.locator('html').evaluate((root) => root.scrollWidth - root.clientWidth);
      await page.reload();
      await line('Hourly interface check').waitFor();
      expect(await sideways()).toBe(0);
      const button = line('Hourly interface check').getByRole('button', { name: 'Disable Hourly interface check' });
      const box = await button.boundingBox();
      expect(box !== null && box.x + box.width <= 800).toBe(true);
      // on a phone the buttons go under the trigger's words, which keep a line's width (they came one letter a line)
      await page.setViewportSize({ width: 390, height: 844 });
      const words = await line('Hourly interface check').getByText('Hourly interface check', { exact: true }).boundingBox();
      expect(words?.width).toBeGreaterThan(100);
    } finally {
      if (wide) await page.setViewportSize(wide);
    }
  }, 60_000);

  it('shows an operator the times and Run, but no Disable or Enable', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await logInAs(page, platform.url, OPERATOR.username, OPERATOR.password);
    await openAutomations();
    expect(await comingNames()).toEqual(['Hourly interface check · every hour', 'Running config backup · every day']);
    expect(await line('Hourly interface check').textContent()).toMatch(/next run in \d+ min \d\d s/);
    await line('Nightly backup').getByText('Disabled', { exact: true }).waitFor();
    // Run stands on the line of the manual trigger it runs
    await line('On demand').getByRole('button', { name: 'Run', exact: true }).waitFor();
    expect(await toggles().count()).toBe(0);
    // the platform still decides: the operator's token cannot disable a trigger either
    const token = await platform.login(OPERATOR.username, OPERATOR.password);
    await expect(
      platform.api('PATCH', `/operations-manager/triggers/${ids['Hourly interface check'] ?? ''}`, { enabled: false }, token),
    ).rejects.toThrow(/403/);
    await expectAccessible();
  }, 60_000);

  it('met no Content-Security-Policy violation and no page error on the way', () => {
    expect(browser.problems()).toEqual([]);
  });
});
