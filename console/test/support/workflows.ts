import type { RunningPlatform } from './platform';

/**
 * The workflows the console's tests run: built-in tasks of the engine only (no device, no
 * outside system), so that each job's path is decided by the test.
 */

type Tasks = Record<string, Record<string, unknown>>;
type Transitions = Record<string, Record<string, { state: string; type: string }>>;

function workflow(name: string, tasks: Tasks, transitions: Transitions) {
  return {
    name,
    type: 'automation',
    groups: [],
    tasks: { workflow_start: { name: 'workflow_start', groups: [] }, workflow_end: { name: 'workflow_end', groups: [] }, ...tasks },
    transitions: { ...transitions, workflow_end: {} },
  };
}

const go = (state = 'success') => ({ state, type: 'standard' });

/**
 * "Change approval": prepare (a stub), then a person approves (ViewData, summary "Approve change",
 * with a failure choice), then apply (a stub whose delay comes from the job's `applySeconds`).
 */
export const APPROVAL = workflow(
  'Change approval',
  {
    prep: {
      name: 'stub',
      app: 'WorkFlowEngine',
      type: 'automatic',
      summary: 'Prepare the change',
      groups: [],
      variables: { incoming: { type: 'success', delay: 0, response: 'prepared' }, outgoing: { response: null } },
    },
    approve: {
      name: 'ViewData',
      app: 'WorkFlowEngine',
      type: 'manual',
      summary: 'Approve change',
      groups: [],
      variables: {
        incoming: {
          header: 'Change CHG-1042 on core-1',
          message: 'Check the planned configuration, then approve or reject the change.',
          body: '$var.job.plan',
          variables: {},
          btn_success: 'Approve',
          btn_failure: 'Reject',
        },
        outgoing: {},
      },
    },
    apply: {
      name: 'stub',
      app: 'WorkFlowEngine',
      type: 'automatic',
      summary: 'Apply the change',
      groups: [],
      variables: { incoming: { type: 'success', delay: '$var.job.applySeconds', response: 'applied' }, outgoing: { response: null } },
    },
  },
  {
    workflow_start: { prep: go() },
    prep: { approve: go() },
    approve: { apply: go(), workflow_end: go('failure') },
    apply: { workflow_end: go() },
  },
);

/** "Interface check": one stub whose finish state is the job's `mode` (error stops the job: a task to retry). */
export const CHECK = workflow(
  'Interface check',
  {
    check: {
      name: 'stub',
      app: 'WorkFlowEngine',
      type: 'automatic',
      summary: 'Check interface state',
      groups: [],
      variables: { incoming: { type: '$var.job.mode', delay: 0, response: 'interface Gi0/1 is down' }, outgoing: { response: null } },
    },
    report: {
      name: 'stub',
      app: 'WorkFlowEngine',
      type: 'automatic',
      summary: 'Report the result',
      groups: [],
      variables: { incoming: { type: 'success', delay: 0, response: 'reported' }, outgoing: { response: null } },
    },
  },
  { workflow_start: { check: go() }, check: { report: go() }, report: { workflow_end: go() } },
);

/** "Long maintenance": one stub that waits `$var.job.seconds` (a job that stays running). */
export const LONG = workflow(
  'Long maintenance',
  {
    wait: {
      name: 'stub',
      app: 'WorkFlowEngine',
      type: 'automatic',
      summary: 'Wait for the maintenance window',
      groups: [],
      variables: { incoming: { type: 'success', delay: '$var.job.seconds', response: 'done' }, outgoing: { response: null } },
    },
  },
  { workflow_start: { wait: go() }, wait: { workflow_end: go() } },
);

export async function createWorkflows(platform: RunningPlatform, ...docs: { name: string }[]): Promise<void> {
  for (const doc of docs) await platform.api('POST', '/automation-studio/automations', { automation: doc });
}

export interface StartedJob {
  _id: string;
  name: string;
  status: string;
}

export async function startJob(
  platform: RunningPlatform,
  workflowName: string,
  variables: Record<string, unknown>,
  token?: string,
): Promise<StartedJob> {
  const answer = await platform.api<{ data: StartedJob }>(
    'POST',
    '/operations-manager/jobs/start',
    { workflow: workflowName, options: { variables } },
    token,
  );
  return answer.data;
}

export async function jobStatus(platform: RunningPlatform, jobId: string): Promise<string> {
  return (await platform.api<{ data: { status: string } }>('GET', `/operations-manager/jobs/${jobId}`)).data.status;
}

/** "Port turn-up": the workflow an automation with a manual trigger starts from its form. */
export const PORT_TURN_UP = workflow(
  'Port turn-up',
  {
    configure: {
      name: 'stub',
      app: 'WorkFlowEngine',
      type: 'automatic',
      summary: 'Configure the access port',
      groups: [],
      variables: { incoming: { type: 'success', delay: 0, response: '$var.job.port' }, outgoing: { response: null } },
    },
  },
  { workflow_start: { configure: go() }, configure: { workflow_end: go() } },
);

/**
 * The form of the port turn-up request: a device from a list, an interface name, a VLAN with a
 * default, and a circuit from a list the form's source fills when it is shown (an empty enum, as
 * other platforms' forms bind a list to an adapter).
 */
export const PORT_FORM_SCHEMA = {
  title: 'Port turn-up request',
  type: 'object',
  required: ['device', 'port', 'vlan', 'circuit'],
  properties: {
    circuit: { type: 'string', title: 'Circuit', enum: [], description: 'from the circuit inventory' },
    device: { type: 'string', title: 'Device', enum: ['core-1', 'core-2'], enumNames: ['core-1 (Paris)', 'core-2 (Lyon)'] },
    port: { type: 'string', title: 'Interface', pattern: '^(Gi|Te)[0-9]+/[0-9]+$', description: 'for example Gi0/12' },
    vlan: { type: 'integer', title: 'VLAN', minimum: 1, maximum: 4094 },
  },
} as const;

/** Creates the form, the automation of "Port turn-up" and its manual trigger (VLAN 100 by default); answers the automation's id. */
export async function createPortTurnUpAutomation(platform: RunningPlatform): Promise<string> {
  await createWorkflows(platform, PORT_TURN_UP);
  const form = await platform.api<{ data: { _id: string } }>('POST', '/formbuilder/forms', {
    form: { name: 'Port turn-up request', schema: PORT_FORM_SCHEMA, uiSchema: {}, validationSchema: PORT_FORM_SCHEMA },
  });
  const automation = await platform.api<{ data: { _id: string } }>('POST', '/operations-manager/automations', {
    automation: {
      name: 'Turn up an access port',
      description: 'Configures an access port on a core switch',
      componentName: 'Port turn-up',
    },
  });
  await platform.api('POST', '/operations-manager/triggers', {
    name: 'From the console',
    type: 'manual',
    actionId: automation.data._id,
    formId: form.data._id,
    formData: { vlan: 100 },
  });
  await platform.api('POST', '/operations-manager/triggers', {
    name: 'From CI',
    type: 'endpoint',
    actionId: automation.data._id,
    routeName: 'port-turn-up',
    schema: { type: 'object' },
  });
  return automation.data._id;
}

/**
 * "Provision VLAN": an inputSchema of plain members (the Run dialog asks with a form), examples as
 * placeholders, an editor's title, and `_id`, which the platform gives every job, among the required.
 */
export const PROVISION_VLAN = {
  ...workflow(
    'Provision VLAN',
    {
      provision: {
        name: 'stub',
        app: 'WorkFlowEngine',
        type: 'automatic',
        summary: 'Create the VLAN',
        groups: [],
        variables: { incoming: { type: 'success', delay: 0, response: '$var.job.vlanName' }, outgoing: { response: null } },
      },
    },
    { workflow_start: { provision: go() }, provision: { workflow_end: go() } },
  ),
  inputSchema: {
    type: 'object',
    properties: {
      device: { type: 'string', examples: ['core-1'], description: 'the switch' },
      vlan: { type: 'integer', title: 'VLAN id', minimum: 1, maximum: 4094, examples: [120] },
      vlanName: { type: 'string', examples: ['guests'] },
      shutdown: { type: 'boolean' },
      _id: { type: 'string', title: 'job_id' },
    },
    required: ['device', 'vlan', '_id'],
  },
};

/**
 * "Command Template Runner": the inputSchema of the fixtures' Cisco IOS project's workflow of that
 * name, as written there (members of every type at once, examples, editor titles, every member
 * required, `_id` among them): the Run dialog asks for its variables as JSON.
 */
export const COMMAND_TEMPLATE_RUNNER = {
  ...workflow(
    'Command Template Runner',
    {
      render: {
        name: 'stub',
        app: 'WorkFlowEngine',
        type: 'automatic',
        summary: 'Run the command template',
        groups: [],
        variables: { incoming: { type: 'success', delay: 0, response: '$var.job.templateName' }, outgoing: { response: null } },
      },
    },
    { workflow_start: { render: go() }, render: { workflow_end: go() } },
  ),
  inputSchema: {
    type: 'object',
    properties: {
      suppressSuccessMessage: { type: ['array', 'boolean', 'null', 'number', 'object', 'string'] },
      templateName: { title: 'template', type: 'string', examples: ['show version'] },
      templateVariables: { type: 'object', properties: {}, examples: [{ device_name: 'my-device1' }] },
      reattempt: { type: ['array', 'boolean', 'null', 'number', 'object', 'string'] },
      _id: { title: 'job_id', type: 'string', examples: ['test'] },
      reattemptWaitTime: { title: 'minutes', type: 'integer', examples: [1] },
      reattemptQuantity: { title: 'attempts', type: 'integer', examples: [2] },
      deviceName: { type: ['array', 'string', 'boolean', 'integer', 'number', 'object'], title: 'elementN', examples: ['Device3'] },
      suppressFailureMessage: { type: ['array', 'boolean', 'null', 'number', 'object', 'string'] },
    },
    required: [
      'suppressSuccessMessage',
      'templateName',
      'templateVariables',
      'reattempt',
      '_id',
      'reattemptWaitTime',
      'reattemptQuantity',
      'deviceName',
      'suppressFailureMessage',
    ],
  },
};
