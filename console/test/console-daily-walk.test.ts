import { readFileSync } from 'node:fs';
import path from 'node:path';
import { eventually } from '@nap/testing';
import type { Locator, Page } from 'playwright-core';
import { accessibilityViolations, launchBrowser, logInAs } from './support/browser';
import { descriptionOf, expectProblemAt, hasFocus } from './support/fields';
import type { ConsoleBrowser } from './support/browser';
import { tabTo } from './support/keyboard';
import { ADMIN, ROOT, startPlatform } from './support/platform';
import type { RunningPlatform } from './support/platform';
import { APPROVAL, CHECK, createWorkflows, jobStatus, startJob } from './support/workflows';

/**
 * A network engineer's day at 1280×800, with the shared fixtures' Cisco IOS project imported: what
 * a failed job says at once (the task's own error, which task finished as a failure), how a task
 * waiting for a person is found (the count beside Tasks, the badges that open the task), the
 * workflows of a project listed under its name once, and the filters of a list lined up; the
 * Tasks page naming each task's job, the jobs filter's times written as the console writes times,
 * and a job's variables beside its graph.
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

  it('says an error once where the engine stopped the job with the task’s own error, in the Errors and in the task’s panel', async () => {
    // a childJob naming a workflow that is not there (a fixture's "Chunk Array Wrapper - IAP"): the job's
    // error and the task's are the same words
    const missingChild = {
      name: 'Chunk with a missing child',
      type: 'automation',
      groups: [],
      tasks: {
        workflow_start: { name: 'workflow_start', groups: [] },
        workflow_end: { name: 'workflow_end', groups: [] },
        child: {
          name: 'childJob',
          app: 'WorkFlowEngine',
          type: 'operation',
          summary: 'Run the wrapper',
          groups: [],
          variables: {
            incoming: { task: '', workflow: 'Wrapper that is not there', variables: {} },
            outgoing: { job_details: null },
          },
        },
      },
      transitions: {
        workflow_start: { child: { state: 'success', type: 'standard' } },
        child: { workflow_end: { state: 'success', type: 'standard' } },
        workflow_end: {},
      },
    };
    await createWorkflows(platform, missingChild);
    const job = await startJob(platform, 'Chunk with a missing child', {});
    await eventually('the job in error', async () => (await jobStatus(platform, job._id)) === 'error');

    await page.goto(`${platform.url}/console/jobs/${job._id}`);
    const errors = page.getByRole('region', { name: 'Errors' });
    const said = /No workflow with name "Wrapper that is not there"/;
    await errors.getByText(said).waitFor();
    expect(await errors.getByText(said).count()).toBe(1);
    expect(await errors.getByText('Task error:').count()).toBe(0);
    await errors.getByRole('button', { name: 'Run the wrapper', exact: true }).click();
    const panel = page.getByRole('complementary', { name: 'Run the wrapper' });
    await panel.getByRole('heading', { name: 'Error' }).waitFor();
    expect(await panel.getByText(said).count()).toBe(1);
  }, 60_000);

  it('says where each choice of a project’s review task leads, and Cancel names the job as its page does', async () => {
    // Command Template Runner on a device not in the inventory: the check fails and its results wait for a review
    const job = await startJob(platform, `@${CISCO_IOS._id}: Command Template Runner`, {
      suppressSuccessMessage: false,
      templateName: `@${CISCO_IOS._id}: Show Version`,
      templateVariables: {},
      reattempt: false,
      reattemptWaitTime: 1,
      reattemptQuantity: 1,
      deviceName: 'lab-router-9',
      suppressFailureMessage: false,
    });
    await page.goto(`${platform.url}/console/jobs/${job._id}`);
    // its 16 tasks fit the view as it opens: no overview map over the tasks in its corner, until part is out of view
    const graph = page.getByRole('group', { name: /^Graph of job/ });
    const overview = graph.getByRole('img', { name: 'Overview of the whole graph' });
    await graph.getByRole('button', { name: /^Build Device Array — complete/ }).waitFor();
    await eventually('no overview map while the whole graph is in view', async () => (await overview.count()) === 0);
    await graph.getByRole('button', { name: 'Zoom In' }).click();
    await graph.getByRole('button', { name: 'Zoom In' }).click();
    await overview.waitFor();
    await page.getByRole('button', { name: '1 task waiting for a person' }).click();
    const panel = page.getByRole('complementary', { name: 'View Command Template Results' });
    // a failure goes back to the check, which runs again: the task then waits again, as it was
    await panel
      .getByText(
        '“Finish task” leads to the end of the job. “Finish task as failure” leads back to “Run a Command Template against a device”, which runs again.',
      )
      .waitFor();

    await page.getByRole('button', { name: 'Cancel job' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel job Command Template Runner?' });
    await dialog.getByRole('button', { name: 'Cancel job' }).click();
    await eventually('the job canceled', async () => (await jobStatus(platform, job._id)) === 'canceled');
    // its task no longer waits: the count beside Tasks goes (live)
    const tasks = nav().getByRole('link', { name: /^Tasks/ });
    await eventually('no task waiting', async () => (await tasks.getAttribute('aria-label')) === null);

    // the audit trail names the job as the jobs list does: its own name, and its project's
    await page.goto(`${platform.url}/console/audit?operation=workflow.cancelJobs`);
    const record = page.getByRole('row').filter({ hasText: 'workflow.cancelJobs' });
    await record.getByText('Cisco IOS', { exact: true }).waitFor();
    expect(await record.getByRole('cell').nth(4).textContent()).toBe('job Command Template RunnerCisco IOS');
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

  it('names the job a task waits in as the jobs list does, and marks a paused job (live) rather than a status column that says running', async () => {
    const going = await startJob(platform, 'Change approval', { plan: 'vlan 130', applySeconds: 0 });
    const held = await startJob(platform, 'Change approval', { plan: 'vlan 140', applySeconds: 0 });
    await page.goto(`${platform.url}/console/tasks`);
    const table = page.getByRole('table', { name: 'Manual tasks waiting for a person' });
    const rowOf = (job: { _id: string }) => table.getByRole('row').filter({ hasText: `…${job._id.slice(-6)}` });
    await rowOf(going).waitFor();
    await rowOf(held).waitFor();
    expect(await table.getByRole('columnheader').allTextContents()).toEqual(['Task', 'Job', 'Waiting since']);
    // the job by its name, a link to it, the end of its id beside it (the whole id in its title)
    const job = rowOf(going).getByRole('link', { name: 'Change approval', exact: true });
    expect(await job.getAttribute('href')).toBe(`/console/jobs/${going._id}`);
    expect(await rowOf(going).getByTitle(going._id).textContent()).toBe(`…${going._id.slice(-6)}`);
    expect(await rowOf(going).getByText('job paused').count()).toBe(0);

    await platform.api('POST', `/operations-manager/jobs/${held._id}/pause`);
    await rowOf(held).getByText('job paused', { exact: true }).waitFor();
    expect(await rowOf(going).getByText('job paused').count()).toBe(0);
    await platform.api('POST', `/operations-manager/jobs/${held._id}/resume`);
    await rowOf(held).getByText('job paused', { exact: true }).waitFor({ state: 'detached' });
  }, 60_000);

  it('reads and writes the start times of the jobs filter as the console writes times, and says what is wrong with one that is not', async () => {
    await page.goto(`${platform.url}/console/jobs?after=2026-01-01T00:00`);
    const filters = page.getByRole('search', { name: 'Filter jobs' });
    const after = filters.getByLabel('Started after', { exact: true });
    // a link's value shown as the console writes times, not the browser's mm/dd/yyyy
    await eventually('the time shown', async () => (await after.inputValue()) === '2026-01-01 00:00');
    expect(await after.getAttribute('placeholder')).toBe('YYYY-MM-DD HH:MM');

    await after.fill('2999-12-31 23:59');
    await after.press('Enter');
    await page.getByText('No job matches these filters.').waitFor();
    expect(new URL(page.url()).searchParams.get('after')).toBe('2999-12-31T23:59');

    // a day that does not exist: said, at the field, and the list stays as it was
    await after.fill('2026-02-30 10:00');
    await after.press('Enter');
    await expectProblemAt(after, /^Started after: “2026-02-30 10:00” is not a time: February 2026 has days 01 to 28, not 30\.$/);
    expect(new URL(page.url()).searchParams.get('after')).toBe('2999-12-31T23:59');
    // and the browser's form is not read as a time either
    await after.fill('12/05/2026');
    await page.keyboard.press('Tab');
    await eventually('the form said', async () => /write it as YYYY-MM-DD HH:MM/.test(await descriptionOf(after)));

    // typed right, it is sent as the field is left (seconds, as the table writes them, are read too)
    await after.fill('2026-01-01 00:00:01');
    expect(await after.getAttribute('aria-invalid')).toBeNull();
    await page.keyboard.press('Tab');
    await eventually('the time in the URL', async () => new URL(page.url()).searchParams.get('after') === '2026-01-01T00:00:01');
    await page.getByRole('row').filter({ hasText: 'Change approval' }).first().waitFor();
  }, 60_000);

  it('shows the job’s variables beside its graph at 1280×800, in place of a task’s panel, and hides them on request', async () => {
    const job = await startJob(platform, 'Interface check', { mode: 'success', site: 'lyon-2' });
    await eventually('the job complete', async () => (await jobStatus(platform, job._id)) === 'complete');
    await page.goto(`${platform.url}/console/jobs/${job._id}`);
    const graph = graphOf('Interface check');
    const details = page.getByRole('complementary', { name: 'Job details' });
    await details.getByLabel('Job variables').getByText('"site": "lyon-2"').waitFor();
    // in view without scrolling, right of the graph
    const variables = await details.getByLabel('Job variables').boundingBox();
    const drawn = await graph.boundingBox();
    expect(variables && drawn).toBeTruthy();
    if (!variables || !drawn) return;
    expect(variables.y + Math.min(variables.height, 80)).toBeLessThan(800);
    expect(variables.x).toBeGreaterThanOrEqual(drawn.x + drawn.width);
    expect(await page.locator('html').evaluate((el) => el.ownerDocument.defaultView?.scrollY)).toBe(0);

    // hidden, the graph takes the width; the focus goes to what shows them again
    await details.getByRole('button', { name: 'Hide the job details' }).click();
    await details.waitFor({ state: 'detached' });
    const show = page.getByRole('button', { name: 'Show job details' });
    await eventually('the focus on Show', () => hasFocus(show));
    await eventually('the graph wider', async () => ((await graph.boundingBox())?.width ?? 0) > drawn.width);
    await page.keyboard.press('Enter');
    await eventually('the focus on Hide', () => hasFocus(details.getByRole('button', { name: 'Hide the job details' })));

    // a task selected takes the panel's place; closed, the job's details come back
    await graph.getByRole('button', { name: /^Check interface state/ }).click();
    const panel = page.getByRole('complementary', { name: 'Check interface state' });
    await panel.waitFor();
    expect(await details.count()).toBe(0);
    await panel.getByRole('button', { name: 'Close the task panel' }).click();
    await details.waitFor();
  }, 60_000);

  it('passes axe-core’s WCAG 2.1 A and AA rules on every page and dialog, and takes a person through a failed job and a manual task with the keyboard alone', async () => {
    const failed = await startJob(platform, 'Interface check', { mode: 'error', site: 'oslo-1' });
    const waiting = await startJob(platform, 'Change approval', { plan: 'vlan 150', applySeconds: 0 });
    await eventually('the job in error', async () => (await jobStatus(platform, failed._id)) === 'error');
    const rowOf = (job: { _id: string }) => page.getByRole('row').filter({ hasText: job._id.slice(-6) });

    // every page as a person sees it once it has loaded, and the dialogs: each serious or critical violation named
    // with its page. The pages are opened as the console's links open them (the engine put in the page stays there)
    const found: string[] = [];
    const check = async (where: string, shown: Locator) => {
      await shown.first().waitFor();
      found.push(...(await accessibilityViolations(page)).map((violation) => `${where}: ${violation}`));
    };
    const open = (address: string) =>
      page.evaluate((to) => {
        // in the page: its window, where the router follows the history's popstate as it does Back
        const inPage = globalThis as unknown as {
          history: { pushState(state: null, unused: string, url: string): void };
          dispatchEvent(event: unknown): boolean;
          PopStateEvent: new (type: string) => unknown;
        };
        inPage.history.pushState(null, '', to);
        inPage.dispatchEvent(new inPage.PopStateEvent('popstate'));
      }, `/console${address}`);
    const visit = async (where: string, address: string, shown: Locator) => {
      await open(address);
      await check(where, shown);
    };
    const dialog = page.getByRole('dialog');
    await visit('log-in page', '/login', page.getByRole('button', { name: 'Log in' }));
    await visit('jobs', '/jobs', rowOf(failed));
    await visit('a job in error', `/jobs/${failed._id}`, page.getByRole('region', { name: 'Errors' }).getByText('Task error:'));
    await page.getByRole('button', { name: 'Retry task Check interface state' }).click();
    await check('the Retry task dialog', dialog.getByRole('textbox', { name: 'type' }));
    await page.keyboard.press('Escape');
    await visit(
      'a job waiting for a person',
      `/jobs/${waiting._id}?task=approve`,
      page.getByRole('button', { name: 'Approve', exact: true }),
    );
    await page.getByRole('button', { name: 'Cancel job' }).click();
    await check('the Cancel job dialog', dialog.getByRole('button', { name: 'Keep running' }));
    await page.keyboard.press('Escape');
    await visit('tasks', '/tasks', rowOf(waiting));
    await visit('automations', '/automations', page.getByRole('heading', { name: 'Automations', level: 1 }));
    await visit('workflows', '/workflows', page.getByRole('link', { name: 'Command Template Runner' }));
    await visit('a workflow', '/workflows/Change%20approval', page.getByRole('button', { name: /^Approve change/ }));
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await check('the Run dialog', dialog.getByRole('button', { name: 'Run', exact: true }));
    await page.keyboard.press('Escape');
    await visit('devices', '/devices', page.getByRole('heading', { name: 'Devices', level: 1 }));
    await visit('audit', '/audit', page.getByRole('row').filter({ hasText: 'workflow.startJob' }));
    await visit('accounts', '/people', page.getByRole('row').filter({ hasText: ADMIN.username }));
    await visit('groups', '/people/groups', page.getByRole('heading', { name: 'Groups', level: 1 }));
    await visit('platform', '/platform', page.getByRole('region', { name: 'Applications' }).getByRole('row').nth(1));
    await visit('a page that is not there', '/nothing-here', page.getByRole('heading', { name: 'No such page' }));
    expect(found).toEqual([]);

    // the keyboard alone: the jobs in error, the failed job and why, its task retried with another variable
    await open('/jobs');
    const status = page.getByRole('search', { name: 'Filter jobs' }).getByLabel('Status');
    await tabTo(page, status);
    // down the list to "error" as fast as the keys come: each press goes on from the option the one before chose
    for (const _ of ['running', 'paused', 'complete', 'error']) await page.keyboard.press('ArrowDown');
    await eventually('the jobs in error', async () => new URL(page.url()).searchParams.get('status') === 'error');
    await tabTo(page, rowOf(failed).getByRole('link', { name: 'Interface check' }));
    await page.keyboard.press('Enter');
    // the new page's name takes the focus, and names the browser's tab
    await eventually('the focus on the job’s name', () => hasFocus(page.getByRole('heading', { name: 'Interface check', level: 1 })));
    expect(await page.title()).toBe('Interface check — Jobs — NAP console');
    // the graph is one Tab stop; the arrow keys move between its tasks by the drawing
    const focusedTask = async (): Promise<{ id: string; y: number } | null> => {
      const focused = page.locator(':focus');
      const id = (await focused.count()) === 1 ? await focused.getAttribute('data-task-id') : null;
      return id === null ? null : { id, y: (await focused.boundingBox())?.y ?? 0 };
    };
    expect(await graphOf('Interface check').locator('button[data-task-id][tabindex="0"]').count()).toBe(1);
    await tabTo(page, graphOf('Interface check').locator('button[data-task-id][tabindex="0"]'));
    const before = await focusedTask();
    await page.keyboard.press('ArrowDown');
    const below = await focusedTask();
    expect(below?.id).not.toBe(before?.id);
    expect(below?.y).toBeGreaterThan(before?.y ?? Infinity);
    await page.keyboard.press('Home');
    expect((await focusedTask())?.id).toBe('workflow_start');
    await page.keyboard.press('Tab');
    expect(await focusedTask()).toBeNull();
    await page.getByRole('region', { name: 'Errors' }).getByText('Task error: interface Gi0/1 is down').waitFor();
    await tabTo(page, page.getByRole('button', { name: 'Retry task Check interface state' }));
    await page.keyboard.press('Enter');
    const mode = dialog.getByRole('textbox', { name: 'type' });
    await tabTo(page, mode);
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('success');
    await page.keyboard.press('Enter');
    // Retry task goes with the error it was beside: the focus is not lost with it, and the job's end is said
    await dialog.waitFor({ state: 'detached' });
    await eventually('the focus on the job’s name', () => hasFocus(page.getByRole('heading', { name: 'Interface check', level: 1 })));
    await page.getByRole('status').filter({ hasText: 'Job Interface check is complete.' }).waitFor({ state: 'attached' });

    // the task waiting for a person, from the Tasks page: the link lands on the task, Space approves it
    await tabTo(page, nav().getByRole('link', { name: /^Tasks/ }));
    await page.keyboard.press('Enter');
    await eventually('the focus on the page’s name', () => hasFocus(page.getByRole('heading', { name: 'Tasks', level: 1 })));
    await tabTo(page, rowOf(waiting).getByRole('link', { name: 'Approve change' }));
    await page.keyboard.press('Enter');
    const panelHeading = page
      .getByRole('complementary', { name: 'Approve change' })
      .getByRole('heading', { name: 'Approve change', level: 2 });
    await eventually('the focus on the task', () => hasFocus(panelHeading));
    await tabTo(page, page.getByRole('button', { name: 'Approve', exact: true }));
    await page.keyboard.press('Space');
    await eventually('the focus back on the task', () => hasFocus(panelHeading));
    await page.getByRole('status').filter({ hasText: 'Job Change approval is complete.' }).waitFor({ state: 'attached' });
  }, 60_000);

  it('met no Content-Security-Policy violation and no page error on the way', () => {
    expect(browser.problems()).toEqual([]);
  });
});

/** True when the element's text is cut (an ellipsis shows). */
function isTruncated(element: Locator): Promise<boolean> {
  return element.evaluate((el) => el.scrollWidth > el.clientWidth);
}
