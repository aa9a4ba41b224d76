import { ROLE_SETS } from '../roles';
import { acknowledgement, anyObject, arr, bool, embed, int, name, obj, pageOf, str } from '../schemas/common';
import { analyticTemplateSchema, commandTemplateSchema, createAnalyticTemplateBodySchema, templateRunSchema } from '../schemas/mop';
import { listQuerySchema } from '../schemas/query';
import type { JsonSchema } from './types';
import type { OperationSpec } from './define';
import { defineOperations, noQuery, TIMEOUTS_MS } from './define';

const commandTemplate = embed(commandTemplateSchema);
const analyticTemplate = embed(analyticTemplateSchema);

/** Devices targeted by a run: inventory device names. */
function devices(): JsonSchema {
  return arr(name(), { minItems: 1, description: 'inventory device names' });
}

/** What a run answers per device: the device, its pass/fail and the command results. */
function runResult(): JsonSchema {
  return obj({
    _id: str({ description: 'id of the stored run (see GET /mop/runs/:id)' }),
    passRule: bool({ description: 'overall result' }),
    results: arr(obj({ device: str(), passRule: bool(), commands: arr({ type: 'object' }), error: str() }, ['device'])),
  });
}

/** Manual workflow tasks: `GET /mop/task/<name>` presents what a person needs to decide. */
const MANUAL_TASKS: readonly { name: string; summary: string; download?: boolean }[] = [
  { name: 'chooseDevice', summary: 'Manual task: choose the device to work on' },
  { name: 'diffConfig', summary: 'Manual task: review the difference between two configurations' },
  { name: 'reloadFailed', summary: 'Manual task: decide what to do after a device reload failed' },
  {
    name: 'reviewSummary',
    summary: 'Manual task: review job summary, task metrics and runtime data, optionally download the job data as JSON',
    download: true,
  },
  { name: 'runTemplatesDiff', summary: 'Manual task: review the difference between two template runs' },
  { name: 'verifyConfig', summary: 'Manual task: verify a configuration before it is applied' },
  { name: 'viewTemplateResults', summary: 'Manual task: review the results of a template run' },
];

const manualTaskOperations: OperationSpec[] = MANUAL_TASKS.map((task) => ({
  name: task.name,
  summary: task.summary,
  http: { method: 'GET', path: `/mop/task/${task.name}` },
  roles: ROLE_SETS.read,
  query: obj(
    {
      jobId: name('job the task belongs to'),
      taskId: name('task id within the job'),
      ...(task.download === true ? { download: bool({ default: false, description: 'answer the job data as a JSON attachment' }) } : {}),
    },
    ['jobId', 'taskId'],
    { additionalProperties: false },
  ),
  response: obj(
    {
      jobId: str(),
      taskId: str(),
      task: str({ description: 'manual task name' }),
      view: anyObject('the data the person decides on (devices, diffs, results, summary)'),
      finish: obj({ method: str(), path: str() }, [], {
        description: 'the route that finishes the task: POST /operations-manager/jobs/:jobId/tasks/:taskId/finish',
      }),
    },
    ['jobId', 'taskId', 'task', 'view'],
  ),
  notes: [
    'Part of the spec, which names the route but not its method: GET was chosen because the route only presents data.',
    'The person finishes the task through POST /operations-manager/jobs/:jobId/tasks/:taskId/finish.',
    ...(task.download === true ? ['With download=true the job data is answered as a JSON attachment (Content-Disposition: attachment).'] : []),
  ].join(' '),
}));

/** Operations of the `mop` service: command and analytic templates, runs against devices, manual tasks. */
export const MOP_OPERATIONS = defineOperations('mop', [
  // operation 14
  {
    name: 'createAnalyticTemplate',
    summary: 'Create an analytic template',
    http: { method: 'POST', path: '/mop/createAnalyticTemplate' },
    roles: ['admin', 'apiwrite'],
    body: createAnalyticTemplateBodySchema,
    response: anyObject('result of the creation; shape not shown by the spec (the service answers the stored template)'),
  },
  {
    name: 'createTemplate',
    summary: 'Create a command template',
    http: { method: 'POST', path: '/mop/createTemplate' },
    roles: ROLE_SETS.write,
    body: obj({ mop: commandTemplate }, ['mop']),
    response: commandTemplate,
  },
  {
    name: 'deleteAnalyticTemplate',
    summary: 'Delete an analytic template by id',
    http: { method: 'POST', path: '/mop/deleteAnalyticTemplate/:id' },
    roles: ROLE_SETS.write,
    response: acknowledgement(),
  },
  {
    name: 'deleteTemplate',
    summary: 'Delete a command template by id',
    http: { method: 'POST', path: '/mop/deleteTemplate/:id' },
    roles: ROLE_SETS.write,
    response: acknowledgement(),
  },
  {
    name: 'exportTemplate',
    summary: 'Export a single template',
    http: { method: 'POST', path: '/mop/export' },
    roles: ROLE_SETS.read,
    body: obj(
      { options: obj({ name: name('template name'), type: { type: 'string', enum: ['template', 'analytic'], default: 'template' } }, ['name']) },
      ['options'],
    ),
    response: anyObject('the template document, command or analytic'),
    notes: 'A read although it is a POST.',
  },
  {
    name: 'importTemplate',
    summary: 'Import a single template',
    http: { method: 'POST', path: '/mop/import' },
    roles: ROLE_SETS.write,
    body: obj(
      { template: obj({ name: name() }, ['name']), type: { type: 'string', enum: ['template', 'analytic'], default: 'template' } },
      ['template'],
    ),
    response: anyObject('the stored template'),
  },
  {
    name: 'GetBootFlash',
    summary: 'Get the boot flash image of a device',
    http: { method: 'POST', path: '/mop/GetBootFlash' },
    roles: ROLE_SETS.run,
    body: obj({ device: name('inventory device name') }, ['device']),
    response: obj({ device: str(), image: str({ description: 'boot image file name' }) }),
    timeoutMs: TIMEOUTS_MS.device,
  },
  {
    name: 'getDeviceObjectsFiltered',
    summary: 'Devices whose name matches the given options',
    http: { method: 'POST', path: '/mop/deviceObjects' },
    roles: ROLE_SETS.read,
    body: obj({
      substring: str({ description: 'substring of the device name' }),
      options: obj({ start: int({ minimum: 0 }), limit: int({ minimum: 0 }), filter: anyObject() }),
    }),
    response: arr({ type: 'object' }),
    notes: 'A read although it is a POST.',
  },
  {
    name: 'getDevicesFiltered',
    summary: 'Devices whose name matches the string',
    http: { method: 'GET', path: '/mop/devices/:substring' },
    roles: ROLE_SETS.read,
    response: arr({ type: 'object' }),
  },
  {
    name: 'getDevicesFilteredDetailedResults',
    summary: 'Devices whose name matches the string (as getDevicesFiltered), plus number of results found and returned',
    http: { method: 'GET', path: '/mop/devices/detailed/:substring' },
    roles: ROLE_SETS.read,
    response: obj({ total: int({ minimum: 0 }), returned: int({ minimum: 0 }), list: arr({ type: 'object' }) }, ['total', 'returned', 'list']),
  },
  {
    name: 'getDiff',
    summary: 'Diff of two configuration strings',
    http: { method: 'POST', path: '/mop/diff' },
    roles: ROLE_SETS.read,
    body: obj({ value: str({ description: 'original configuration' }), newValue: str({ description: 'changed configuration' }) }, ['value', 'newValue']),
    response: obj({ diff: arr(obj({ type: { type: 'string', enum: ['equal', 'insert', 'delete'] }, text: str() }, ['type', 'text'])) }, ['diff']),
  },
  {
    name: 'listAnalyticTemplates',
    summary: 'All analytic templates',
    http: { method: 'GET', path: '/mop/listAnalyticTemplates' },
    roles: ROLE_SETS.read,
    response: arr(analyticTemplate),
  },
  {
    name: 'listAnAnalyticTemplate',
    summary: 'Analytic template by name',
    http: { method: 'GET', path: '/mop/listAnAnalyticTemplate/:name' },
    roles: ROLE_SETS.read,
    response: arr(analyticTemplate, { description: 'the matching template (zero or one item)' }),
  },
  {
    name: 'listATemplate',
    summary: 'Command template by name',
    http: { method: 'GET', path: '/mop/listATemplate/:name' },
    roles: ROLE_SETS.read,
    response: arr(commandTemplate, { description: 'the matching template (zero or one item)' }),
  },
  // operation 13
  {
    name: 'listTemplates',
    summary: 'List command templates',
    http: { method: 'GET', path: '/mop/listTemplates' },
    roles: ROLE_SETS.read,
    query: noQuery(),
    response: arr(commandTemplate),
  },
  {
    name: 'passThru',
    summary: 'Execute direct device commands',
    http: { method: 'POST', path: '/mop/passThru/:device' },
    roles: ROLE_SETS.run,
    body: obj({ command: name('command text sent to the device as is') }, ['command']),
    response: obj({ device: str(), command: str(), response: str() }),
    timeoutMs: TIMEOUTS_MS.device,
  },
  {
    name: 'reattempt',
    summary: 'Re-attempt after n minutes',
    http: { method: 'POST', path: '/mop/reattempt' },
    roles: ROLE_SETS.run,
    body: obj({ minutes: { type: 'number', minimum: 0, description: 'minutes to wait before the next attempt' } }, ['minutes']),
    response: obj({ minutes: { type: 'number' }, reattemptAt: int({ description: 'epoch milliseconds of the next attempt' }) }, ['reattemptAt']),
    notes: 'Answers at once with the time of the next attempt; waiting is the workflow engine\'s job, not a held request.',
  },
  {
    name: 'runAnalyticsTemplate',
    summary: 'Run an analytic template',
    http: { method: 'POST', path: '/mop/runAnalyticsTemplate' },
    roles: ROLE_SETS.run,
    body: obj(
      { template: name('analytic template name'), pre: anyObject('command results before the change'), post: anyObject('command results after the change') },
      ['template', 'pre', 'post'],
    ),
    response: runResult(),
    timeoutMs: TIMEOUTS_MS.device,
  },
  {
    name: 'runAnalyticsTemplateDevices',
    summary: 'Run an analytic template for devices',
    http: { method: 'POST', path: '/mop/runAnalyticsTemplateDevices' },
    roles: ROLE_SETS.run,
    body: obj({ template: name('analytic template name'), devices: devices(), variables: anyObject() }, ['template', 'devices']),
    response: runResult(),
    timeoutMs: TIMEOUTS_MS.device,
  },
  {
    name: 'RunCommand',
    summary: 'Run a command against a device',
    http: { method: 'POST', path: '/mop/RunCommand' },
    roles: ROLE_SETS.run,
    body: obj({ command: name(), device: name('inventory device name') }, ['command', 'device']),
    response: obj({ device: str(), command: str(), response: str() }),
    timeoutMs: TIMEOUTS_MS.device,
  },
  {
    name: 'RunCommandDevices',
    summary: 'Run a command against devices',
    http: { method: 'POST', path: '/mop/RunCommandDevices' },
    roles: ROLE_SETS.run,
    body: obj({ command: name(), devices: devices() }, ['command', 'devices']),
    response: arr(obj({ device: str(), command: str(), response: str(), error: str() }, ['device'])),
    timeoutMs: TIMEOUTS_MS.device,
  },
  {
    name: 'RunCommandTemplate',
    summary: 'Run a command template against devices',
    http: { method: 'POST', path: '/mop/RunCommandTemplate' },
    roles: ROLE_SETS.run,
    body: obj({ template: name('command template name'), variables: anyObject('values of the template variables'), devices: devices() }, [
      'template',
      'devices',
    ]),
    response: runResult(),
    timeoutMs: TIMEOUTS_MS.device,
  },
  {
    name: 'RunCommandTemplateSingleCommand',
    summary: 'Run one command of a template on devices',
    http: { method: 'POST', path: '/mop/RunCommandTemplateSingleCommand' },
    roles: ROLE_SETS.run,
    body: obj(
      {
        templateId: name('command template name or id'),
        commandIndex: int({ minimum: 0, description: 'index of the command in the template' }),
        variables: anyObject(),
        devices: devices(),
      },
      ['templateId', 'commandIndex', 'devices'],
    ),
    response: runResult(),
    timeoutMs: TIMEOUTS_MS.device,
  },
  {
    name: 'updateAnalyticTemplate',
    summary: 'Update an analytic template by id',
    http: { method: 'POST', path: '/mop/updateAnalyticTemplate/:mopID' },
    roles: ROLE_SETS.write,
    body: obj({ template: analyticTemplate }, ['template']),
    response: analyticTemplate,
  },
  {
    name: 'updateTemplate',
    summary: 'Update a command template by id',
    http: { method: 'POST', path: '/mop/updateTemplate/:mopID' },
    roles: ROLE_SETS.write,
    body: obj({ mop: commandTemplate }, ['mop']),
    response: commandTemplate,
  },
  ...manualTaskOperations,
  // additions
  {
    name: 'getTemplateRuns',
    summary: 'Get a page of template runs (history of command and analytic template runs)',
    http: { method: 'GET', path: '/mop/runs' },
    roles: ROLE_SETS.read,
    query: {
      ...listQuerySchema,
      properties: {
        ...(listQuerySchema.properties as Record<string, JsonSchema>),
        template: str({ description: 'only runs of this template' }),
        kind: { type: 'string', enum: ['command', 'analytic'] },
        device: str({ description: 'only runs that touched this device' }),
      },
    },
    response: pageOf(embed(templateRunSchema)),
    addition: true,
  },
  {
    name: 'getTemplateRun',
    summary: 'Get one template run',
    http: { method: 'GET', path: '/mop/runs/:id' },
    roles: ROLE_SETS.read,
    response: embed(templateRunSchema),
    addition: true,
  },
]);
