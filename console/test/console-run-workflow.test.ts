import { eventually } from '@nap/testing';
import type { Locator, Page } from 'playwright-core';
import { accessibilityViolations, launchBrowser, logInAs, screenshot } from './support/browser';
import type { ConsoleBrowser } from './support/browser';
import { ADMIN, startPlatform } from './support/platform';
import type { RunningPlatform } from './support/platform';
import { descriptionOf, hasFocus } from './support/fields';
import { COMMAND_TEMPLATE_RUNNER, LONG, PROVISION_VLAN, createWorkflows } from './support/workflows';

/**
 * `Run` on a workflow's page: the job's variables asked as the workflow's inputSchema describes
 * them (a form for plain members, JSON for an imported schema of members of every type, JSON for a
 * workflow without one), the platform's refusal shown in the dialog, the new job's page after,
 * the same dialog from a workflow's row of the workflows list, an automation's form builder form
 * (radio buttons, checkboxes, alternatives), and no Run for an account that may not start jobs.
 */

const READER = { username: 'run-reader', password: 'reader-password-1' } as const;
/** The imported project the Command Template Runner belongs to, as a newcomer's import leaves it. */
const PROJECT_ID = 'c15c0105c15c0105c15c0105';
const RUNNER = `@${PROJECT_ID}: Command Template Runner`;
/**
 * The inputs of the fixtures' "HA Pair Software Upgrade" (Palo Alto Panorama): three required
 * members without an example, one of any type: the JSON starts with a blank for each.
 */
const FIREWALL_UPGRADE = {
  ...LONG,
  name: 'Firewall upgrade',
  inputSchema: {
    type: 'object',
    properties: {
      adapterId: { type: ['array', 'boolean', 'null', 'number', 'object', 'string'] },
      targetVersion: { type: 'string' },
      firewall: { type: 'string' },
      seconds: { type: 'integer', default: 0 },
      _id: { title: 'job_id', type: 'string', examples: ['test'] },
    },
    required: ['adapterId', 'targetVersion', 'firewall', '_id'],
  },
};

/**
 * A change window's request: a choice (enum), a box that must stay ticked (a boolean, `const: true`:
 * RJSF ticks it to start with), a list of device names (at least one) and a contact (an object
 * whose name is required). The workflow takes
 * it as its inputSchema, its automation's manual trigger asks it with a studio form of the same
 * schema: RJSF draws every kind of field the console has for it.
 */
const CHANGE_WINDOW_SCHEMA = {
  type: 'object',
  properties: {
    site: { type: 'string', title: 'Site', enum: ['paris', 'lyon'], enumNames: ['Paris (PA3)', 'Lyon (LY1)'] },
    agreed: { type: 'boolean', title: 'The window is agreed with the site', const: true },
    devices: { type: 'array', title: 'Devices', minItems: 1, items: { type: 'string', title: 'Device', minLength: 1 } },
    contact: {
      type: 'object',
      title: 'Contact',
      properties: { name: { type: 'string', title: 'Name' }, phone: { type: 'string', title: 'Phone' } },
      required: ['name'],
    },
  },
  required: ['site', 'agreed', 'devices', 'contact'],
};
const CHANGE_WINDOW = {
  ...LONG,
  name: 'Change window',
  tasks: {
    ...LONG.tasks,
    wait: {
      name: 'stub',
      app: 'WorkFlowEngine',
      type: 'automatic',
      summary: 'Book the window',
      groups: [],
      variables: { incoming: { type: 'success', delay: 0, response: 'booked' }, outgoing: { response: null } },
    },
  },
  inputSchema: CHANGE_WINDOW_SCHEMA,
};

/**
 * A security rule's request as the platform's form builder writes one (Panorama's and Meraki's forms):
 * a choice drawn as radio buttons (`ui:widget: radio`, `enumNames` left blank: the values name the
 * choices), an optional one (radio buttons too, side by side), yes-or-no questions offered as their
 * two values (radio buttons there too: one optional, one required, one that starts on its `default`), two lists of
 * choices (checkboxes, named by the items' `enumNames`; both required, one with `minItems: 1`: at
 * least one choice, the other takes none, as JSON Schema's `required` does), two fields of
 * alternatives (`oneOf`): a destination that is an IPv4 address or a host name, a port that is a
 * number or a service's name, a required plain boolean (Yes and No too: a lone checkbox cannot say
 * "unanswered"), one its UI draws as a checkbox (unticked, it answers "No") and an optional plain one
 * (a checkbox that can be left unanswered).
 */
const SECURITY_RULE_FORM = {
  schema: {
    title: 'Create security rule',
    type: 'object',
    required: ['securityRule', 'rollBack', 'productTypes', 'zones', 'destination', 'commit', 'dryRun'],
    properties: {
      securityRule: { type: 'string', title: 'Security Rule', enum: ['Pre Rule', 'Post Rule'], enumNames: ['', ''] },
      action: { type: 'string', title: 'Action', enum: ['allow', 'deny'], enumNames: ['Allow', 'Deny'] },
      logStart: { type: 'boolean', title: 'Log at session start', enum: [true, false] },
      rollBack: { type: 'boolean', title: 'Roll back on failure', enum: [true, false] },
      notify: { type: 'boolean', title: 'Notify the owner', enum: [true, false], default: true },
      productTypes: {
        type: 'array',
        title: 'Product Types',
        uniqueItems: true,
        minItems: 1,
        default: [],
        items: {
          type: 'string',
          enum: ['appliance', 'camera', 'switch', 'wireless'],
          enumNames: ['Appliance', 'Camera', 'Switch', 'Wireless'],
        },
      },
      zones: {
        type: 'array',
        title: 'Zones to log',
        uniqueItems: true,
        items: { type: 'string', enum: ['trust', 'untrust', 'dmz'], enumNames: ['Trust', 'Untrust', 'DMZ'] },
      },
      destination: {
        title: 'Destination',
        description: 'where the rule lets the traffic go',
        oneOf: [
          { title: 'IPv4 address', type: 'string', format: 'ipv4' },
          { title: 'Host name', type: 'string', pattern: '^[a-z][a-z0-9.-]*$' },
        ],
      },
      port: {
        title: 'Port',
        oneOf: [
          { title: 'Number', type: 'integer', minimum: 1, maximum: 65535 },
          { title: 'Service name', type: 'string', pattern: '^[a-z-]+$' },
        ],
      },
      commit: { type: 'boolean', title: 'Commit on Panorama' },
      dryRun: { type: 'boolean', title: 'Dry run only' },
      hitCount: { type: 'boolean', title: 'Reset the hit count' },
    },
  },
  uiSchema: {
    securityRule: { 'ui:widget': 'radio', 'ui:help': 'Whether to create a pre or a post rule' },
    action: { 'ui:widget': 'radio', 'ui:options': { inline: true } },
    dryRun: { 'ui:widget': 'checkbox' },
  },
};

/**
 * A drain before maintenance: the switches to take out of service (a list of names, at least one)
 * and who is on call (an object whose name is required). The Run dialog asks it with a form: each
 * item and member a field, labelled and placeheld as the plain ones.
 */
const DRAIN = {
  ...CHANGE_WINDOW,
  name: 'Drain switches',
  inputSchema: {
    type: 'object',
    properties: {
      devices: {
        type: 'array',
        title: 'Switches',
        description: 'taken out of service in this order',
        minItems: 1,
        items: { type: 'string', minLength: 1, examples: ['core-1'] },
      },
      contact: {
        type: 'object',
        title: 'On call',
        properties: {
          name: { type: 'string', title: 'Name', examples: ['Ana Costa'] },
          phone: { type: 'string', title: 'Phone', pattern: '^\\+[0-9 ]+$', examples: ['+33 1 23 45 67 89'] },
        },
        required: ['name'],
      },
      _id: { type: 'string' },
    },
    required: ['devices', 'contact', '_id'],
  },
};

let platform: RunningPlatform;
let browser: ConsoleBrowser;
let page: Page;
/** The starts the page asked the platform for, by their bodies. */
const starts: unknown[] = [];
/** What the page wrote to the browser's console as errors, but the browser's own line for each refusal (a 400, a 401). */
const logged: string[] = [];

/** An automation run from the console through a manual trigger with `form`. */
async function automationWithForm(form: Record<string, unknown>, automation: Record<string, unknown>): Promise<void> {
  const created = await platform.api<{ data: { _id: string } }>('POST', '/formbuilder/forms', { form });
  const action = await platform.api<{ data: { _id: string } }>('POST', '/operations-manager/automations', { automation });
  await platform.api('POST', '/operations-manager/triggers', {
    name: 'From the console',
    type: 'manual',
    actionId: action.data._id,
    formId: created.data._id,
  });
}

beforeAll(async () => {
  [platform, browser] = await Promise.all([startPlatform(), launchBrowser()]);
  await createWorkflows(platform, PROVISION_VLAN, LONG, FIREWALL_UPGRADE, CHANGE_WINDOW, DRAIN);
  await automationWithForm(
    { name: 'Change window request', schema: CHANGE_WINDOW_SCHEMA, uiSchema: {}, validationSchema: CHANGE_WINDOW_SCHEMA },
    { name: 'Book a change window', description: 'Books a window with a site', componentName: 'Change window' },
  );
  await automationWithForm(
    { name: 'Security rule request', ...SECURITY_RULE_FORM, validationSchema: {} },
    { name: 'Create a security rule', description: 'Asks Panorama for a rule', componentName: 'Long maintenance' },
  );
  await platform.api('POST', '/automation-studio/projects/import', {
    project: {
      _id: PROJECT_ID,
      name: 'Cisco IOS',
      description: 'made by the console test',
      folders: [{ nodeType: 'folder', name: 'all', children: [{ iid: 0, nodeType: 'component' }] }],
      components: [{ iid: 0, type: 'workflow', reference: `${PROJECT_ID}-wf`, folder: '/all', document: COMMAND_TEMPLATE_RUNNER }],
    },
  });
  const group = await platform.api<{ data: { _id: string } }>('POST', '/user-management/groups', { group: { name: 'readers' } });
  await platform.api('PUT', `/user-management/groups/${group.data._id}/roles`, { roles: ['apiread'] });
  await platform.api('POST', '/user-management/accounts', {
    account: { ...READER, firstname: 'Run', lastname: 'Reader', email: 'run-reader@example.net', groups: [group.data._id] },
  });
  page = await browser.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' && !/^Failed to load resource/.test(message.text())) logged.push(message.text());
  });
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/operations-manager/jobs/start')
      starts.push(request.postDataJSON());
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

function logIn(username: string, password: string): Promise<void> {
  return logInAs(page, platform.url, username, password);
}

/** What a screen reader says after a field's name (its problem, description, help), or '' for nothing. */
async function said(field: Locator): Promise<string> {
  return (await descriptionOf(field)).replace(/\s+/g, ' ').trim();
}

async function expectAccessible(): Promise<void> {
  expect(await accessibilityViolations(page)).toEqual([]);
}

/** Opens the page of the workflow stored as `stored` and its Run dialog, named by the workflow's own name. */
async function openRun(stored: string, name = stored) {
  await page.goto(`${platform.url}/console/workflows/${encodeURIComponent(stored)}`);
  await page.getByRole('heading', { name: new RegExp(`^${name}`), level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: `Run ${name}` });
  await dialog.waitFor();
  return dialog;
}

/** The job the page went to, once it shows it complete: its variables and description as the platform keeps them. */
async function landedJob(workflow: string): Promise<{ variables: Record<string, unknown>; description?: string }> {
  await page.waitForURL(/\/console\/jobs\//);
  await page.getByRole('heading', { name: new RegExp(`^${workflow}`), level: 1 }).waitFor();
  const jobId = /\/console\/jobs\/([^/?]+)$/.exec(page.url())?.[1];
  expect(jobId).toMatch(/^[0-9a-f]{24}$/);
  await page.locator('h1 + [data-status="complete"]').waitFor();
  const job = await platform.api<{ data: { variables: Record<string, unknown>; description?: string } }>(
    'GET',
    `/operations-manager/jobs/${jobId ?? ''}`,
  );
  return job.data;
}

describe('Run on a workflow’s page', () => {
  it('asks for plain inputs with a form, examples as placeholders, and opens the new job complete with the values given', async () => {
    await logIn(ADMIN.username, ADMIN.password);
    const dialog = await openRun('Provision VLAN');
    // labelled by the schema's title, the variable's name beside it
    const vlan = dialog.getByRole('spinbutton', { name: /^VLAN id/ });
    const descriptions = await vlan.evaluate((input) =>
      (input.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id: string) => input.ownerDocument.getElementById(id)?.textContent ?? null),
    );
    expect(descriptions).toContain('vlan');
    // the example shows what to write; it is not a value that would be sent
    expect(await vlan.getAttribute('placeholder')).toBe('120');
    expect(await vlan.inputValue()).toBe('');
    // _id is the platform's to give: not asked
    expect(await dialog.getByRole('textbox', { name: /^_id/ }).count()).toBe(0);
    await expectAccessible();

    // the form's own check first: required members, the focus on the first
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await dialog.getByText('device is required').first().waitFor();
    expect(await dialog.getByRole('textbox', { name: /^device/ }).evaluate((e) => e === e.ownerDocument.activeElement)).toBe(true);
    // each read out with its problem first, then what it is
    expect(await said(dialog.getByRole('textbox', { name: /^device/ }))).toBe('device is required. the switch');
    expect(await said(vlan)).toBe('VLAN id is required. vlan');
    expect(await vlan.getAttribute('aria-invalid')).toBe('true');
    expect(await dialog.getByRole('textbox', { name: /^vlanName/ }).getAttribute('aria-invalid')).toBeNull();
    expect(starts).toHaveLength(0);

    await dialog.getByRole('textbox', { name: /^device/ }).fill('core-2');
    await vlan.fill('230');
    await dialog.getByRole('textbox', { name: /^vlanName/ }).fill('voice');
    await dialog.getByRole('textbox', { name: /^Description/ }).fill('VLAN for the phones');
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    const job = await landedJob('Provision VLAN');
    expect(job.variables).toMatchObject({ device: 'core-2', vlan: 230, vlanName: 'voice' });
    expect(job.variables).not.toHaveProperty('shutdown');
    expect(job.description).toBe('VLAN for the phones');
    // the job's page shows the variables given and the task that used them
    await page.getByLabel('Job variables').getByText('"vlan": 230').waitFor();
    await page.getByRole('button', { name: /^Create the VLAN — complete/ }).waitFor();
  }, 60_000);

  it('asks for an imported project workflow’s members of every type as JSON: a table of the inputs, a skeleton of their examples, a syntax error said before sending', async () => {
    const dialog = await openRun(RUNNER, 'Command Template Runner');
    await dialog.getByText('Cisco IOS', { exact: true }).waitFor();
    expect(await dialog.getByRole('button', { name: 'Edit as a form' }).count()).toBe(0);
    const inputs = dialog.getByRole('table', { name: 'Inputs' });
    const cells = async (name: string) =>
      inputs
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${name}\\b`) }) })
        .getByRole('cell')
        .allTextContents();
    expect(await cells('deviceName')).toEqual(['any but null', 'yes', 'Device3']);
    expect(await cells('suppressSuccessMessage')).toEqual(['any', 'yes', '—']);
    expect(await cells('templateVariables')).toEqual(['object', 'yes', '{ "device_name": "my-device1" }']);
    expect(await cells('_id')).toEqual(['string', 'given by the platform', 'test']);
    const json = dialog.getByRole('textbox', { name: 'Variables as JSON' });
    expect(JSON.parse(await json.inputValue())).toEqual({
      suppressSuccessMessage: null,
      templateName: 'show version',
      templateVariables: { device_name: 'my-device1' },
      reattempt: null,
      reattemptWaitTime: 1,
      reattemptQuantity: 2,
      deviceName: 'Device3',
      suppressFailureMessage: null,
    });
    await expectAccessible();

    // the blanks are there to be written over: Run as it opened sends nothing, and says which
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await dialog
      .getByRole('alert')
      .filter({
        hasText:
          'Nothing was sent: suppressSuccessMessage, reattempt and suppressFailureMessage are required, and are still blank (null or ""): write a value for each.',
      })
      .waitFor();
    expect(await json.getAttribute('aria-invalid')).toBe('true');
    expect(starts).toHaveLength(1);

    // the platform's refusal names the workflow by its own name, not `@<project id>: …`
    await json.fill('{ "templateName": 5 }');
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    const refusal = dialog.getByRole('alert').filter({ hasText: /^The workflow did not start: / });
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain('"Command Template Runner"');
    expect(await refusal.textContent()).not.toContain(PROJECT_ID);
    expect(starts).toHaveLength(2);

    // what was written stays as written after a refusal
    await json.fill('{ "templateName": "show clock", }');
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await dialog
      .getByRole('alert')
      .filter({ hasText: /^Nothing was sent: The variables are not valid JSON: / })
      .waitFor();
    expect(await json.getAttribute('aria-invalid')).toBe('true');
    expect(await json.inputValue()).toBe('{ "templateName": "show clock", }');
    expect(starts).toHaveLength(2);
    await expectAccessible();

    const variables = {
      suppressSuccessMessage: false,
      templateName: 'show clock',
      templateVariables: { device_name: 'edge-7' },
      reattempt: false,
      reattemptWaitTime: 1,
      reattemptQuantity: 2,
      deviceName: ['edge-7', 'edge-8'],
      suppressFailureMessage: false,
    };
    await json.fill(JSON.stringify(variables, null, 2));
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    const job = await landedJob('Command Template Runner');
    expect(job.variables).toMatchObject(variables);
    expect(starts).toHaveLength(3);
    expect(starts[2]).toEqual({ workflow: RUNNER, options: { variables } });
  }, 60_000);

  it('shows the platform’s refusal naming each member, and stays in the dialog', async () => {
    const dialog = await openRun('Provision VLAN');
    const before = page.url();
    // the form's own checks would catch these: written as JSON they reach the platform
    await dialog.getByRole('button', { name: 'Edit as JSON' }).click();
    const json = dialog.getByRole('textbox', { name: 'Variables as JSON' });
    // the examples the author wrote; shutdown has none and is not required: it is left out, not sent as false
    expect(JSON.parse(await json.inputValue())).toEqual({ device: 'core-1', vlan: 120, vlanName: 'guests' });
    await json.fill('{ "vlan": "ten" }');
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    const refusal = dialog.getByRole('alert').filter({ hasText: /^The workflow did not start: / });
    await refusal.waitFor();
    const text = (await refusal.textContent()) ?? '';
    expect(text).toContain("variables must have required property 'device'");
    expect(text).toContain('variables.vlan must be integer');
    expect(text).toContain('JOB_VARIABLES_INVALID');
    expect(page.url()).toBe(before);
    await expectAccessible();

    // back to the form with what the JSON says, once it is JSON
    await json.fill('{ "device": "core-3", "vlan": 300');
    await dialog.getByRole('button', { name: 'Edit as a form' }).click();
    await dialog
      .getByRole('alert')
      .filter({ hasText: /^The form cannot show these variables: The variables are not valid JSON/ })
      .waitFor();
    await json.fill('{ "device": "core-3", "vlan": 300 }');
    await dialog.getByRole('button', { name: 'Edit as a form' }).click();
    expect(await dialog.getByRole('textbox', { name: /^device/ }).inputValue()).toBe('core-3');
    expect(await dialog.getByRole('spinbutton', { name: /^VLAN id/ }).inputValue()).toBe('300');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // the focus goes back to the control that opened the dialog
    expect(await page.locator(':focus').textContent()).toBe('Run');
  }, 60_000);

  it('runs a workflow without an inputSchema with the JSON written', async () => {
    const dialog = await openRun('Long maintenance');
    await dialog.getByText('The workflow declares no inputs').waitFor();
    const json = dialog.getByRole('textbox', { name: 'Variables as JSON' });
    expect(await json.inputValue()).toBe('{}');
    await json.fill('{ "seconds": 0 }');
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    expect((await landedJob('Long maintenance')).variables).toMatchObject({ seconds: 0 });
  }, 60_000);

  it('starts no job with required inputs left blank: Run names them, and the platform names those left out', async () => {
    const before = starts.length;
    const dialog = await openRun('Firewall upgrade');
    const json = dialog.getByRole('textbox', { name: 'Variables as JSON' });
    expect(JSON.parse(await json.inputValue())).toEqual({ adapterId: null, targetVersion: '', firewall: '', seconds: 0 });
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    const blocked = dialog.getByRole('alert').filter({ hasText: /^Nothing was sent: / });
    await blocked.waitFor();
    expect(await blocked.textContent()).toBe(
      'Nothing was sent: adapterId, targetVersion and firewall are required, and are still blank (null or ""): write a value for each.',
    );
    // spaces are blank too; what was written stays
    await json.fill('{ "adapterId": "pan-1", "targetVersion": "  ", "firewall": "fw-east-1", "seconds": 0 }');
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await blocked.filter({ hasText: 'targetVersion is required, and is still blank' }).waitFor();
    expect(await json.inputValue()).toContain('"firewall": "fw-east-1"');
    expect(starts).toHaveLength(before);
    // a member left out is the platform's to refuse, naming it
    await json.fill('{ "adapterId": "pan-1", "firewall": "fw-east-1", "seconds": 0 }');
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await dialog
      .getByRole('alert')
      .filter({ hasText: /^The workflow did not start: .*must have required property 'targetVersion'/ })
      .waitFor();
    expect(starts).toHaveLength(before + 1);
    await json.fill('{ "adapterId": "pan-1", "targetVersion": "11.1.2", "firewall": "fw-east-1", "seconds": 0 }');
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    expect((await landedJob('Firewall upgrade')).variables).toMatchObject({
      adapterId: 'pan-1',
      targetVersion: '11.1.2',
      firewall: 'fw-east-1',
    });
  }, 60_000);

  it('says on the log-in page that the session ended while Run was sending, and gives back what was written after the log-in', async () => {
    const dialog = await openRun('Provision VLAN');
    await dialog.getByRole('textbox', { name: /^device/ }).fill('core-9');
    await dialog.getByRole('spinbutton', { name: /^VLAN id/ }).fill('909');
    await dialog.getByRole('textbox', { name: /^vlanName/ }).fill('lab');
    await dialog.getByRole('textbox', { name: /^Description/ }).fill('CHG-2001');
    // the person logs out in another tab: this one does not know yet
    const other = await browser.newPage();
    await other.goto(`${platform.url}/console/jobs`);
    await other.getByRole('button', { name: 'Log out' }).click();
    await other.getByRole('button', { name: 'Log in' }).waitFor();
    await other.close();
    const before = starts.length;
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    const said = page.getByRole('status').filter({ hasText: /^Your session ended/ });
    await said.waitFor();
    expect(await said.textContent()).toBe(
      'Your session ended (you logged out in another tab or window, or it expired). What you were sending was not sent: log in again, and the form opens with what you wrote.',
    );
    expect(starts).toHaveLength(before + 1);
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    const again = page.getByRole('dialog', { name: 'Run Provision VLAN' });
    await again.getByText('Your session ended before this was sent.').waitFor();
    expect(await again.getByRole('textbox', { name: /^device/ }).inputValue()).toBe('core-9');
    expect(await again.getByRole('spinbutton', { name: /^VLAN id/ }).inputValue()).toBe('909');
    expect(await again.getByRole('textbox', { name: /^Description/ }).inputValue()).toBe('CHG-2001');
    await expectAccessible();
    await again.getByRole('button', { name: 'Run', exact: true }).click();
    const job = await landedJob('Provision VLAN');
    expect(job.variables).toMatchObject({ device: 'core-9', vlan: 909 });
    expect(job.description).toBe('CHG-2001');
    // given back once: the next Run starts empty
    await page.goBack();
    const fresh = await openRun('Provision VLAN');
    expect(await fresh.getByRole('textbox', { name: /^device/ }).inputValue()).toBe('');
    expect(await fresh.getByText('Your session ended before this was sent.').count()).toBe(0);
    await page.keyboard.press('Escape');
  }, 60_000);

  it('runs a workflow from its row of the workflows list, with the same dialog and form as its page', async () => {
    await page.goto(`${platform.url}/console/workflows`);
    const table = page.getByRole('table', { name: 'Workflows' });
    const row = table.getByRole('row').filter({ has: page.getByRole('link', { name: 'Provision VLAN', exact: true }) });
    // one Run a row, named by its workflow (a project member by its own name)
    await row.getByRole('button', { name: 'Run Provision VLAN', exact: true }).waitFor();
    expect(await table.getByRole('button', { name: 'Run Command Template Runner', exact: true }).count()).toBe(1);
    await row.getByRole('button', { name: 'Run Provision VLAN', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Run Provision VLAN' });
    // the workflow's inputs as a form, as on its page
    const vlan = dialog.getByRole('spinbutton', { name: /^VLAN id/ });
    expect(await vlan.getAttribute('placeholder')).toBe('120');
    await expectAccessible();
    // closing it leaves the list as it was, the focus back on the row's Run
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(new URL(page.url()).searchParams.get('run')).toBeNull();
    expect(await hasFocus(row.getByRole('button', { name: 'Run Provision VLAN', exact: true }))).toBe(true);

    await page.keyboard.press('Enter');
    await dialog.getByRole('textbox', { name: /^device/ }).fill('core-7');
    await vlan.fill('707');
    // the session ends in another tab as it sends: after the log-in, the list opens the dialog again with what was written
    const other = await browser.newPage();
    await other.goto(`${platform.url}/console/jobs`);
    await other.getByRole('button', { name: 'Log out' }).click();
    await other.getByRole('button', { name: 'Log in' }).waitFor();
    await other.close();
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await dialog.getByText('Your session ended before this was sent.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/workflows');
    expect(await dialog.getByRole('textbox', { name: /^device/ }).inputValue()).toBe('core-7');
    expect(await vlan.inputValue()).toBe('707');
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    const job = await landedJob('Provision VLAN');
    expect(job.variables).toMatchObject({ device: 'core-7', vlan: 707 });
  }, 60_000);

  it('asks for a list and a nested object with the form too: each item and member a field, the problems said and focused, the job started with what was written', async () => {
    await page.goto(`${platform.url}/console/workflows`);
    const row = page
      .getByRole('table', { name: 'Workflows' })
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: 'Drain switches', exact: true }) });
    await row.getByRole('button', { name: 'Run Drain switches', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Run Drain switches' });
    const run = dialog.getByRole('button', { name: 'Run', exact: true });
    const switches = dialog.getByRole('group', { name: /^Switches/ });
    const contact = dialog.getByRole('group', { name: /^On call/ });
    const name = contact.getByRole('textbox', { name: /^Name/ });
    const phone = contact.getByRole('textbox', { name: /^Phone/ });
    await switches.waitFor();
    // a form, not JSON: the list starts with the one item it needs, empty, its example as a placeholder
    expect(await dialog.getByRole('textbox', { name: 'Variables as JSON' }).count()).toBe(0);
    const first = switches.getByRole('textbox').first();
    expect(await switches.getByRole('textbox').count()).toBe(1);
    expect([await first.inputValue(), await first.getAttribute('placeholder')]).toEqual(['', 'core-1']);
    // an item is labelled as the problems name it (Item 1 of Switches), not RJSF's Switches-1
    expect(await switches.getByRole('textbox', { name: /^Item 1/ }).count()).toBe(1);
    expect([await name.getAttribute('placeholder'), await phone.getAttribute('placeholder')]).toEqual(['Ana Costa', '+33 1 23 45 67 89']);
    // a group titled otherwise than its variable names the variable, as a plain field does
    expect(await said(switches)).toBe('devices: taken out of service in this order');
    expect(await said(contact)).toBe('contact');
    await expectAccessible();
    const before = starts.length;

    await run.click();
    await dialog.getByText('Nothing was sent: 2 fields need a change.').waitFor();
    for (const [field, sentence] of [
      [first, 'Item 1 of Switches is required.'],
      [name, 'Name in On call is required.'],
    ] as const)
      expect([await field.getAttribute('aria-invalid'), await said(field)]).toEqual(['true', sentence]);
    await eventually('the focus on the first item', () => hasFocus(first));
    expect(starts).toHaveLength(before);
    await screenshot(page, 'run-workflow-list-object-invalid.png');

    await first.fill('core-1');
    await switches.getByRole('button', { name: 'Add an item to Switches' }).click();
    await switches.getByRole('textbox').nth(1).fill('core-2');
    await name.fill('Ana Costa');
    await phone.fill('0123');
    await run.click();
    await eventually('Phone marked invalid', async () => (await phone.getAttribute('aria-invalid')) === 'true');
    expect(await said(phone)).toBe('Phone in On call does not match pattern "^\\+[0-9 ]+$".');
    expect(await first.getAttribute('aria-invalid')).toBeNull();
    expect(starts).toHaveLength(before);
    await phone.fill('+33 1 23 45 67 89');
    // the same variables as JSON, and back to the form as they were
    await dialog.getByRole('button', { name: 'Edit as JSON' }).click();
    const variables = { devices: ['core-1', 'core-2'], contact: { name: 'Ana Costa', phone: '+33 1 23 45 67 89' } };
    expect(JSON.parse(await dialog.getByRole('textbox', { name: 'Variables as JSON' }).inputValue())).toEqual(variables);
    await dialog.getByRole('button', { name: 'Edit as a form' }).click();
    expect(await switches.getByRole('textbox').nth(1).inputValue()).toBe('core-2');
    await screenshot(page, 'run-workflow-list-object.png');
    await run.click();
    const job = await landedJob('Drain switches');
    expect(job.variables).toMatchObject(variables);
    expect(starts[before]).toEqual({ workflow: 'Drain switches', options: { variables } });
  }, 60_000);

  it('says which field of a form is wrong to everyone: each kind of field invalid and described by a sentence naming it, the focus on the first', async () => {
    await logIn(ADMIN.username, ADMIN.password);
    await page.goto(`${platform.url}/console/automations`);
    const row = page.getByRole('row').filter({ hasText: 'Book a change window' });
    await row.getByRole('button', { name: 'Run' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run Book a change window' });
    const run = dialog.getByRole('button', { name: 'Run', exact: true });
    const site = dialog.getByRole('combobox', { name: /^Site/ });
    const agreed = dialog.getByRole('checkbox', { name: /^The window is agreed/ });
    const devices = dialog.getByRole('group', { name: /^Devices/ });
    // the list starts with the one item it needs, empty
    const device = devices.getByRole('textbox', { name: /^Device/ });
    const contact = dialog.getByRole('group', { name: /^Contact/ });
    const name = contact.getByRole('textbox', { name: /^Name/ });
    const phone = contact.getByRole('textbox', { name: /^Phone/ });
    await site.waitFor();
    expect(await agreed.isChecked()).toBe(true);
    // nothing is said wrong before a submit
    for (const field of [site, agreed, devices, device, name]) {
      expect(await field.getAttribute('aria-invalid')).toBeNull();
      expect(await said(field)).toBe('');
    }
    const before = starts.length;

    await run.click();
    await eventually('Site marked invalid', async () => (await site.getAttribute('aria-invalid')) === 'true');
    // a choice, a list's item, an object's member: invalid, the problem read out with each as a sentence naming it
    const expected: [Locator, string][] = [
      [site, 'Site is required.'],
      [device, 'Item 1 of Devices is required.'],
      [name, 'Name in Contact is required.'],
    ];
    for (const [field, sentence] of expected)
      expect([await field.getAttribute('aria-invalid'), await said(field)]).toEqual(['true', sentence]);
    // a field with nothing wrong says nothing of a problem, nor do the groups around those that have one
    for (const field of [agreed, phone, devices, contact]) {
      expect(await field.getAttribute('aria-invalid')).toBeNull();
      expect(await said(field)).toBe('');
    }
    // the focus on the first invalid field as the form reads
    await eventually('the focus on Site', () => hasFocus(site));
    // the top says how many fields, each a link to its field
    await dialog.getByText('Nothing was sent: 3 fields need a change.').waitFor();
    const summary = dialog.getByRole('list').filter({ has: page.getByRole('link', { name: 'Site', exact: true }) });
    expect(await summary.getByRole('link').allTextContents()).toEqual(['Site', 'Item 1 of Devices', 'Name in Contact']);
    await summary.getByRole('link', { name: 'Name in Contact' }).click();
    expect(await hasFocus(name)).toBe(true);
    expect(starts).toHaveLength(before);
    await expectAccessible();

    // the box cleared and the list emptied: each refused in its own words, the box the first and focused
    await site.selectOption({ label: 'Lyon (LY1)' });
    await agreed.uncheck();
    await devices.getByRole('button', { name: 'Remove item 1' }).click();
    await run.click();
    await eventually('the box marked invalid', async () => (await agreed.getAttribute('aria-invalid')) === 'true');
    expect(await said(agreed)).toBe('The window is agreed with the site must be ticked.');
    expect(await devices.getAttribute('aria-invalid')).toBe('true');
    expect(await said(devices)).toBe('Devices needs at least one item.');
    expect(await site.getAttribute('aria-invalid')).toBeNull();
    expect(await said(site)).toBe('');
    await eventually('the focus on the box', () => hasFocus(agreed));
    await expectAccessible();
    await screenshot(page, 'run-form-invalid.png');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'run-form-invalid-phone.png');
    await page.setViewportSize({ width: 1280, height: 800 });
    // a list refused as a list takes the focus itself: the group, read out with its problem
    await dialog.getByRole('link', { name: 'Devices', exact: true }).click();
    expect(await hasFocus(devices)).toBe(true);

    await agreed.check();
    await devices.getByRole('button', { name: 'Add an item to Devices' }).click();
    await device.fill('core-1');
    await name.fill('Ana Costa');
    await run.click();
    await page.waitForURL(/\/console\/jobs\//);
    const jobId = /\/console\/jobs\/([^/?]+)$/.exec(page.url())?.[1] ?? '';
    const job = await platform.api<{ data: { variables: Record<string, unknown> } }>('GET', `/operations-manager/jobs/${jobId}`);
    expect(job.data.variables).toMatchObject({ site: 'lyon', agreed: true, devices: ['core-1'], contact: { name: 'Ana Costa' } });
  }, 60_000);

  it('asks a form builder’s choices as groups of radio buttons and checkboxes and its alternatives with a chooser: named groups, problems said and focused, the keyboard, the values sent', async () => {
    await page.goto(`${platform.url}/console/automations`);
    await page.getByRole('row').filter({ hasText: 'Create a security rule' }).getByRole('button', { name: 'Run' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run Create a security rule' });
    const run = dialog.getByRole('button', { name: 'Run', exact: true });
    // each a fieldset named by the field's label
    const rules = dialog.getByRole('group', { name: /^Security Rule/ });
    const [pre, post] = [rules.getByRole('radio', { name: 'Pre Rule' }), rules.getByRole('radio', { name: 'Post Rule' })];
    const log = dialog.getByRole('group', { name: /^Log at session start/ });
    const rollBack = dialog.getByRole('group', { name: /^Roll back on failure/ });
    const notify = dialog.getByRole('group', { name: /^Notify the owner/ });
    const commit = dialog.getByRole('group', { name: /^Commit on Panorama/ });
    const yesNo = async (group: Locator) => [
      await group.getByRole('radio', { name: 'Yes' }).isChecked(),
      await group.getByRole('radio', { name: 'No', exact: true }).isChecked(),
    ];
    const products = dialog.getByRole('group', { name: /^Product Types/ });
    const box = (name: string) => products.getByRole('checkbox', { name, exact: true });
    const zones = dialog.getByRole('group', { name: /^Zones to log/ });
    const hitCount = dialog.getByRole('checkbox', { name: 'Reset the hit count' });
    const destinationGroup = dialog.getByRole('group', { name: /^Destination/ });
    const kind = destinationGroup.getByRole('combobox', { name: /^Destination/ });
    const portGroup = dialog.getByRole('group', { name: /^Port/ });
    await pre.waitFor();
    // the items' enumNames name the boxes; a yes-or-no is two radio buttons, neither chosen, required or not (never
    // "No" to start with: RJSF's default for a required boolean), a plain boolean too; one with a default starts on it
    expect(await products.getByRole('checkbox').count()).toBe(4);
    for (const group of [log, rollBack, commit]) expect(await yesNo(group)).toEqual([false, false]);
    expect(await yesNo(notify)).toEqual([true, false]);
    expect(await commit.getByRole('checkbox').count()).toBe(0);
    const dryRun = dialog.getByRole('checkbox', { name: 'Dry run only' });
    expect(await dryRun.isChecked()).toBe(false);
    // a list that needs a choice (`minItems`) is marked so; a required one without takes none: no mark, nothing ticked
    expect(await products.getAttribute('aria-invalid')).toBeNull();
    expect(await dialog.getByRole('group', { name: 'Product Types*', exact: true }).count()).toBe(1);
    expect(await dialog.getByRole('group', { name: 'Zones to log', exact: true }).count()).toBe(1);
    expect(await Promise.all((await zones.getByRole('checkbox').all()).map((one) => one.isChecked()))).toEqual([false, false, false]);
    // an optional plain yes-or-no: a checkbox, unanswered (read out as mixed) until ticked
    expect(await hitCount.ariaSnapshot()).toBe('- checkbox "Reset the hit count" [checked=mixed]');
    // a field of alternatives: its chooser named by its label, the chosen kind's field within, read with its description
    expect(await kind.inputValue()).toBe('0');
    expect(await said(kind)).toBe('where the rule lets the traffic go');
    for (const field of [pre, box('Camera'), kind]) expect(await field.getAttribute('aria-invalid')).toBeNull();
    await expectAccessible();

    // nothing chosen: each group refused in a sentence naming it, the focus on the first radio button
    await run.click();
    await dialog.getByText('Nothing was sent: 5 fields need a change.').waitFor();
    const summary = dialog.getByRole('list').filter({ has: page.getByRole('link', { name: 'Security Rule', exact: true }) });
    expect(await summary.getByRole('link').allTextContents()).toEqual([
      'Security Rule',
      'Roll back on failure',
      'Product Types',
      'Destination',
      'Commit on Panorama',
    ]);
    for (const group of [rules, rollBack, products, commit]) expect(await group.getAttribute('aria-invalid')).toBe('true');
    // the required yes-or-no unanswered: refused in a sentence naming it, read out with each of its buttons
    for (const [group, sentence] of [
      [rollBack, 'Roll back on failure is required.'],
      [commit, 'Commit on Panorama is required.'],
    ] as const)
      for (const radio of await group.getByRole('radio').all())
        expect([await radio.getAttribute('aria-invalid'), await said(radio)]).toEqual(['true', sentence]);
    // the optional one left unanswered is not wrong
    for (const field of [log, notify, dryRun, zones, hitCount]) expect(await field.getAttribute('aria-invalid')).toBeNull();
    for (const radio of [pre, post])
      expect([await radio.getAttribute('aria-invalid'), await said(radio)]).toEqual([
        'true',
        'Security Rule is required. Whether to create a pre or a post rule',
      ]);
    expect([await box('Wireless').getAttribute('aria-invalid'), await said(box('Wireless'))]).toEqual([
      'true',
      'Product Types needs at least one choice.',
    ]);
    const destination = destinationGroup.getByRole('textbox');
    expect(await said(destination)).toBe('Destination is required. where the rule lets the traffic go');
    // the chooser is not what is wrong: the kind's field is
    expect(await kind.getAttribute('aria-invalid')).toBeNull();
    await eventually('the focus on the first radio button', () => hasFocus(pre));
    await summary.getByRole('link', { name: 'Product Types' }).click();
    expect(await hasFocus(box('Appliance'))).toBe(true);
    await summary.getByRole('link', { name: 'Roll back on failure' }).click();
    expect(await hasFocus(rollBack.getByRole('radio', { name: 'Yes' }))).toBe(true);
    await expectAccessible();
    await screenshot(page, 'run-form-choices-invalid.png');

    // the keyboard: the arrows move the choice within the radio buttons, Space ticks a box
    await pre.focus();
    await page.keyboard.press('ArrowDown');
    expect([await post.isChecked(), await hasFocus(post)]).toEqual([true, true]);
    await box('Camera').focus();
    await page.keyboard.press('Space');
    await box('Wireless').check();
    // "No" is an answer; the optional yes-or-no and the required one are left unanswered
    await commit.getByRole('radio', { name: 'No' }).check();
    // a checkbox ticked then unticked answers "No"
    await hitCount.check();
    await hitCount.uncheck();
    expect(await hitCount.ariaSnapshot()).toBe('- checkbox "Reset the hit count"');
    // a host name that is none, a port number out of range: said of each field, as what its kinds take
    await kind.selectOption({ label: 'Host name' });
    await destination.fill('Core_1');
    await portGroup.getByRole('spinbutton').fill('70000');
    await run.click();
    await eventually('Security Rule no longer invalid', async () => (await post.getAttribute('aria-invalid')) === null);
    await dialog.getByText('Nothing was sent: 3 fields need a change.').waitFor();
    // still refused until answered, and the first invalid field as the form reads: the focus on its first button
    expect([await rollBack.getAttribute('aria-invalid'), await said(rollBack.getByRole('radio', { name: 'No' }))]).toEqual([
      'true',
      'Roll back on failure is required.',
    ]);
    await eventually('the focus on Roll back on failure', () => hasFocus(rollBack.getByRole('radio', { name: 'Yes' })));
    expect(await commit.getAttribute('aria-invalid')).toBeNull();
    expect([await destination.getAttribute('aria-invalid'), await said(destination)]).toEqual([
      'true',
      'Destination fits none of its kinds: as IPv4 address, it is not a valid IPv4 address; as Host name, it does not match pattern "^[a-z][a-z0-9.-]*$". where the rule lets the traffic go',
    ]);
    // a number is no service name: the one kind it can be says what is wrong
    expect(await said(portGroup.getByRole('spinbutton'))).toBe('Port must be at most 65535.');
    for (const group of [rules, products]) expect(await group.getAttribute('aria-invalid')).toBeNull();
    await dialog.getByRole('link', { name: 'Destination', exact: true }).click();
    expect(await hasFocus(destination)).toBe(true);
    await expectAccessible();
    // the two fields of alternatives and the plain yes-or-no below them
    await commit.scrollIntoViewIfNeeded();
    await screenshot(page, 'run-form-alternatives-invalid.png');

    await rollBack.getByRole('radio', { name: 'Yes' }).check();
    await destination.fill('fw-1.example.net');
    await portGroup.getByRole('spinbutton').fill('443');
    const [sent] = await Promise.all([
      page.waitForRequest((request) => request.method() === 'POST' && /\/triggers\/manual\/[^/]+\/run$/.test(request.url())),
      run.click(),
    ]);
    // the optional yes-or-no left unanswered is not sent (the platform fills a missing member from the trigger's
    // formData or the schema's default, which a `false` sent would override); "No" is sent as false
    const formData = {
      securityRule: 'Post Rule',
      rollBack: true,
      notify: true,
      productTypes: ['camera', 'wireless'],
      zones: [],
      destination: 'fw-1.example.net',
      port: 443,
      commit: false,
      dryRun: false,
      hitCount: false,
    };
    expect(sent.postDataJSON()).toEqual({ formData });
    await page.waitForURL(/\/console\/jobs\//);
    const jobId = /\/console\/jobs\/([^/?]+)$/.exec(page.url())?.[1] ?? '';
    const job = await platform.api<{ data: { variables: Record<string, unknown> } }>('GET', `/operations-manager/jobs/${jobId}`);
    expect(job.data.variables).toMatchObject(formData);
    expect(job.data.variables).not.toHaveProperty('logStart');
  }, 60_000);

  it('takes back the answer to an optional question with "No answer": a radio button chosen to start with, by click or arrow key; a checkbox’s button, by click or key; the value not sent', async () => {
    await page.goto(`${platform.url}/console/automations`);
    await page.getByRole('row').filter({ hasText: 'Create a security rule' }).getByRole('button', { name: 'Run' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run Create a security rule' });
    const rules = dialog.getByRole('group', { name: /^Security Rule/ });
    const action = dialog.getByRole('group', { name: /^Action/ });
    const log = dialog.getByRole('group', { name: /^Log at session start/ });
    const rollBack = dialog.getByRole('group', { name: /^Roll back on failure/ });
    const notify = dialog.getByRole('group', { name: /^Notify the owner/ });
    const commit = dialog.getByRole('group', { name: /^Commit on Panorama/ });
    const chosen = async (group: Locator) => Promise.all((await group.getByRole('radio').all()).map((radio) => radio.isChecked()));
    const noAnswer = (group: Locator) => group.getByRole('radio', { name: 'No answer' });
    await log.getByRole('radio', { name: 'Yes' }).waitFor();
    // an optional question without a default: its answers, then "No answer", chosen while nothing is
    expect(await Promise.all((await action.locator('label').all()).map((label) => label.innerText()))).toEqual([
      'Allow',
      'Deny',
      'No answer',
    ]);
    for (const group of [action, log]) expect(await chosen(group)).toEqual([false, false, true]);
    // a required question has none (it must be answered), nor one that starts on its default (left out, the default is taken)
    for (const group of [rules, rollBack, commit, notify]) expect(await noAnswer(group).count()).toBe(0);

    // answered, then taken back: by a click, and by the arrow keys (the radio buttons' own way, Yes → No → No answer)
    await action.getByRole('radio', { name: 'Deny' }).check();
    await log.getByRole('radio', { name: 'Yes' }).check();
    expect([await noAnswer(action).isChecked(), await noAnswer(log).isChecked()]).toEqual([false, false]);
    await noAnswer(action).check();
    expect(await chosen(action)).toEqual([false, false, true]);
    await log.getByRole('radio', { name: 'Yes' }).focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    expect([await noAnswer(log).isChecked(), await hasFocus(noAnswer(log))]).toEqual([true, true]);
    // not a problem, nothing said of it but what the field says
    for (const group of [action, log]) {
      expect([await noAnswer(group).getAttribute('aria-invalid'), await said(noAnswer(group))]).toEqual([null, '']);
    }
    await expectAccessible();
    await log.scrollIntoViewIfNeeded();
    await screenshot(page, 'run-form-no-answer.png');

    // an optional checkbox: unanswered it says so, and has nothing to take back
    const hitCount = dialog.getByRole('checkbox', { name: 'Reset the hit count' });
    const takeBack = dialog.getByRole('button', { name: 'No answer to Reset the hit count' });
    expect(await hitCount.ariaSnapshot()).toBe('- checkbox "Reset the hit count" [checked=mixed]');
    expect([await hitCount.locator('xpath=../..').innerText(), await takeBack.count()]).toEqual(['Reset the hit count\nNo answer', 0]);
    // ticked, then unticked: "No", which its button takes back; the focus back on the box
    await hitCount.check();
    await hitCount.uncheck();
    expect(await hitCount.ariaSnapshot()).toBe('- checkbox "Reset the hit count"');
    await takeBack.scrollIntoViewIfNeeded();
    await expectAccessible();
    await screenshot(page, 'run-form-checkbox-answered.png');
    await takeBack.click();
    expect([await hitCount.ariaSnapshot(), await hasFocus(hitCount), await takeBack.count()]).toEqual([
      '- checkbox "Reset the hit count" [checked=mixed]',
      true,
      0,
    ]);
    // by the keyboard: Space ticks, Tab reaches the button, Enter takes the answer back
    await page.keyboard.press('Space');
    expect(await hitCount.isChecked()).toBe(true);
    await page.keyboard.press('Tab');
    expect(await hasFocus(takeBack)).toBe(true);
    await page.keyboard.press('Enter');
    expect([await hitCount.ariaSnapshot(), await hasFocus(hitCount)]).toEqual(['- checkbox "Reset the hit count" [checked=mixed]', true]);
    await screenshot(page, 'run-form-checkbox-no-answer.png');

    // the required questions answered: the form is sent
    await rules.getByRole('radio', { name: 'Pre Rule' }).check();
    await rollBack.getByRole('radio', { name: 'No', exact: true }).check();
    await commit.getByRole('radio', { name: 'Yes' }).check();
    await dialog.getByRole('checkbox', { name: 'Switch', exact: true }).check();
    await dialog
      .getByRole('group', { name: /^Destination/ })
      .getByRole('textbox')
      .fill('192.0.2.10');
    const [sent] = await Promise.all([
      page.waitForRequest((request) => request.method() === 'POST' && /\/triggers\/manual\/[^/]+\/run$/.test(request.url())),
      dialog.getByRole('button', { name: 'Run', exact: true }).click(),
    ]);
    // the questions taken back are left out, as those never answered
    expect(sent.postDataJSON()).toEqual({
      formData: {
        securityRule: 'Pre Rule',
        rollBack: false,
        notify: true,
        productTypes: ['switch'],
        zones: [],
        destination: '192.0.2.10',
        commit: true,
        dryRun: false,
      },
    });
    await page.waitForURL(/\/console\/jobs\//);
  }, 60_000);

  it('offers no Run to an account that may not start jobs', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await logIn(READER.username, READER.password);
    await page.goto(`${platform.url}/console/workflows/${encodeURIComponent('Provision VLAN')}`);
    await page.getByRole('heading', { name: 'Provision VLAN', level: 1 }).waitFor();
    await page.getByRole('group', { name: 'Graph of workflow Provision VLAN' }).waitFor();
    expect(await page.getByRole('button', { name: 'Run', exact: true }).count()).toBe(0);
    // nor on the workflows list, even where a link asks for the dialog
    await page.goto(`${platform.url}/console/workflows?run=${encodeURIComponent('Provision VLAN')}`);
    await page.getByRole('link', { name: 'Provision VLAN', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: /^Run / }).count()).toBe(0);
    expect(await page.getByRole('dialog').count()).toBe(0);
    // the platform still decides
    const token = await platform.login(READER.username, READER.password);
    await expect(
      platform.api('POST', '/operations-manager/jobs/start', { workflow: 'Provision VLAN', options: { variables: {} } }, token),
    ).rejects.toThrow(/403/);
  }, 60_000);

  it('met no Content-Security-Policy violation and no page error on the way, and wrote no error to the console (a form refused shows its errors)', () => {
    expect(browser.problems()).toEqual([]);
    expect(logged).toEqual([]);
  });
});
