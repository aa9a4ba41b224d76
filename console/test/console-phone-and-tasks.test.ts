import { eventually } from '@nap/testing';
import type { Locator, Page } from 'playwright-core';
import { accessibilityViolations, launchBrowser, logInAs } from './support/browser';
import type { ConsoleBrowser } from './support/browser';
import { tabTo } from './support/keyboard';
import { ADMIN, startPlatform } from './support/platform';
import type { RunningPlatform } from './support/platform';
import { createWorkflows, startJob } from './support/workflows';
import type { StartedJob } from './support/workflows';

/**
 * Two things an operator meets in the console: on a phone (390×844) the filter bars of the lists
 * fold behind a "Filters" button that counts the filters set, and the desktop layout stays as it
 * was; on the Tasks page, tasks of one name in jobs of one workflow ("Approve change") show what
 * tells them apart (the job's description, the task's header, message and first line of text),
 * read without a request per row.
 */

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1440, height: 900 };

/** "Change review": a person approves a change whose header, message and plan come from the job's variables. */
const CHANGE_REVIEW = {
  name: 'Change review',
  type: 'automation',
  groups: [],
  tasks: {
    workflow_start: { name: 'workflow_start', groups: [] },
    workflow_end: { name: 'workflow_end', groups: [] },
    approve: {
      name: 'ViewData',
      app: 'WorkFlowEngine',
      type: 'manual',
      summary: 'Approve change',
      groups: [],
      variables: {
        incoming: {
          header: '$var.job.change',
          message: '$var.job.why',
          body: '$var.job.plan',
          variables: {},
          btn_success: 'Approve',
          btn_failure: 'Reject',
        },
        outgoing: {},
      },
    },
  },
  transitions: {
    workflow_start: { approve: { state: 'success', type: 'standard' } },
    approve: { workflow_end: { state: 'success', type: 'standard' } },
    workflow_end: {},
  },
};

const CHANGES = [
  {
    description: 'Guest VLAN for the Paris office',
    variables: { change: 'CHG-2001 on core-paris-1', why: 'Guests get their own VLAN.', plan: 'vlan 120\n name guests' },
  },
  {
    description: 'Shut the flapping uplink in Lyon',
    variables: { change: 'CHG-2002 on edge-lyon-2', why: 'Gi0/3 flaps every few minutes.', plan: '\ninterface Gi0/3\n shutdown' },
  },
] as const;

let platform: RunningPlatform;
let browser: ConsoleBrowser;
let page: Page;
let jobs: StartedJob[];

beforeAll(async () => {
  [platform, browser] = await Promise.all([startPlatform(), launchBrowser()]);
  await createWorkflows(platform, CHANGE_REVIEW);
  jobs = [];
  for (const change of CHANGES) {
    const answer = await platform.api<{ data: StartedJob }>('POST', '/operations-manager/jobs/start', {
      workflow: CHANGE_REVIEW.name,
      options: { description: change.description, variables: change.variables },
    });
    jobs.push(answer.data);
  }
  // a job the phone's lists can be narrowed to by status
  jobs.push(await startJob(platform, CHANGE_REVIEW.name, { change: 'CHG-2003', why: 'A third one.', plan: 'no shutdown' }));
  await eventually(
    'the three approvals waiting for a person',
    async () => {
      const queue = await platform.api<{ metadata: { total: number } }>(
        'GET',
        `/operations-manager/tasks?equals[status]=running&equals[type]=manual`,
      );
      return queue.metadata.total === 3;
    },
    { timeoutMs: 15_000 },
  );
  page = await browser.newPage();
  await logInAs(page, platform.url, ADMIN.username, ADMIN.password);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

const isFocused = (target: Locator) => target.evaluate((element) => element === element.ownerDocument.activeElement);

async function box(target: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  const found = await target.boundingBox();
  if (found === null) throw new Error(`${String(target)} is not shown`);
  return found;
}

describe('the filter bars on a phone', () => {
  it('fold the jobs filters behind "Filters (2)" set from the URL, opened in place by the keyboard, the list on the first screen', async () => {
    await page.setViewportSize(PHONE);
    await page.goto(`${platform.url}/console/jobs?status=running&workflow=Change`);
    await page.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor();
    const toggle = page.getByRole('button', { name: 'Filters (2)' });
    await toggle.waitFor();
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    const bar = page.getByRole('search', { name: 'Filter jobs' });
    expect(await bar.isVisible()).toBe(false);
    // the rows are on the first screen, not under a screenful of fields
    const firstRow = page.getByRole('row').filter({ hasText: 'Change review' }).first();
    await firstRow.waitFor();
    expect((await box(firstRow)).y + (await box(firstRow)).height).toBeLessThan(PHONE.height / 2);

    // by the keyboard: Tab to the button, Enter opens the bar under it, focus stays on the button, Tab goes into the bar
    await tabTo(page, toggle);
    await page.keyboard.press('Enter');
    await bar.waitFor();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect(await isFocused(toggle)).toBe(true);
    expect((await box(bar)).y).toBeGreaterThan((await box(toggle)).y);
    // the filters of the URL show as set
    const status = bar.getByLabel('Status');
    expect(await status.inputValue()).toBe('running');
    expect(await bar.getByLabel('Workflow').inputValue()).toBe('Change');
    await page.keyboard.press('Tab');
    expect(await isFocused(status)).toBe(true);
    expect(await accessibilityViolations(page)).toEqual([]);

    // the count follows the URL: one filter dropped, then all
    await status.selectOption('');
    await page.getByRole('button', { name: 'Filters (1)' }).waitFor();
    await eventually('the status gone from the URL', () => !new URL(page.url()).searchParams.has('status'), { timeoutMs: 5_000 });
    await bar.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByRole('button', { name: 'Filters', exact: true }).waitFor();

    // Space folds it again
    await page.getByRole('button', { name: 'Filters', exact: true }).focus();
    await page.keyboard.press('Space');
    await eventually('the bar folded', async () => !(await bar.isVisible()), { timeoutMs: 5_000 });
  });

  it('fold the audit, devices, accounts and workflows filters too, each counting its own', async () => {
    await page.setViewportSize(PHONE);
    const lists = [
      {
        path: 'audit?actor=admin&outcome=success',
        heading: 'Audit trail',
        bar: 'Filter the audit trail',
        count: 2,
        field: 'Actor',
        value: 'admin',
      },
      { path: 'devices?group=core', heading: 'Devices', bar: 'Filter devices', count: 1, field: 'Group', value: 'core' },
      { path: 'people?username=adm', heading: 'Accounts', bar: 'Filter accounts', count: 1, field: 'Username', value: 'adm' },
      { path: 'workflows?name=Change', heading: 'Workflows', bar: 'Filter workflows', count: 1, field: 'Workflow', value: 'Change' },
    ];
    for (const list of lists) {
      await page.goto(`${platform.url}/console/${list.path}`);
      await page.getByRole('heading', { name: list.heading, level: 1 }).waitFor();
      const toggle = page.getByRole('button', { name: `Filters (${list.count})` });
      await toggle.waitFor();
      const bar = page.getByRole('search', { name: list.bar });
      expect(await bar.isVisible()).toBe(false);
      await toggle.click();
      await bar.waitFor();
      expect(await bar.getByLabel(list.field).inputValue()).toBe(list.value);
    }
  });

  it('leave the desktop layout as it was: no button, the bar right under the header at its full width', async () => {
    await page.setViewportSize(DESKTOP);
    await page.goto(`${platform.url}/console/jobs?status=running`);
    await page.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor();
    const bar = page.getByRole('search', { name: 'Filter jobs' });
    await bar.waitFor();
    expect(await page.getByRole('button', { name: /^Filters/ }).count()).toBe(0);
    // the page's column puts its gap between the header and the bar: the fold adds nothing around it
    const headerRow = page.getByRole('heading', { name: 'Jobs', level: 1 }).locator('..');
    const gap = Number.parseFloat(
      await headerRow.evaluate(
        (element) => element.ownerDocument.defaultView?.getComputedStyle(element.parentElement ?? element).rowGap ?? '',
      ),
    );
    expect(gap).toBeGreaterThan(0);
    const header = await box(headerRow);
    const shown = await box(bar);
    expect(Math.abs(shown.y - (header.y + header.height) - gap)).toBeLessThan(1);
    expect(Math.abs(shown.x - header.x)).toBeLessThan(1);
    expect(Math.abs(shown.width - header.width)).toBeLessThan(1);
    // all four fields on one line
    const status = await box(bar.getByLabel('Status'));
    const before = await box(bar.getByLabel('Started before'));
    expect(Math.abs(before.y - status.y)).toBeLessThan(2);

    // narrowed to a phone with the focus in the bar, the bar stays open rather than hide the field in use
    const workflow = bar.getByLabel('Workflow');
    await workflow.focus();
    await page.setViewportSize(PHONE);
    await page.getByRole('button', { name: 'Filters (1)', expanded: true }).waitFor();
    expect(await workflow.isVisible()).toBe(true);
    expect(await isFocused(workflow)).toBe(true);
  });
});

describe('the Tasks page', () => {
  it('tells tasks of one name apart by their job’s description and what each shows, from one request for all the jobs', async () => {
    await page.setViewportSize(DESKTOP);
    const jobRequests: string[] = [];
    const record = (request: { url(): string }) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/operations-manager/jobs')) jobRequests.push(`${url.pathname}${url.search}`);
    };
    page.on('request', record);
    try {
      await page.goto(`${platform.url}/console/tasks`);
      await page.getByRole('heading', { name: 'Tasks', level: 1 }).waitFor();
      for (const [i, change] of CHANGES.entries()) {
        const row = page.getByRole('row').filter({ hasText: change.description });
        await row.waitFor();
        const text = await row.innerText();
        expect(text).toContain(change.variables.change);
        expect(text).toContain(change.variables.why);
        expect(text).toContain(jobs[i]?._id.slice(-6));
        // the first line of the plan (the second plan starts with an empty line)
        expect(text).toContain(i === 0 ? 'vlan 120' : 'interface Gi0/3');
        expect(text).not.toContain(i === 0 ? 'name guests' : 'shutdown');
        // the link names the task; its description is what tells it apart, read by a screen reader with it
        const link = row.getByRole('link', { name: 'Approve change' });
        const described = await link.getAttribute('aria-describedby');
        expect(described).toBeTruthy();
        const description = await page.locator(`[id="${described ?? ''}"]`).textContent();
        expect(description).toContain(change.variables.change);
      }
      // the job without a description shows its task's texts alone
      const third = page.getByRole('row').filter({ hasText: 'CHG-2003' });
      expect(await third.innerText()).toContain('A third one.');
      expect(await accessibilityViolations(page)).toEqual([]);
    } finally {
      page.off('request', record);
    }
    // one request named the three jobs; none read a job by itself
    expect(jobRequests).toHaveLength(1);
    const asked = new URLSearchParams(jobRequests[0]?.split('?')[1]);
    expect(asked.get('in[_id]')?.split(',').sort()).toEqual(jobs.map((job) => job._id).sort());
    expect(asked.get('include')).toBe('_id,description');
  });
});
