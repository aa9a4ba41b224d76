import type {
  CreateAnalyticTemplateBody,
  CreateAutomationBody,
  ExportFormBody,
  GetJobListBody,
  ImportAutomationsBody,
  ImportCatalogAutomationsBody,
  RestActionBody,
  RestQueryBody,
  RetryTaskBody,
  SearchDeviceTemplatesBody,
  SetLeafBody,
  SshSendCommandBody,
  StartJobWithOptionsBody,
} from '../src/schemas';
import type { RequestParts } from '../src/validation';

/**
 * Valid and invalid requests for operations 1–19 of the spec. For each operation:
 * - `valid`: requests that must pass;
 * - `required`: members the spec marks required; each one, removed from the first valid request,
 *   must fail with a problem naming exactly that member;
 * - `closed`: objects where the spec allows no other member; an extra member must fail, named;
 * - `open`: objects the spec leaves open; an extra member must pass;
 * - `invalid`: other requests that must fail, with the member the problem must name.
 */
export interface Case {
  op: string;
  valid: RequestParts[];
  required: string[];
  closed: string[];
  open?: string[];
  invalid: { why: string; request: RequestParts; member: string }[];
}

const UUID_V4 = '3f8e2a5c-1b4d-4c6e-9a7b-2d1e0f3c4b5a';
const UUID_V1 = '3f8e2a5c-1b4d-11ee-9a7b-2d1e0f3c4b5a';

const importCatalog: ImportCatalogAutomationsBody = {
  automations: [
    {
      _id: 'a1',
      name: 'Port turn-up',
      data: {
        gbac: { write: [{ provenance: 'Local', name: 'ops', description: 'operators' }], read: [] },
        lastUpdated: '2025-01-01T00:00:00.000Z',
        description: 'turn up a port',
        workflowId: 'w1',
        formId: 'f1',
      },
      lastModifiedBy: 'admin',
      lastRunAt: '2025-01-02T00:00:00.000Z',
      nextRunAt: '2025-01-09T00:00:00.000Z',
      repeatInterval: '1 week',
    },
  ],
  options: { adapterMap: { 'nso-old': 'nso' } },
};
const importAutomations: ImportAutomationsBody = { automations: [{ name: 'Port turn-up' }], options: { adapterMap: {} } };
const createAutomation: CreateAutomationBody = {
  automation: {
    name: 'Port turn-up',
    description: 'turn up a port',
    componentType: null,
    componentName: null,
    gbac: { write: ['g1'], read: ['g2'] },
  },
};
const restAction: RestActionBody = {
  params: {
    path: '/api/running/devices',
    accept: 'application/vnd.yang.data+json',
    method: 'POST',
    contentType: 'application/vnd.yang.data+json',
  },
  body: { device: { name: 'r1' } },
};
const restQuery: RestQueryBody = { params: { path: '/api/running/devices', accept: 'application/yang-data+json' } };
export const setLeaf: SetLeafBody = {
  path: '/ncs:devices/device{!dev!}/config',
  value: '!value!',
  variables: 'dev=r1\nvalue=1',
  set: true,
  dryRun: false,
  options: 'dryrun',
};
export const sshSendCommand: SshSendCommandBody = {
  sshSendCommandParameters: {
    host: 'r1',
    commands: ['show version'],
    connection_options: { device_type: 'cisco_ios', username: 'netops', password: 'secret' },
  },
};
const searchTemplates: SearchDeviceTemplatesBody = { name: 'edge', options: {} };
const createAnalytic: CreateAnalyticTemplateBody = {
  template: {
    name: 'bgp-check',
    os: 'cisco-ios',
    passRule: true,
    prepostCommands: [
      {
        preRawCommand: 'show ip bgp summary',
        postRawCommand: 'show ip bgp summary',
        passRule: true,
        rules: [{ type: 'regex', preRegex: 'x', postRegex: 'x', evaluation: '=' }],
      },
    ],
  },
};
const retryTask: RetryTaskBody = { taskId: 'a1b2', variables: { device: { value: 'r1' }, count: { value: 3 }, nothing: { value: null } } };
const startJob: StartJobWithOptionsBody = {
  options: { description: 'nightly', type: 'Automation', variables: { device: 'r1' }, groups: ['g1'] },
};
const getJobList: GetJobListBody = {
  options: { filter: { name: 'Port turn-up' }, page: { skip: 0, limit: 10 }, sort: { field: 'name', direction: -1 } },
};
const exportById: ExportFormBody = { options: { _id: UUID_V4 } };
const exportByName: ExportFormBody = { options: { name: 'Device form' } };

export const CASES: Case[] = [
  {
    op: 'workflow.importCatalogAutomations',
    valid: [{ body: importCatalog }, { body: { automations: [], options: {} } }],
    required: ['body.automations', 'body.options'],
    closed: ['body', 'body.options'],
    open: ['body.automations[0]', 'body.automations[0].data'],
    invalid: [
      { why: 'automations is not an array', request: { body: { automations: {}, options: {} } }, member: 'body.automations' },
      {
        why: 'adapterMap is not an object',
        request: { body: { automations: [], options: { adapterMap: 'x' } } },
        member: 'body.options.adapterMap',
      },
      {
        why: 'a gbac entry of an exported automation is a group reference object',
        request: { body: { automations: [{ data: { gbac: { write: ['g1'] } } }], options: {} } },
        member: 'body.automations[0].data.gbac.write[0]',
      },
    ],
  },
  {
    op: 'workflow.importAutomations',
    valid: [{ body: importAutomations }],
    required: ['body.automations', 'body.options'],
    closed: ['body.options'],
    open: ['body'],
    invalid: [
      { why: 'an automation is not an object', request: { body: { automations: ['x'], options: {} } }, member: 'body.automations[0]' },
    ],
  },
  {
    op: 'workflow.createAutomation',
    valid: [{ body: createAutomation }, { body: { automation: { name: 'x' } } }],
    required: ['body.automation', 'body.automation.name'],
    closed: ['body'],
    open: ['body.automation'],
    invalid: [
      {
        why: 'componentType is a string or null',
        request: { body: { automation: { name: 'x', componentType: 3 } } },
        member: 'body.automation.componentType',
      },
      {
        why: 'gbac.write holds group ids',
        request: { body: { automation: { name: 'x', gbac: { write: 'g1' } } } },
        member: 'body.automation.gbac.write',
      },
      { why: 'the name is empty', request: { body: { automation: { name: '' } } }, member: 'body.automation.name' },
    ],
  },
  {
    op: 'workflow.getJobs',
    valid: [
      { query: {} },
      {
        query: {
          limit: '10',
          skip: '0',
          order: '-1',
          sort: 'metrics.start_time',
          include: 'name,status',
          exclude: 'tasks',
          equals: { status: 'running' },
          contains: { name: 'turn' },
          'starts-with': { name: 'Port' },
          'ends-with': { name: 'up' },
          in: { status: 'running,complete' },
          'not-in': { status: 'canceled' },
          gt: { 'metrics.start_time': '5' },
          gte: { 'metrics.start_time': '5' },
          lt: { 'metrics.end_time': '9' },
          lte: { 'metrics.end_time': '9' },
          dereference: 'tasks',
          q: 'turn up',
        },
      },
    ],
    required: [],
    closed: ['query'],
    invalid: [
      { why: 'limit is negative', request: { query: { limit: '-1' } }, member: 'query.limit' },
      { why: 'limit is not a number', request: { query: { limit: 'ten' } }, member: 'query.limit' },
      { why: 'skip is not an integer', request: { query: { skip: '1.5' } }, member: 'query.skip' },
      { why: 'order is 1 or -1', request: { query: { order: '2' } }, member: 'query.order' },
      { why: 'an operator is written per field', request: { query: { equals: 'running' } }, member: 'query.equals' },
      {
        why: 'a repeated field gives an array',
        request: { query: { equals: { status: ['running', 'complete'] } } },
        member: 'query.equals.status',
      },
    ],
  },
  {
    op: 'orch-proxy.restAction',
    valid: [
      { params: { adapterId: 'nso' }, body: restAction },
      { params: { adapterId: 'nso' }, body: { params: { path: '/api', accept: 'application/yang-data+json' }, body: {} } },
    ],
    required: ['params.adapterId', 'body.params', 'body.body', 'body.params.path', 'body.params.accept'],
    closed: ['body', 'params'],
    open: ['body.params', 'body.body'],
    invalid: [
      {
        why: 'method is a string',
        request: { params: { adapterId: 'nso' }, body: { ...restAction, params: { ...restAction.params, method: 1 } } },
        member: 'body.params.method',
      },
      { why: 'body is an object', request: { params: { adapterId: 'nso' }, body: { ...restAction, body: [] } }, member: 'body.body' },
      { why: 'the adapter is empty', request: { params: { adapterId: '' }, body: restAction }, member: 'params.adapterId' },
    ],
  },
  {
    op: 'orch-proxy.restQuery',
    valid: [{ params: { adapterId: 'nso' }, body: restQuery }],
    required: ['params.adapterId', 'body.params', 'body.params.path', 'body.params.accept'],
    closed: ['body'],
    open: ['body.params'],
    invalid: [{ why: 'params is an object', request: { params: { adapterId: 'nso' }, body: { params: '/api' } }, member: 'body.params' }],
  },
  {
    op: 'orch-proxy.setLeaf',
    valid: [
      { params: { adapterId: 'r1' }, body: setLeaf },
      { params: { adapterId: 'r1' }, body: { ...setLeaf, set: false, dryRun: true, options: 'no_overwrite' } },
    ],
    required: ['params.adapterId', 'body.path', 'body.value', 'body.variables', 'body.set', 'body.dryRun', 'body.options'],
    closed: ['body'],
    invalid: [
      {
        why: 'options is one of six words',
        request: { params: { adapterId: 'r1' }, body: { ...setLeaf, options: 'later' } },
        member: 'body.options',
      },
      {
        why: 'bodies are not coerced: "true" is not a boolean',
        request: { params: { adapterId: 'r1' }, body: { ...setLeaf, set: 'true' } },
        member: 'body.set',
      },
      { why: 'dryRun is a boolean', request: { params: { adapterId: 'r1' }, body: { ...setLeaf, dryRun: 1 } }, member: 'body.dryRun' },
      {
        why: 'variables is text',
        request: { params: { adapterId: 'r1' }, body: { ...setLeaf, variables: { dev: 'r1' } } },
        member: 'body.variables',
      },
    ],
  },
  ...['admin.getAdaptersHealth', 'admin.getIntegrations'].map((op): Case => ({
    op,
    valid: [
      { query: {} },
      {
        query: {
          contains: 'nso',
          containsField: 'name',
          equals: 'x',
          equalsField: 'type',
          startsWith: 'n',
          startsWithField: 'name',
          skip: '0',
          limit: '5',
          sort: 'name',
          order: '1',
        },
      },
    ],
    required: [],
    closed: ['query'],
    invalid: [
      { why: 'skip is negative', request: { query: { skip: '-3' } }, member: 'query.skip' },
      { why: 'limit is not a number', request: { query: { limit: 'all' } }, member: 'query.limit' },
      { why: 'order is 1 or -1', request: { query: { order: '0' } }, member: 'query.order' },
      { why: 'contains is one value', request: { query: { contains: { name: 'x' } } }, member: 'query.contains' },
    ],
  })),
  {
    op: 'admin.createGroup',
    valid: [{ body: { group: { name: 'operators' } } }, { body: { group: { name: 'operators', description: 'runs jobs' } } }],
    required: ['body.group', 'body.group.name'],
    closed: ['body'],
    open: ['body.group'],
    invalid: [{ why: 'the name is a string', request: { body: { group: { name: 5 } } }, member: 'body.group.name' }],
  },
  {
    op: 'gateway-devices.sshSendCommand',
    valid: [
      { body: sshSendCommand },
      {
        body: {
          sshSendCommandParameters: {
            host: 'r1',
            commands: [],
            connection_options: { device_type: 'linux', port: 2222, secret: 'enable' },
          },
        },
      },
    ],
    required: [
      'body.sshSendCommandParameters',
      'body.sshSendCommandParameters.host',
      'body.sshSendCommandParameters.commands',
      'body.sshSendCommandParameters.connection_options',
      'body.sshSendCommandParameters.connection_options.device_type',
    ],
    closed: [],
    open: ['body.sshSendCommandParameters.connection_options'],
    invalid: [
      {
        why: 'the port is an integer, not text',
        request: {
          body: {
            sshSendCommandParameters: {
              ...sshSendCommand.sshSendCommandParameters,
              connection_options: { device_type: 'cisco_ios', port: '22' },
            },
          },
        },
        member: 'body.sshSendCommandParameters.connection_options.port',
      },
      {
        why: 'the port is a whole number',
        request: {
          body: {
            sshSendCommandParameters: {
              ...sshSendCommand.sshSendCommandParameters,
              connection_options: { device_type: 'cisco_ios', port: 22.5 },
            },
          },
        },
        member: 'body.sshSendCommandParameters.connection_options.port',
      },
      {
        why: 'commands is a list',
        request: { body: { sshSendCommandParameters: { ...sshSendCommand.sshSendCommandParameters, commands: 'show version' } } },
        member: 'body.sshSendCommandParameters.commands',
      },
      {
        why: 'each command is text',
        request: { body: { sshSendCommandParameters: { ...sshSendCommand.sshSendCommandParameters, commands: ['show version', 7] } } },
        member: 'body.sshSendCommandParameters.commands[1]',
      },
    ],
  },
  {
    op: 'gateway-devices.searchDeviceTemplates',
    valid: [{ body: searchTemplates }, { body: { name: '', options: { limit: 5 } } }],
    required: ['body.name', 'body.options'],
    closed: ['body'],
    open: ['body.options'],
    invalid: [{ why: 'options is an object', request: { body: { name: 'edge', options: 'all' } }, member: 'body.options' }],
  },
  {
    op: 'mop.listTemplates',
    valid: [{ query: {} }, {}],
    required: [],
    closed: ['query'],
    invalid: [],
  },
  {
    op: 'mop.createAnalyticTemplate',
    valid: [{ body: createAnalytic }, { body: { template: { name: 'empty' } } }],
    required: ['body.template', 'body.template.name'],
    closed: ['body'],
    open: ['body.template', 'body.template.prepostCommands[0]'],
    invalid: [
      {
        why: 'created is epoch milliseconds',
        request: { body: { template: { name: 't', created: '2025-01-01' } } },
        member: 'body.template.created',
      },
      {
        why: 'prepostCommands is a list',
        request: { body: { template: { name: 't', prepostCommands: {} } } },
        member: 'body.template.prepostCommands',
      },
    ],
  },
  {
    op: 'workflow.retryTask',
    valid: [
      { params: { jobId: 'j1' }, body: retryTask },
      { params: { jobId: 'j1' }, body: { taskId: 'a1', variables: {} } },
    ],
    required: ['params.jobId', 'body.taskId', 'body.variables', 'body.variables.device.value'],
    closed: ['body'],
    open: ['body.variables.device'],
    invalid: [
      {
        why: 'a variable is an object with value',
        request: { params: { jobId: 'j1' }, body: { taskId: 'a1', variables: { device: 'r1' } } },
        member: 'body.variables.device',
      },
      {
        why: 'variables is an object',
        request: { params: { jobId: 'j1' }, body: { taskId: 'a1', variables: [] } },
        member: 'body.variables',
      },
      { why: 'taskId is text', request: { params: { jobId: 'j1' }, body: { taskId: 12, variables: {} } }, member: 'body.taskId' },
    ],
  },
  {
    op: 'workflow.getJobShallow',
    valid: [{ params: { job_data: 'j1' }, query: {} }],
    required: ['params.job_data'],
    closed: ['params', 'query'],
    invalid: [{ why: 'the job id is empty', request: { params: { job_data: '' } }, member: 'params.job_data' }],
  },
  {
    op: 'workflow.startJobWithOptions',
    valid: [
      { params: { workflow: 'Port turn-up' }, body: startJob },
      { params: { workflow: 'w' }, body: { options: {} } },
    ],
    required: ['params.workflow', 'body.options'],
    closed: ['body'],
    open: ['body.options', 'body.options.variables'],
    invalid: [
      {
        why: 'groups holds ids',
        request: { params: { workflow: 'w' }, body: { options: { groups: [1] } } },
        member: 'body.options.groups[0]',
      },
      {
        why: 'variables is an object',
        request: { params: { workflow: 'w' }, body: { options: { variables: 'x' } } },
        member: 'body.options.variables',
      },
      { why: 'options is an object', request: { params: { workflow: 'w' }, body: { options: [] } }, member: 'body.options' },
    ],
  },
  {
    op: 'workflow.archiveJobs',
    valid: [
      { body: { before: '2026-01-01T00:00:00Z' } },
      { body: { before: 1_767_225_600_000, status: 'error' } },
      { body: { before: '2026-01-01T00:00:00+02:00', status: ['complete', 'canceled'] } },
    ],
    required: ['body.before'],
    closed: ['body'],
    invalid: [
      { why: 'before is a date and time or epoch ms', request: { body: { before: 'yesterday' } }, member: 'body.before' },
      { why: 'a running job is never archived', request: { body: { before: 0, status: 'running' } }, member: 'body.status' },
      { why: 'statuses are not repeated', request: { body: { before: 0, status: ['error', 'error'] } }, member: 'body.status' },
    ],
  },
  {
    op: 'workflow.getJobArchive',
    valid: [{ params: { archiveId: 'a1' } }, { params: { archiveId: 'a1' }, query: { after: 'a1:000000:0000' } }],
    required: ['params.archiveId'],
    closed: ['query'],
    invalid: [{ why: 'after names a part', request: { params: { archiveId: 'a1' }, query: { after: '' } }, member: 'query.after' }],
  },
  {
    op: 'workflow.getJobList',
    valid: [
      { params: { status: 'running' }, body: getJobList },
      { params: { status: 'all' }, body: { options: {} } },
    ],
    required: ['params.status', 'body.options'],
    closed: ['body'],
    open: ['body.options'],
    invalid: [
      {
        why: 'direction is 1 or -1',
        request: { params: { status: 'running' }, body: { options: { sort: { field: 'name', direction: 2 } } } },
        member: 'body.options.sort.direction',
      },
      {
        why: 'page.limit is not negative',
        request: { params: { status: 'running' }, body: { options: { page: { limit: -1 } } } },
        member: 'body.options.page.limit',
      },
    ],
  },
  {
    op: 'studio.exportForm',
    valid: [{ body: exportById }, { body: exportByName }, { body: { options: { _id: UUID_V4.toUpperCase(), name: 'Device form' } } }],
    required: ['body.options'],
    closed: ['body', 'body.options'],
    invalid: [
      { why: 'neither _id nor name', request: { body: { options: {} } }, member: 'body.options' },
      { why: 'a UUID of version 1', request: { body: { options: { _id: UUID_V1 } } }, member: 'body.options._id' },
      { why: 'not a UUID', request: { body: { options: { _id: 'device-form' } } }, member: 'body.options._id' },
      {
        why: 'a UUID v4 with a wrong variant',
        request: { body: { options: { _id: '3f8e2a5c-1b4d-4c6e-7a7b-2d1e0f3c4b5a' } } },
        member: 'body.options._id',
      },
    ],
  },
];

function clone<T>(value: T): T {
  return structuredClone(value);
}

/** Splits `body.automations[0].data` into `['body', 'automations', 0, 'data']`. */
function segments(path: string): (string | number)[] {
  return path
    .split('.')
    .flatMap((s) => s.split(/\[(\d+)\]/).filter((x) => x !== ''))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function at(root: unknown, path: (string | number)[]): Record<string | number, unknown> {
  let current = root as Record<string | number, unknown>;
  for (const s of path) {
    const next = current[s];
    if (next === null || typeof next !== 'object') throw new Error(`The example has no object at ${path.join('.')}`);
    current = next as Record<string | number, unknown>;
  }
  return current;
}

export function without(request: RequestParts, member: string): RequestParts {
  const copy = clone(request);
  const path = segments(member);
  const last = path.pop() as string | number;
  const parent = at(copy, path);
  if (!(last in parent)) throw new Error(`The first valid example has no ${member} to leave out`);
  delete parent[last];
  return copy;
}

export function withExtra(request: RequestParts, object: string): RequestParts {
  const copy = clone(request);
  const part = segments(object)[0] as keyof RequestParts;
  copy[part] ??= {};
  at(copy, segments(object)).extra = 'surprise';
  return copy;
}
