import { ROLE_SETS } from '../roles';
import {
  acknowledgement,
  anyObject,
  arr,
  bool,
  closed,
  embed,
  int,
  name,
  num,
  obj,
  oneOf,
  open,
  pageOf,
  printableName,
  str,
} from '../schemas/common';
import type { TSchema } from '../schemas/common';
import {
  TEMPLATE_RUN_KINDS,
  analyticRunResultSchema,
  analyticTemplateInputSchema,
  analyticTemplateSchema,
  commandTemplateInputSchema,
  commandTemplateSchema,
  createAnalyticTemplateBodySchema,
  reattemptResultSchema,
  templateRunResultSchema,
  templateRunSchema,
} from '../schemas/mop';
import { listQuerySchema } from '../schemas/query';
import { defineOperations, noQuery, TIMEOUTS_MS } from './define';

const commandTemplate = embed(commandTemplateSchema);
const analyticTemplate = embed(analyticTemplateSchema);
const commandTemplateInput = embed(commandTemplateInputSchema);
const analyticTemplateInput = embed(analyticTemplateInputSchema);
/** Kinds of template of export and import; `templates` is the name ipctl sends for command templates. */
const TEMPLATE_TYPES = ['template', 'templates', 'analytic'] as const;

/** Longest wait a re-attempt may ask for, in minutes: 365 days. */
const MAX_REATTEMPT_MINUTES = 525_600;

/** Most devices one run targets: each is a record of the audit trail (as job cancel bounds its job ids). */
const MAX_RUN_DEVICES = 1000;

/** Devices targeted by a run: inventory device names, at most {@link MAX_RUN_DEVICES}. */
function devices() {
  return arr(name(), { minItems: 1, maxItems: MAX_RUN_DEVICES, description: `inventory device names, at most ${MAX_RUN_DEVICES}` });
}

/** Values of the `<!name!>` variables: strings, numbers, booleans, or arrays of them (the command runs once per element). */
function variables() {
  return anyObject('values of the <!name!> variables; an array value runs the command once per element');
}

/** `{ status, message, data }`: what a creation answers (as operations 3 and 10). */
function created<T extends TSchema>(data: T) {
  return obj(
    {
      status: str({ description: 'Created' }),
      message: str(),
      data,
      ops: arr(data, { description: 'the stored template again, where ipctl reads it (ops[0])' }),
    },
    ['status', 'message', 'data', 'ops'],
  );
}

/** One command run on one device without rules. */
function commandOutput() {
  return obj(
    {
      raw: str({ description: 'the command as given' }),
      evaluated: str({ description: 'the command sent (variables substituted)' }),
      device: str(),
      response: str({ description: 'raw output of the device' }),
      parameters: anyObject('values of the variables the command used'),
      error: str({ description: 'why the command failed on this device' }),
    },
    ['raw', 'evaluated', 'device'],
  );
}

/** Inventory devices as the gateway lists them. */
function deviceList() {
  return arr(obj({ name: str() }, ['name']));
}

/** The members every manual-task query has: the job and the task. */
function manualTaskIds() {
  return { jobId: name('job the task belongs to'), taskId: name('task id within the job') };
}

const MANUAL_TASK_NOTES = [
  'Part of the spec, which names the route but not its method: GET was chosen because the route only presents data.',
  'The person finishes the task through POST /operations-manager/jobs/:jobId/tasks/:taskId/finish.',
] as const;

/** What a manual task answers: the job and task, the data the person decides on, and how to finish. */
function manualTaskAnswer() {
  return open(
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
  );
}

/** A manual workflow task, `GET /mop/task/<name>`: presents what a person needs to decide. */
function manualTaskSpec<const N extends string, Q extends TSchema, R extends TSchema>(
  taskName: N,
  summary: string,
  query: Q,
  response: R,
  notes: readonly string[],
) {
  return {
    name: taskName,
    summary,
    http: { method: 'GET', path: `/mop/task/${taskName}` },
    roles: ROLE_SETS.read,
    query,
    response,
    notes: notes.join(' '),
  } as const;
}

/** A manual task whose query is the job and the task. */
function manualTask<const N extends string>(taskName: N, summary: string) {
  return manualTaskSpec(taskName, summary, closed(manualTaskIds(), ['jobId', 'taskId']), manualTaskAnswer(), MANUAL_TASK_NOTES);
}

/** A manual task that also answers the job data as a JSON attachment with `download=true`. */
function downloadableManualTask<const N extends string>(taskName: N, summary: string) {
  const query = closed(
    { ...manualTaskIds(), download: bool({ default: false, description: 'answer the job data as a JSON attachment' }) },
    ['jobId', 'taskId'],
  );
  // with download=true the answer is the job document as a JSON attachment (a raw reply), not this view
  return manualTaskSpec(taskName, summary, query, manualTaskAnswer(), [
    ...MANUAL_TASK_NOTES,
    'With download=true the job data is answered as a JSON attachment (Content-Disposition: attachment).',
  ]);
}

/** Operations of the `mop` service: command and analytic templates, runs against devices, manual tasks. */
export const MOP_OPERATIONS = defineOperations('mop', [
  // the spec's POST /mop/createAnalyticTemplate
  {
    name: 'createAnalyticTemplate',
    summary: 'Create an analytic template',
    http: { method: 'POST', path: '/mop/createAnalyticTemplate' },
    auditKind: 'analytic-template',
    roles: ['admin', 'apiwrite'],
    body: createAnalyticTemplateBodySchema,
    response: created(analyticTemplate),
    notes:
      'The spec shows the result as an object of unshown shape; it is { status: "Created", message, data: the stored template, ops: [the same] }, as createTemplate (ipctl reads ops[0]). ' +
      'The members of mopAnalyticTemplateDoc that are not given are stored as os "", passRule true, prepostCommands [].',
  },
  {
    name: 'createTemplate',
    summary: 'Create a command template',
    http: { method: 'POST', path: '/mop/createTemplate' },
    auditKind: 'command-template',
    roles: ROLE_SETS.write,
    body: obj({ mop: commandTemplateInput }, ['mop']),
    response: created(commandTemplate),
    notes:
      'Names are unique (409 TEMPLATE_ALREADY_EXISTS). The service sets _id, created and lastUpdated (epoch ms), createdBy and ' +
      'lastUpdatedBy (the caller); every other member is stored as given. The members of mopTemplateDoc that are not given are ' +
      'stored as the original platform stores a new template: os "", passRule true, commands [] (the same for updates, imports, ' +
      'and every template answered). A template without commands is stored, but running it is refused (400 VALIDATION_FAILED naming ' +
      'its commands).',
  },
  {
    name: 'deleteAnalyticTemplate',
    summary: 'Delete an analytic template by id',
    http: { method: 'POST', path: '/mop/deleteAnalyticTemplate/:id' },
    auditKind: 'analytic-template',
    roles: ROLE_SETS.write,
    response: acknowledgement(),
  },
  {
    name: 'deleteTemplate',
    summary: 'Delete a command template by id',
    http: { method: 'POST', path: '/mop/deleteTemplate/:id' },
    auditKind: 'command-template',
    roles: ROLE_SETS.write,
    response: acknowledgement(),
    notes:
      'A template that is a project component may be deleted: it leaves its project, whose reads (GET, export) leave it out and name it in componentsGone.',
  },
  {
    name: 'exportTemplate',
    summary: 'Export a single template',
    http: { method: 'POST', path: '/mop/export' },
    auditKind: 'command-template',
    roles: ROLE_SETS.read,
    body: obj(
      {
        options: obj(
          { name: name('template name'), type: oneOf(TEMPLATE_TYPES, { description: 'kind of template; template unless given' }) },
          ['name'],
        ),
        type: oneOf(TEMPLATE_TYPES, { description: 'kind of template when options.type is left out (where ipctl puts it)' }),
      },
      ['options'],
    ),
    response: anyObject('the template document, command or analytic, as stored'),
    notes: 'A read although it is a POST. The kind is options.type, else type, else template; templates means template.',
  },
  {
    name: 'importTemplate',
    summary: 'Import a single template',
    http: { method: 'POST', path: '/mop/import' },
    auditKind: 'command-template',
    roles: ROLE_SETS.write,
    body: obj({ template: open({ name: printableName() }, ['name']), type: oneOf(TEMPLATE_TYPES, { default: 'template' }) }, ['template']),
    response: anyObject('the stored template'),
    notes:
      'A template whose name exists is stored as "name (n)" with the next free n. The _id and the authorship members of the document are replaced. type templates (what ipctl sends) means template. ' +
      'Answered 200, and 201 for type analytic: ipctl checks 201 when it imports an analytic template (200 for a command template).',
  },
  {
    name: 'GetBootFlash',
    auditKind: 'device',
    auditName: 'device',
    summary: 'Get the boot flash image of a device',
    http: { method: 'POST', path: '/mop/GetBootFlash' },
    roles: ROLE_SETS.run,
    body: obj({ device: name('inventory device name') }, ['device']),
    response: obj({ device: str(), image: str({ description: 'boot image path, as the device reports it' }), response: str() }, [
      'device',
      'image',
    ]),
    timeoutMs: TIMEOUTS_MS.device,
    notes: 'Reads the boot image through the device CLI (show boot / show version / show bootvar, by device type).',
  },
  {
    name: 'getDeviceObjectsFiltered',
    safe: true,
    summary: 'Devices whose name matches the given options',
    http: { method: 'POST', path: '/mop/deviceObjects' },
    roles: ROLE_SETS.read,
    body: obj({
      substring: str({ description: 'substring of the device name (case-insensitive)' }),
      options: obj({ start: int({ minimum: 0 }), limit: int({ minimum: 0 }), filter: anyObject('device variable name to value') }),
    }),
    response: deviceList(),
    notes: 'A read although it is a POST.',
  },
  {
    name: 'getDevicesFiltered',
    summary: 'Devices whose name matches the string',
    http: { method: 'GET', path: '/mop/devices/:substring' },
    roles: ROLE_SETS.read,
    response: deviceList(),
  },
  {
    name: 'getDevicesFilteredDetailedResults',
    summary: 'Devices whose name matches the string (as getDevicesFiltered), plus number of results found and returned',
    http: { method: 'GET', path: '/mop/devices/detailed/:substring' },
    roles: ROLE_SETS.read,
    response: obj({ total: int({ minimum: 0 }), returned: int({ minimum: 0 }), list: deviceList() }, ['total', 'returned', 'list']),
  },
  {
    name: 'getDiff',
    safe: true,
    summary: 'Diff of two configuration strings',
    http: { method: 'POST', path: '/mop/diff' },
    roles: ROLE_SETS.read,
    body: obj({ value_a: str({ description: 'original configuration' }), value_b: str({ description: 'changed configuration' }) }, [
      'value_a',
      'value_b',
    ]),
    response: obj(
      {
        diff: arr(
          obj(
            {
              type: oneOf(['unchanged', 'added', 'removed']),
              value: str({ description: 'the lines of this part, newline-terminated' }),
              count: int({ minimum: 0, description: 'number of lines' }),
            },
            ['type', 'value', 'count'],
          ),
          { description: 'parts of the line diff, in order' },
        ),
        added: int({ minimum: 0, description: 'lines added' }),
        removed: int({ minimum: 0, description: 'lines removed' }),
        unified: str({ description: 'the diff as unified text' }),
      },
      ['diff', 'added', 'removed', 'unified'],
    ),
    notes:
      'A read although it is a POST. Lines that only one text has are removed or added at once; the search for the shortest edit ' +
      'over the lines both have runs in a worker thread, never on the event loop, for at most 5 s: two texts that differ in too ' +
      'many places to diff within it are answered 422 MOP_DIFF_LIMIT_EXCEEDED naming them. The diffConfig and runTemplatesDiff ' +
      'manual tasks diff the same way.',
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
  // the spec's GET /mop/listTemplates
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
    response: obj({ device: str(), command: str(), response: str() }, ['device', 'command', 'response']),
    timeoutMs: TIMEOUTS_MS.device,
  },
  {
    name: 'reattempt',
    summary: 'Re-attempt after n minutes',
    http: { method: 'POST', path: '/mop/reattempt' },
    roles: ROLE_SETS.run,
    body: obj(
      {
        minutes: num({
          minimum: 0,
          maximum: MAX_REATTEMPT_MINUTES,
          description: `minutes to wait before the next attempt, at most ${MAX_REATTEMPT_MINUTES} (365 days)`,
        }),
        job_id: str({ description: 'job whose step is re-attempted' }),
        attemptID: str({ description: 'name of the step being re-attempted, counted per job' }),
        attempts: int({ minimum: 1, description: 'most attempts allowed; one more answers 422 MOP_REATTEMPTS_EXHAUSTED' }),
      },
      ['minutes'],
    ),
    response: reattemptResultSchema,
    notes:
      'Answers at once with the time of the next attempt; the attempt is stored (durable across restarts) and counted per job_id and ' +
      `attemptID. Waiting until reattemptAt is the workflow engine's job, not a held request. minutes is at most ${MAX_REATTEMPT_MINUTES} (365 days). ` +
      'A refused call (400, or 422 MOP_REATTEMPTS_EXHAUSTED) stores nothing: it neither counts an attempt nor moves the waiting one.',
  },
  {
    name: 'runAnalyticsTemplate',
    summary: 'Run an analytic template',
    http: { method: 'POST', path: '/mop/runAnalyticsTemplate' },
    roles: ROLE_SETS.run,
    body: obj(
      {
        analytic_template_name: name('analytic template name'),
        pre: anyObject('a RunCommandTemplate result taken before the change'),
        post: anyObject('a RunCommandTemplate result taken after the change'),
        variables: variables(),
      },
      ['analytic_template_name', 'pre', 'post'],
    ),
    response: analyticRunResultSchema,
    timeoutMs: TIMEOUTS_MS.device,
    notes:
      "Pairs the commands_results of pre and post by device and command (preRawCommand, postRawCommand) and evaluates each pair's rules: " +
      'regex (preRegex and postRegex capture values compared by evaluation), matches and !matches (what the pattern finds in pre and post is the same / differs). ' +
      'A template without prepostCommands is refused (400 VALIDATION_FAILED naming them).',
  },
  {
    name: 'runAnalyticsTemplateDevices',
    auditDevices: 'devices',
    summary: 'Run an analytic template for devices',
    http: { method: 'POST', path: '/mop/runAnalyticsTemplateDevices' },
    roles: ROLE_SETS.run,
    body: obj({ analytic_template_name: name('analytic template name'), devices: devices(), variables: variables() }, [
      'analytic_template_name',
      'devices',
    ]),
    response: analyticRunResultSchema,
    timeoutMs: TIMEOUTS_MS.device,
    notes: 'Runs each preRawCommand and postRawCommand on the devices itself, then compares as runAnalyticsTemplate.',
  },
  {
    name: 'RunCommand',
    auditKind: 'device',
    auditName: 'device',
    summary: 'Run a command against a device',
    http: { method: 'POST', path: '/mop/RunCommand' },
    roles: ROLE_SETS.run,
    body: obj({ command: name(), variables: variables(), device: name('inventory device name') }, ['command', 'device']),
    response: commandOutput(),
    timeoutMs: TIMEOUTS_MS.device,
    notes: 'One command: a variable without a value or with an array value answers 422 MOP_VARIABLE_MISSING / MOP_VARIABLE_INVALID.',
  },
  {
    name: 'RunCommandDevices',
    auditDevices: 'devices',
    summary: 'Run a command against devices',
    http: { method: 'POST', path: '/mop/RunCommandDevices' },
    roles: ROLE_SETS.run,
    body: obj({ command: name(), variables: variables(), devices: devices() }, ['command', 'devices']),
    response: arr(commandOutput(), { description: 'one entry per device (per array element of a variable)' }),
    timeoutMs: TIMEOUTS_MS.device,
  },
  {
    name: 'RunCommandTemplate',
    auditDevices: 'devices',
    summary: 'Run a command template against devices',
    http: { method: 'POST', path: '/mop/RunCommandTemplate' },
    roles: ROLE_SETS.run,
    body: obj({ template: name('command template name'), variables: variables(), devices: devices() }, ['template', 'devices']),
    response: templateRunResultSchema,
    timeoutMs: TIMEOUTS_MS.device,
    notes:
      'One commands_results entry per command per device (per array element of a variable). Devices run in parallel, commands of a ' +
      'device in order. A command whose variable has no value is skipped (skipped: true, result false); a rule whose variable has no ' +
      'value fails naming it; a pattern that runs too long fails its rule. The run is kept: GET /mop/runs/:runId. A template ' +
      'without commands is refused (400 VALIDATION_FAILED naming its commands), no device asked: a run of nothing would pass.',
  },
  {
    name: 'RunCommandTemplateSingleCommand',
    auditDevices: 'devices',
    summary: 'Run one command of a template on devices',
    http: { method: 'POST', path: '/mop/RunCommandTemplateSingleCommand' },
    roles: ROLE_SETS.run,
    body: obj(
      {
        templateId: name('command template name or id'),
        commandIndex: int({ minimum: 0, description: 'index of the command in the template' }),
        variables: variables(),
        devices: devices(),
      },
      ['templateId', 'commandIndex', 'devices'],
    ),
    response: templateRunResultSchema,
    timeoutMs: TIMEOUTS_MS.device,
  },
  {
    name: 'updateAnalyticTemplate',
    summary: 'Update an analytic template by id',
    http: { method: 'POST', path: '/mop/updateAnalyticTemplate/:mopID' },
    auditKind: 'analytic-template',
    roles: ROLE_SETS.write,
    body: obj({ template: analyticTemplateInput }, ['template']),
    response: analyticTemplate,
    notes: 'Replaces the template; created and createdBy are kept, lastUpdated and lastUpdatedBy set.',
  },
  {
    name: 'updateTemplate',
    summary: 'Update a command template by id',
    http: { method: 'POST', path: '/mop/updateTemplate/:mopID' },
    auditKind: 'command-template',
    roles: ROLE_SETS.write,
    body: obj({ mop: commandTemplateInput }, ['mop']),
    response: commandTemplate,
    notes:
      'Replaces the template; created and createdBy are kept, lastUpdated and lastUpdatedBy set. A template that is a project component stays one when renamed (projects hold it by id, and follow its name).',
  },
  // manual workflow tasks
  manualTask('chooseDevice', 'Manual task: choose the device to work on'),
  manualTask('diffConfig', 'Manual task: review the difference between two configurations'),
  manualTask('reloadFailed', 'Manual task: decide what to do after a device reload failed'),
  downloadableManualTask(
    'reviewSummary',
    'Manual task: review job summary, task metrics and runtime data, optionally download the job data as JSON',
  ),
  manualTask('runTemplatesDiff', 'Manual task: review the difference between two template runs'),
  manualTask('verifyConfig', 'Manual task: verify a configuration before it is applied'),
  manualTask('viewTemplateResults', 'Manual task: review the results of a template run'),
  // additions
  {
    name: 'getTemplateRuns',
    summary: 'Get a page of template runs (history of command and analytic template runs)',
    http: { method: 'GET', path: '/mop/runs' },
    roles: ROLE_SETS.read,
    query: obj({
      ...listQuerySchema.properties,
      template: str({ description: 'only runs of this template' }),
      kind: oneOf(TEMPLATE_RUN_KINDS),
      device: str({ description: 'only runs that touched this device' }),
    }),
    response: pageOf(embed(templateRunSchema)),
    addition: true,
    notes: 'Newest first; skip and limit page (limit at most 100, 20 by default).',
  },
  {
    name: 'getTemplateRun',
    summary: 'Get one template run',
    http: { method: 'GET', path: '/mop/runs/:id' },
    roles: ROLE_SETS.read,
    response: embed(templateRunSchema),
    addition: true,
  },
  {
    name: 'updateTemplateByName',
    summary: 'Update a command template by name',
    http: { method: 'PUT', path: '/mop/updateTemplate/:name' },
    auditKind: 'command-template',
    roles: ROLE_SETS.write,
    body: obj({ mop: commandTemplateInput }, ['mop']),
    response: commandTemplate,
    addition: true,
    notes:
      "The route Itential's MCP server calls (`update_command_template`): the template named in the path is replaced as `POST /mop/updateTemplate/:mopID` replaces it; `mop._id` is ignored, created and createdBy are kept, lastUpdated and lastUpdatedBy set. A `mop.name` other than the path's renames it (409 when that name is taken)." +
      ' A template that is a project component stays one when renamed (projects hold it by id, and follow its name).',
  },
]);
