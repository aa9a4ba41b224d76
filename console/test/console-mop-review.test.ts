import { startCliSimulator } from '@nap/lab';
import type { CliSimulator } from '@nap/lab';
import { eventually } from '@nap/testing';
import type { Page } from 'playwright-core';
import { accessibilityViolations, launchBrowser, logInAs, screenshot } from './support/browser';
import type { ConsoleBrowser } from './support/browser';
import { ADMIN, startPlatform } from './support/platform';
import type { RunningPlatform } from './support/platform';
import { startJob } from './support/workflows';

/**
 * A change reviewed as a method of procedure asks it: a command template checks two simulated IOS
 * devices before the change, a person reviews the results (MOP's viewTemplateResults), the change
 * is made, the check runs again, and a person reviews what changed (runTemplatesDiff). The console
 * draws both views for the person who decides — each device, each command, each rule it did not
 * pass, the device's output, the lines added and removed — rather than the JSON behind them.
 */

const USER = 'netops';
const PASSWORD = 'device-pass-2';
const go = { state: 'success', type: 'standard' };
const TEMPLATE = {
  name: 'uplink-check',
  os: 'cisco_ios',
  passRule: true,
  ignoreWarnings: false,
  commands: [
    {
      command: 'show running-config interface <!intf!>',
      passRule: true,
      rules: [
        { rule: 'description <!desc!>', eval: 'contains', severity: 'error' },
        { rule: '^ shutdown', eval: '!RegEx', flags: { multiline: true }, severity: 'warning' },
      ],
    },
  ],
};
const mopTask = (name: string, type: string, summary: string, incoming: Record<string, unknown>, outgoing = {}) => ({
  name,
  app: 'MOP',
  type,
  summary,
  groups: [],
  variables: { incoming, outgoing, error: '', decorators: [] },
});
const REVIEW = {
  name: 'Uplink change review',
  type: 'automation',
  groups: [],
  tasks: {
    workflow_start: { name: 'workflow_start', groups: [] },
    choose: mopTask('chooseDevice', 'manual', 'Choose the device to change', { devices: '$var.job.devices' }),
    pre: mopTask(
      'RunCommandTemplate',
      'automatic',
      'Check before the change',
      { template: 'uplink-check', devices: '$var.job.devices', variables: '$var.job.checks' },
      { mop_template_results: null },
    ),
    review: mopTask('viewTemplateResults', 'manual', 'Review the check', { mop_template_results: '$var.pre.mop_template_results' }),
    post: mopTask(
      'RunCommandTemplate',
      'automatic',
      'Check after the change',
      { template: 'uplink-check', devices: '$var.job.devices', variables: '$var.job.checks' },
      { mop_template_results: null },
    ),
    diff: mopTask('runTemplatesDiff', 'manual', 'Review what changed', {
      pre: '$var.pre.mop_template_results',
      post: '$var.post.mop_template_results',
    }),
    workflow_end: { name: 'workflow_end', groups: [] },
  },
  transitions: {
    workflow_start: { choose: go },
    choose: { pre: go },
    pre: { review: go },
    review: { post: go },
    post: { diff: go },
    diff: { workflow_end: go },
    workflow_end: {},
  },
};

let platform: RunningPlatform;
let browser: ConsoleBrowser;
let page: Page;
const sims: CliSimulator[] = [];

async function configure(device: string, lines: string[]): Promise<void> {
  const answer = await platform.api<{ status: string }>('POST', '/gw/sshSendConfigSet', { host: device, config_commands: lines });
  expect(answer.status).toBe('success');
}

beforeAll(async () => {
  const started = await Promise.all([
    startPlatform(),
    launchBrowser(),
    ...['sim-edge1', 'sim-edge2'].map((hostname) =>
      startCliSimulator({ deviceType: 'cisco_ios', hostname, username: USER, password: PASSWORD, startPrivileged: true }),
    ),
  ]);
  platform = started[0] as RunningPlatform;
  browser = started[1] as ConsoleBrowser;
  sims.push(started[2] as CliSimulator, started[3] as CliSimulator);
  for (const [i, sim] of sims.entries()) {
    await platform.api('POST', '/gw/createInventoryDevice', {
      name: `edge-${i + 1}`,
      groups: ['edge'],
      variables: { gw_host: sim.host, gw_port: sim.port, gw_network_os: 'cisco_ios', gw_user: USER, gw_password: PASSWORD },
    });
  }
  await platform.api('POST', '/mop/createTemplate', { mop: TEMPLATE });
  await platform.api('POST', '/automation-studio/automations', { automation: REVIEW });
  // edge-1 already carries the uplink; edge-2 gets it during the job
  await configure('edge-1', ['interface GigabitEthernet0/1', 'description uplink to core-2', 'no shutdown']);
  page = await browser.newPage();
  await logInAs(page, platform.url, ADMIN.username, ADMIN.password);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  await Promise.all(sims.map((s) => s.stop()));
});

async function taskStatus(jobId: string, taskId: string): Promise<string | undefined> {
  const job = await platform.api<{ data: { tasks: Record<string, { status: string }> } }>('GET', `/operations-manager/jobs/${jobId}`);
  return job.data.tasks[taskId]?.status;
}

describe("a MOP task's view on the job page", () => {
  it('shows the check device by device, the rules a failed command did not pass, and the device output; then what the change changed', async () => {
    const job = await startJob(platform, REVIEW.name, {
      devices: ['edge-1', 'edge-2'],
      checks: { intf: 'GigabitEthernet0/1', desc: 'uplink to core-2' },
    });
    // chooseDevice asks for one of its devices (and only it: the results below list devices too)
    await eventually('the choice waiting for a person', async () =>
      (await taskStatus(job._id, 'choose')) === 'running' ? true : undefined,
    );
    await page.goto(`${platform.url}/console/jobs/${job._id}?task=choose`);
    const choice = page.getByRole('region', { name: 'Waiting for a person' });
    const select = choice.getByLabel('Device');
    await select.waitFor();
    expect(await select.locator('option').allTextContents()).toEqual(['Choose a device…', 'edge-1', 'edge-2']);
    await select.selectOption('edge-2');
    await choice.getByRole('button', { name: 'Finish task' }).click();
    await eventually('the review task waiting for a person', async () =>
      (await taskStatus(job._id, 'review')) === 'running' ? true : undefined,
    );
    const chosen = await platform.api<{ data: { tasks: Record<string, { variables: { outgoing: Record<string, unknown> } }> } }>(
      'GET',
      `/operations-manager/jobs/${job._id}`,
    );
    expect(chosen.data.tasks.choose?.variables.outgoing).toMatchObject({ device: 'edge-2' });

    await page.goto(`${platform.url}/console/jobs/${job._id}?task=review`);
    const panel = page.getByRole('region', { name: 'Waiting for a person' });
    await panel.getByText('uplink-check', { exact: true }).waitFor();
    // a review asks nothing but to finish it
    expect(await panel.getByLabel('Device').count()).toBe(0);
    await panel.getByText('failed on 1 of 2 devices').waitFor();
    const edge1 = panel.getByRole('region', { name: 'edge-1: passed' });
    const edge2 = panel.getByRole('region', { name: 'edge-2: failed' });
    await edge1.getByText('show running-config interface GigabitEthernet0/1').waitFor();
    const failedRules = edge2.getByRole('list', { name: 'Rules show running-config interface GigabitEthernet0/1 did not pass' });
    expect(await failedRules.getByRole('listitem').allTextContents()).toEqual([
      'description uplink to core-2 contains',
      '^ shutdown !RegEx, warning',
    ]);
    expect(await edge1.getByRole('list', { name: /did not pass/ }).count()).toBe(0);
    // the device's own output, one click away
    await edge2.getByText('Device output').click();
    await edge2.getByText(/^ shutdown$/m).waitFor();
    // the data behind it is still there, folded
    expect(await panel.getByText("All the task's data (JSON)").isVisible()).toBe(true);
    expect(await page.getByLabel('Task data').isVisible()).toBe(false);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'console-mop-review.png');

    // the check's own task draws what it returned the same way
    await page.goto(`${platform.url}/console/jobs/${job._id}?task=pre`);
    const check = page.getByRole('region', { name: 'Check results' });
    await check.getByText('failed on 1 of 2 devices').waitFor();
    await check.getByRole('region', { name: 'edge-2: failed' }).getByText('description uplink to core-2').waitFor();
    await check.getByRole('region', { name: 'edge-1: passed' }).waitFor();
    await page.goto(`${platform.url}/console/jobs/${job._id}?task=review`);

    // the person makes the change, then finishes the review; the check runs again
    await configure('edge-2', ['interface GigabitEthernet0/1', 'description uplink to core-2', 'no shutdown']);
    await panel.getByRole('button', { name: 'Finish task' }).click();
    await eventually('the diff task waiting for a person', async () =>
      (await taskStatus(job._id, 'diff')) === 'running' ? true : undefined,
    );

    await page.goto(`${platform.url}/console/jobs/${job._id}?task=diff`);
    await panel.getByText(/^1 of 2 command outputs changed\.$/).waitFor();
    const changed = panel.getByRole('region', { name: 'edge-2: show running-config interface GigabitEthernet0/1' });
    const diff = changed.getByLabel('What changed in show running-config interface GigabitEthernet0/1 on edge-2');
    const lines = (await diff.innerText()).split('\n');
    expect(lines).toContain('+  description uplink to core-2');
    expect(lines).toContain('−  shutdown');
    expect(lines).toContain('  interface GigabitEthernet0/1');
    await changed.getByText('1 line added').waitFor();
    // an output that did not change is not drawn as a diff
    expect(await panel.getByRole('region', { name: /^edge-1: show running-config/ }).count()).toBe(0);
    // before and after, each device by device
    await panel.getByText('Before:').waitFor();
    await panel.getByText('passed on both devices').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'console-mop-diff.png');

    await panel.getByRole('button', { name: 'Finish task' }).click();
    await eventually('the job complete', async () => {
      const answer = await platform.api<{ data: { status: string } }>('GET', `/operations-manager/jobs/${job._id}`);
      return answer.data.status === 'complete' ? true : undefined;
    });
    expect(browser.problems()).toEqual([]);
  }, 90_000);
});

describe("a device's page", () => {
  it('checks the device with a command template, asking for its variables, and draws the outcome as a job does', async () => {
    await page.goto(`${platform.url}/console/devices/edge-1`);
    const card = page.getByRole('region', { name: 'Check with a command template' });
    await card.getByLabel('Command template').selectOption('uplink-check');
    // the template's <!variables!>, one field each, in the order the template uses them
    expect(await card.locator('label').allTextContents()).toEqual(['Command template', 'intf', 'desc']);
    expect(await card.getByRole('textbox').count()).toBe(2);
    await card.getByLabel('intf').fill('GigabitEthernet0/1');
    await card.getByLabel('desc').fill('uplink to core-9');
    await card.getByRole('button', { name: 'Run check' }).click();
    const results = card.getByRole('region', { name: 'Check results' });
    await results.getByText('failed on edge-1').waitFor();
    await results
      .getByRole('list', { name: /did not pass/ })
      .getByText('description uplink to core-9')
      .waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);

    await card.getByLabel('desc').fill('uplink to core-2');
    await card.getByRole('button', { name: 'Run check' }).click();
    await results.getByText('passed on edge-1').waitFor();
    // the device's recent checks: this page's two, newest first, and the job's two, in which edge-1
    // passed although the job's first check failed (on edge-2)
    const recent = page.getByRole('region', { name: 'Recent checks' });
    await eventually('both checks of the page listed', async () => ((await recent.getByRole('listitem').count()) === 4 ? true : undefined));
    const items = recent.getByRole('listitem');
    const verdicts = await items.locator(':scope > div > span:first-child').allInnerTexts();
    expect(verdicts.map((v) => v.trim())).toEqual(['passed', 'failed', 'passed', 'passed']);
    for (const i of [0, 1])
      expect(
        await items
          .nth(i)
          .getByText(/other device/)
          .count(),
      ).toBe(0);
    for (const i of [2, 3])
      await items
        .nth(i)
        .getByText(/by admin, with 1 other device$/)
        .waitFor();
    await recent.getByRole('listitem').nth(1).getByRole('button', { name: /^Show/ }).click();
    await recent.getByRole('listitem').nth(1).getByText('description uplink to core-9').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);

    // the run is kept as any other
    const runs = await platform.api<{ items: { devices: string[]; result: boolean }[] }>(
      'GET',
      '/mop/runs?template=uplink-check&device=edge-1&limit=2',
    );
    expect(runs.items.map((r) => r.result)).toEqual([true, false]);
    expect(browser.problems()).toEqual([]);
  }, 60_000);

  it('offers a project’s command templates by their own names with the project’s name, and lists their checks so', async () => {
    // two projects with a template of the same name, as the fixtures' Cisco projects have
    const projects = [
      ['f11e0001f11e0001f11e0001', 'Core switches'],
      ['f11e0002f11e0002f11e0002', 'Edge routers'],
    ] as const;
    for (const [id, name] of projects)
      await platform.api('POST', '/automation-studio/projects/import', {
        project: {
          _id: id,
          name,
          description: 'made by the console test',
          folders: [{ nodeType: 'folder', name: 'all', children: [{ iid: 0, nodeType: 'component' }] }],
          components: [
            {
              iid: 0,
              type: 'mopCommandTemplate',
              reference: `@${id}: File Verification`,
              folder: '/all',
              document: {
                name: 'File Verification',
                os: '',
                passRule: true,
                commands: [{ command: 'show clock', passRule: true, rules: [{ rule: ':', eval: 'contains', severity: 'error' }] }],
              },
            },
          ],
        },
      });
    await page.goto(`${platform.url}/console/devices/edge-2`);
    const card = page.getByRole('region', { name: 'Check with a command template' });
    const select = card.getByLabel('Command template');
    await eventually('the projects’ names in the choices', async () => {
      const options = await select.locator('option').allTextContents();
      return options.includes('File Verification — Core switches') && options.includes('File Verification — Edge routers');
    });
    const options = await select.locator('option').allTextContents();
    expect(options.some((text) => text.includes('@'))).toBe(false);
    // by name, then by project
    expect(options.indexOf('File Verification — Core switches') + 1).toBe(options.indexOf('File Verification — Edge routers'));
    await select.selectOption({ label: 'File Verification — Edge routers' });
    await card.getByRole('button', { name: 'Run check' }).click();
    await card.getByRole('region', { name: 'Check results' }).getByText('passed on edge-2').waitFor();
    const recent = page.getByRole('region', { name: 'Recent checks' });
    const newest = recent.getByRole('listitem').first();
    await newest.getByText('Edge routers', { exact: true }).waitFor();
    expect(await newest.locator('strong').first().textContent()).toBe('File VerificationEdge routers');
    expect(await newest.textContent()).not.toContain('@f11e');
    expect(await accessibilityViolations(page)).toEqual([]);
  }, 60_000);

  it('shows why a check failed on a device that does not answer', async () => {
    const gone = await startCliSimulator({ deviceType: 'cisco_ios', username: USER, password: PASSWORD, startPrivileged: true });
    await platform.api('POST', '/gw/createInventoryDevice', {
      name: 'gone-1',
      variables: { gw_host: gone.host, gw_port: gone.port, gw_network_os: 'cisco_ios', gw_user: USER, gw_password: PASSWORD },
    });
    await gone.stop();
    await page.goto(`${platform.url}/console/devices/gone-1`);
    const card = page.getByRole('region', { name: 'Check with a command template' });
    await card.getByLabel('Command template').selectOption('uplink-check');
    await card.getByLabel('intf').fill('GigabitEthernet0/1');
    await card.getByLabel('desc').fill('uplink to core-2');
    await card.getByRole('button', { name: 'Run check' }).click();
    const results = card.getByRole('region', { name: 'Check results' });
    await results.getByText('failed on gone-1').waitFor();
    // the device's own error, under the command it stopped
    const why = await results.getByRole('region', { name: 'gone-1: failed' }).locator('li p').first().innerText();
    expect(why).toMatch(/^The command failed on device "gone-1": .*refused the connection/);
    expect(await accessibilityViolations(page)).toEqual([]);
  }, 60_000);
});
