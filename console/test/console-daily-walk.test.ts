import { readFileSync } from 'node:fs';
import path from 'node:path';
import { eventually } from '@nap/testing';
import type { Locator, Page } from 'playwright-core';
import { launchBrowser, logInAs } from './support/browser';
import type { ConsoleBrowser } from './support/browser';
import { ADMIN, ROOT, startPlatform } from './support/platform';
import type { RunningPlatform } from './support/platform';
import { APPROVAL, CHECK, createWorkflows, jobStatus, startJob } from './support/workflows';

/**
 * A network engineer's day at 1280×800, with the shared fixtures' Cisco IOS project imported: what
 * a failed job says at once (the task's own error, which task finished as a failure), how a task
 * waiting for a person is found (the count beside Tasks, the badges that open the task), the
 * workflows of a project listed under its name once, and the filters of a list lined up.
 */

const FIXTURES = path.resolve(ROOT, '../shared/fixtures/itential-assets');
const CISCO_IOS = JSON.parse(readFileSync(path.join(FIXTURES, 'Cisco_IOS_Projects_Cisco_IOS.project.json'), 'utf8')) as {
  _id: string;
  name: string;
};

let platform: RunningPlatform;
let browser: ConsoleBrowser;
let page: Page;

beforeAll(async () => {
  [platform, browser] = await Promise.all([startPlatform(), launchBrowser()]);
  await platform.api('POST', '/automation-studio/projects/import', { project: CISCO_IOS });
  await createWorkflows(platform, APPROVAL, CHECK);
  page = await browser.newPage();
  await logInAs(page, platform.url, ADMIN.username, ADMIN.password);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

const nav = () => page.getByRole('navigation', { name: 'Main' });
const graphOf = (name: string) => page.getByRole('group', { name: `Graph of job ${name}` });

describe('a day with the console', () => {
  it('says in the Errors of a failed job what the task itself reported, and marks the task that finished as a failure', async () => {
    const errored = await startJob(platform, 'Interface check', { mode: 'error' });
    const failed = await startJob(platform, 'Interface check', { mode: 'failure' });
    for (const job of [errored, failed]) await eventually('the job in error', async () => (await jobStatus(platform, job._id)) === 'error');

    await page.goto(`${platform.url}/console/jobs/${errored._id}`);
    const errors = page.getByRole('region', { name: 'Errors' });
    // the engine's message says where the job stopped; the task's error says why, without opening the task
    await errors.getByText('No transition available').waitFor();
    await errors.getByText('Task error: interface Gi0/1 is down').waitFor();
    // beside its status a node shows the task's method (the app is read out, and in its title)
    const check = graphOf('Interface check').getByRole('button', { name: /^Check interface state — error ?, WorkFlowEngine · stub$/ });
    expect(await check.locator('[title]').getAttribute('title')).toBe('WorkFlowEngine · stub');
    expect(await isTruncated(check.locator('[title]'))).toBe(false);

    await page.goto(`${platform.url}/console/jobs/${failed._id}`);
    await errors.getByText('The task finished as failure, and the workflow has no path from it for that.').waitFor();
    // the task is complete but took no success path: not drawn as a success
    const node = graphOf('Interface check').getByRole('button', { name: /^Check interface state — complete, finished as failure/ });
    await node.waitFor();
    expect(await node.textContent()).not.toMatch(/✓|complete$/);
    expect(await node.evaluate((el) => el.ownerDocument.defaultView?.getComputedStyle(el).borderLeftColor)).not.toBe(
      await graphOf('Interface check')
        .getByRole('button', { name: /^Start/ })
        .evaluate((el) => el.ownerDocument.defaultView?.getComputedStyle(el).borderLeftColor),
    );
  }, 60_000);

  it('counts the tasks waiting for a person beside Tasks, and each badge that says a job waits opens the task', async () => {
    const tasks = nav().getByRole('link', { name: /^Tasks/ });
    expect(await tasks.getAttribute('aria-label')).toBeNull();
    const job = await startJob(platform, 'Change approval', { plan: 'vlan 120', applySeconds: 0 });
    // live: the count arrives without a reload, read out with the link's name
    await nav().getByRole('link', { name: 'Tasks 1 waiting', exact: true }).waitFor();

    // from the jobs list, one click on the badge opens the job at the task that waits
    await page.goto(`${platform.url}/console/jobs`);
    const row = page.getByRole('row').filter({ hasText: job._id.slice(-6) });
    await row.getByRole('link', { name: 'waiting for a person' }).click();
    const panel = page.getByRole('complementary', { name: 'Approve change' });
    await panel.getByText('Waiting for a person').waitFor();
    expect(new URL(page.url()).searchParams.get('task')).toBe('approve');

    // on the job's page, the header's badge opens it too
    await panel.getByRole('button', { name: 'Close the task panel' }).click();
    await panel.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: '1 task waiting for a person' }).click();
    await panel.getByRole('button', { name: 'Approve', exact: true }).click();
    await eventually('the job complete', async () => (await jobStatus(platform, job._id)) === 'complete');
    await eventually(
      'the count gone',
      async () => (await tasks.getAttribute('aria-label')) === null && (await tasks.textContent()) === 'Tasks',
    );
  }, 60_000);

  it('lists a project’s workflows under its name once, not again on each row', async () => {
    await page.goto(`${platform.url}/console/workflows`);
    const table = page.getByRole('table', { name: 'Workflows' });
    await table.getByRole('columnheader', { name: 'Cisco IOS', exact: true }).waitFor();
    const runner = table.getByRole('row').filter({ has: page.getByRole('link', { name: 'Command Template Runner' }) });
    expect((await runner.getByRole('cell').first().textContent())?.trim()).toBe('Command Template Runner');
  }, 60_000);

  it('lines up the fields of a filter bar: one height, labels on one line', async () => {
    await page.goto(`${platform.url}/console/jobs`);
    const filters = page.getByRole('search', { name: 'Filter jobs' });
    const boxes = await Promise.all(
      ['Status', 'Workflow', 'Started after', 'Started before'].map(async (label) => ({
        label,
        control: await filters.getByLabel(label, { exact: true }).boundingBox(),
        text: await filters.locator('label', { hasText: label }).boundingBox(),
      })),
    );
    const clear = await filters.getByRole('button', { name: 'Clear filters' }).boundingBox();
    const heights = new Set(boxes.map((b) => Math.round(b.control?.height ?? 0)).concat(Math.round(clear?.height ?? 0)));
    const rem = await page
      .locator('html')
      .evaluate((el) => parseFloat(el.ownerDocument.defaultView?.getComputedStyle(el).fontSize ?? '16'));
    const bottoms = new Set(boxes.map((b) => Math.round((b.control?.y ?? 0) + (b.control?.height ?? 0))));
    const labelTops = new Set(boxes.map((b) => Math.round(b.text?.y ?? 0)));
    expect({ heights: [...heights], bottoms: bottoms.size, labelTops: labelTops.size }).toEqual({
      heights: [2 * rem],
      bottoms: 1,
      labelTops: 1,
    });
  }, 60_000);

  it('met no Content-Security-Policy violation and no page error on the way', () => {
    expect(browser.problems()).toEqual([]);
  });
});

/** True when the element's text is cut (an ellipsis shows). */
function isTruncated(element: Locator): Promise<boolean> {
  return element.evaluate((el) => el.scrollWidth > el.clientWidth);
}
