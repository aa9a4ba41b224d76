import { eventually } from '@nap/testing';
import type { Locator, Page } from 'playwright-core';
import { launchBrowser, logInAs } from './support/browser';
import type { ConsoleBrowser } from './support/browser';
import { ADMIN, startPlatform } from './support/platform';
import type { RunningPlatform } from './support/platform';
import { seedTeam } from './support/team-data';
import type { TeamData } from './support/team-data';
import { jobStatus, startJob } from './support/workflows';

/**
 * The morning after, on a platform holding a team's data (support/team-data.ts): what failed
 * overnight, read from the jobs list without opening each job (where and why each stopped, which
 * job started a child), and a rollout's children told apart on the parent's page (each with its
 * status), the child naming its parent as the list does.
 */

let platform: RunningPlatform;
let browser: ConsoleBrowser;
let page: Page;
let team: TeamData;

beforeAll(async () => {
  [platform, browser] = await Promise.all([startPlatform(), launchBrowser()]);
  // a few of the night's good checks: these tests page nothing
  team = await seedTeam(platform, { nightChecks: 6 });
  page = await browser.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  await logInAs(page, platform.url, ADMIN.username, ADMIN.password);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

const suffix = (id: string) => `…${id.slice(-6)}`;
const rowOf = (id: string) =>
  page
    .getByRole('table', { name: 'Jobs' })
    .getByRole('row')
    .filter({ hasText: suffix(id) });

/** The rollout's child jobs, each with its status, as the platform answers them. */
async function childrenOfRollout(): Promise<{ _id: string; status: string }[]> {
  const rollout = await platform.api<{ data: { tasks: Record<string, { childJobs?: { _id: string }[] }> } }>(
    'GET',
    `/operations-manager/jobs/${team.jobs.rollout._id}`,
  );
  const ids = Object.values(rollout.data.tasks).flatMap((task) => (task.childJobs ?? []).map((child) => child._id));
  return Promise.all(ids.map(async (id) => ({ _id: id, status: await jobStatus(platform, id) })));
}

describe('the morning after', () => {
  it('says on the jobs list where and why each job in error stopped, live for one that fails now', async () => {
    await page.goto(`${platform.url}/console/jobs?status=error`);
    const errored = team.jobs.errored[0]?._id ?? '';
    await rowOf(errored).getByText('Check interface state: interface Gi0/1 is down', { exact: true }).waitFor();
    // a task that finished as failure, with no path for it, reported no error of its own
    await rowOf(team.jobs.failed[0]?._id ?? '')
      .getByText('Check interface state finished as failure', { exact: true })
      .waitFor();
    // the parent says which child failed
    const failedChild = (await childrenOfRollout()).find((child) => child.status === 'error');
    expect(failedChild).toBeDefined();
    await rowOf(team.jobs.rollout._id)
      .getByText(`Check each site: Child job ${failedChild?._id ?? ''} of workflow "Interface check" ended with status error`)
      .waitFor();
    // a job that is not in error says nothing of the kind
    await page.goto(`${platform.url}/console/jobs?status=complete`);
    await rowOf(team.jobs.complete.at(-1)?._id ?? '').waitFor();
    expect(await page.getByText(/Check interface state: /).count()).toBe(0);

    // one that stops while the list shows it says why without a reload: paused at once, shown
    // paused, then resumed, it stops in error in front of the person (its task takes 5 s, so that a
    // loaded machine shows it paused before the task's error stops it). The page's event stream is
    // held until the job was started and paused, after the list was read: the start and the pause
    // happen before the stream follows the platform, and the list must still come to show them.
    let releaseStream = () => {};
    const streamHeld = new Promise<void>((resolve) => (releaseStream = resolve));
    await page.route('**/operations-manager/events', async (route) => {
      await streamHeld;
      await route.continue();
    });
    await page.goto(`${platform.url}/console/jobs`);
    await rowOf(team.jobs.complete.at(-1)?._id ?? '').waitFor();
    const soak = await startJob(platform, 'Interface soak test', { mode: 'error', seconds: 5 });
    await platform.api('POST', `/operations-manager/jobs/${soak._id}/pause`);
    releaseStream();
    await rowOf(soak._id).getByText('paused', { exact: true }).waitFor();
    await page.unroute('**/operations-manager/events');
    await platform.api('POST', `/operations-manager/jobs/${soak._id}/resume`);
    await eventually('the job in error', async () => (await jobStatus(platform, soak._id)) === 'error');
    await rowOf(soak._id).getByText('Soak the interface: CRC errors on Gi0/2', { exact: true }).waitFor();
  }, 60_000);

  it('names on the jobs list the job that started a child job, a link to it', async () => {
    const children = await childrenOfRollout();
    expect(children.length).toBe(3);
    await page.goto(`${platform.url}/console/jobs?workflow=Interface`);
    const child = children[0]?._id ?? '';
    const parent = rowOf(child).getByRole('link', { name: `Site rollout ${suffix(team.jobs.rollout._id)}`, exact: true });
    await parent.waitFor();
    expect(await rowOf(child).getByText('child of').count()).toBe(1);
    // a job nothing started says nothing of a parent
    expect(
      await rowOf(team.jobs.errored[0]?._id ?? '')
        .getByText('child of')
        .count(),
    ).toBe(0);
    await parent.click();
    await page.getByRole('heading', { name: 'Site rollout', level: 1 }).waitFor();
  }, 60_000);

  it('lists a parent’s child jobs each with its status, and a child names its parent as the list does', async () => {
    const children = await childrenOfRollout();
    await page.goto(`${platform.url}/console/jobs/${team.jobs.rollout._id}`);
    const list = page.getByRole('complementary', { name: 'Job details' }).getByRole('region', { name: 'Child jobs' });
    for (const child of children) {
      const item = list.getByRole('listitem').filter({ hasText: suffix(child._id) });
      await item.getByText(child.status, { exact: true }).waitFor();
    }
    expect(await list.getByRole('listitem').getByText('error', { exact: true }).count()).toBe(1);
    expect(await list.getByRole('listitem').getByText('complete', { exact: true }).count()).toBe(2);

    // the task that started them lists them the same way
    await page
      .getByRole('group', { name: 'Graph of job Site rollout' })
      .getByRole('button', { name: /^Check each site/ })
      .click();
    const panel = page.getByRole('complementary', { name: 'Check each site' });
    await panel.getByRole('region', { name: 'Child jobs' }).getByRole('listitem').getByText('error', { exact: true }).waitFor();

    // the child that failed: its parent by name and the end of its id, not a bare id
    const failed = children.find((child) => child.status === 'error')?._id ?? '';
    await panel
      .getByRole('listitem')
      .filter({ hasText: suffix(failed) })
      .getByRole('link')
      .click();
    await page.getByRole('heading', { name: 'Interface check', level: 1 }).waitFor();
    const facts = page.getByRole('definition').filter({ has: page.getByRole('link', { name: /Site rollout/ }) });
    await eventually('the parent named', async () => (await facts.textContent()) === `Site rollout ${suffix(team.jobs.rollout._id)}`);
  }, 60_000);

  it('keeps a table’s words whole on a phone, the table scrolling sideways in its card rather than a word breaking, and why a job stopped in view', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${platform.url}/console/tasks`);
      const table = page.getByRole('table', { name: 'Manual tasks waiting for a person' });
      const task = table.getByRole('link', { name: 'Approve change' }).first();
      await task.waitFor();
      expect(await wordsSplit(task)).toEqual([]);
      expect(await wordsSplit(table.getByRole('link', { name: 'Change approval' }).first())).toEqual([]);

      await page.goto(`${platform.url}/console/audit?operation=admin.login`);
      const login = page.getByRole('table').getByText('admin.login', { exact: true }).first();
      await login.waitFor();
      expect(await wordsSplit(login)).toEqual([]);
      // the page itself does not scroll sideways: the table does, inside its card
      expect(await page.locator('html').evaluate((root) => root.scrollWidth - root.clientWidth)).toBe(0);

      // the jobs in error: each one's name, status and why it stopped in the window at once, its words whole
      await page.goto(`${platform.url}/console/jobs?status=error`);
      const reason = rowOf(team.jobs.errored[0]?._id ?? '').getByText('Check interface state: interface Gi0/1 is down', { exact: true });
      await reason.waitFor();
      // inside the table's card, which scrolls the later columns in
      const [box, card] = await Promise.all([reason.boundingBox(), page.getByRole('table', { name: 'Jobs' }).locator('..').boundingBox()]);
      expect(box !== null && card !== null && box.x >= card.x && box.x + box.width <= card.x + card.width).toBe(true);
      expect(await wordsSplit(reason)).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
    }
  }, 60_000);

  it('met no Content-Security-Policy violation and no page error on the way', () => {
    expect(browser.problems()).toEqual([]);
  });
});

/** The words of an element's text that the browser broke across two lines (each word measured on its own). */
function wordsSplit(element: Locator): Promise<string[]> {
  return element.evaluate((el) => {
    const split: string[] = [];
    const walker = el.ownerDocument.createTreeWalker(el, 4 /* NodeFilter.SHOW_TEXT */);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (const found of text.matchAll(/\S+/g)) {
        const range = el.ownerDocument.createRange();
        range.setStart(node, found.index);
        range.setEnd(node, found.index + found[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) split.push(found[0]);
      }
    }
    return split;
  });
}
