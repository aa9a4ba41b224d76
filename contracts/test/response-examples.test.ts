import { getOperation } from '../src/catalog';
import type {
  CreatedResult,
  DeviceTemplateSearchResult,
  Form,
  ImportResult,
  IntegrationList,
  JobDocument,
  JobEnvelope,
  JobList,
  JobPage,
  OAuthTokenResult,
  SetLeafResultItem,
  SshSendCommandResult,
} from '../src/schemas';
import { validateResponse } from '../src/validation';

/**
 * Response shapes the spec shows, checked against the response schemas of their operations: real
 * data passes (extra members included), and each schema refuses a body that breaks the spec.
 */

const metrics = {
  owner: 'admin',
  start_time: 1735689600000,
  end_time: 1735689660000,
  run_time: 60000,
  finish_state: 'success',
  server_id: 's1',
  app: { id: 'nap', version: '2026.1.0' },
};

const job: JobDocument = {
  _id: 'j1',
  name: 'Port turn-up',
  tasks: {
    workflow_start: { name: 'workflow_start', x: 0, y: 0, groups: [] },
    a1b2: {
      name: 'RunCommandTemplate',
      summary: 'run checks',
      description: 'run checks',
      displayName: 'MOP',
      app: 'MOP',
      type: 'automated',
      x: 0.5,
      y: 0.25,
      status: 'complete',
      groups: ['g1'],
      metrics,
      canvasName: 'RunCommandTemplate',
      canvasTab: 'main',
      sla: 0,
      view: '/mop/task/viewTemplateResults',
      deprecated: false,
      scheduled: false,
      iterations: ['i1'],
      variables: {
        incoming: { template: 't' },
        outgoing: { result: {} },
        error: '',
        decorators: [{ type: 'encryption', pointer: '/variables/password' }],
      },
      childJobs: [{ _id: 'j2', name: 'child', iteration: 0 }],
      retrySettings: { state: ['failure', 'error'], autoRetry: true, limit: 3, delay: 5, count: 0 },
      somethingNew: true,
    },
    workflow_end: { name: 'workflow_end' },
    error_handler: { name: 'error_handler' },
  },
  transitions: {
    workflow_start: { a1b2: { type: 'standard', state: 'success' } },
    a1b2: { workflow_end: { type: 'standard', state: 'success' } },
  },
  font_size: 12,
  created: '2025-01-01T00:00:00.000Z',
  created_by: 'admin',
  last_updated: '2025-01-01T00:01:00.000Z',
  last_updated_by: 'admin',
  groups: ['g1'],
  type: 'automation',
  watchers: ['admin'],
  metrics,
  status: 'complete',
  lastUpdatedVersion: '2026.1.0',
  canvasVersion: 3,
  decorators: [],
  ancestors: [],
  error: [{ task: 'a1b2', message: 'No transition available from the completed tasks', timestamp: 1735689660000 }],
};

function shallow(doc: JobDocument): JobDocument {
  const copy = structuredClone(doc);
  for (const task of Object.values(copy.tasks)) {
    delete task.app;
    if (task.variables !== undefined) task.variables = { decorators: task.variables.decorators ?? [] };
  }
  return copy;
}

/** Members named by the problems, each once (a value can break two keywords, such as format and pattern). */
function membersOf(id: string, body: unknown): string[] {
  return [...new Set(validateResponse(getOperation(id), body).map((p) => p.member))];
}

describe('response schemas', () => {
  it('accept the job document (operations 15, 17) and refuse one without status or with a bad error entry', () => {
    expect(membersOf('workflow.retryTask', job)).toEqual([]);
    expect(membersOf('workflow.startJobWithOptions', { ...job, status: 'running' })).toEqual([]);
    const { status: _status, ...noStatus } = job;
    expect(membersOf('workflow.startJobWithOptions', noStatus)).toEqual(['response.status']);
    expect(membersOf('workflow.retryTask', { ...job, error: [{ task: 'a1b2', message: 'x', timestamp: '2025-01-01' }] })).toEqual([
      'response.error[0].timestamp',
    ]);
  });

  it('accept the shallow job (GET /workflow_engine/getJobShallow/:job_data) only without application, arguments, returned data and errors of tasks', () => {
    expect(membersOf('workflow.getJobShallow', shallow(job))).toEqual([]);
    expect(membersOf('workflow.getJobShallow', job)).toEqual(
      expect.arrayContaining(['response.tasks.a1b2', 'response.tasks.a1b2.variables']),
    );
  });

  it('accept the job page (GET /operations-manager/jobs)', () => {
    const page: JobPage = {
      items: [{ _id: 'j1', name: 'x' }],
      total: 31,
      currentPageSize: 1,
      hints: ['limit was clamped to 1000'],
      skip: 30,
      limit: 10,
      nextPageSkip: 40,
      previousPageSkip: 20,
    };
    expect(membersOf('workflow.getJobs', page)).toEqual([]);
    expect(membersOf('workflow.getJobs', { ...page, hints: 'none' })).toEqual(['response.hints']);
    expect(membersOf('workflow.getJobs', { items: [] })).toEqual(
      expect.arrayContaining(['response.total', 'response.currentPageSize', 'response.hints', 'response.skip', 'response.limit']),
    );
  });

  it('accept the job list (POST /workflow_engine/getJobList/:status) and the job envelope', () => {
    const list: JobList = { results: [job], skip: 0, limit: 10, total: 1 };
    expect(membersOf('workflow.getJobList', list)).toEqual([]);
    expect(membersOf('workflow.getJobList', { ...list, results: [{ name: 'x' }] })).toEqual(
      expect.arrayContaining(['response.results[0]._id', 'response.results[0].tasks', 'response.results[0].status']),
    );
    const envelope: JobEnvelope = { message: 'Successfully retrieved item', data: job, metadata: {} };
    expect(membersOf('workflow.getJob', envelope)).toEqual([]);
    expect(membersOf('workflow.getJob', { ...envelope, message: 'ok' })).toEqual(['response.message']);
  });

  it('accept import results with a failed item (operations 1 and 2)', () => {
    const result: ImportResult = {
      status: 'success',
      message: '1 of 2 automations imported',
      imported: [
        {
          success: true,
          message: 'imported',
          original: { name: 'a', data: { gbac: { write: [{ name: 'ops' }], read: [] } } },
          created: { _id: 'c1', name: 'a', data: { gbac: { write: ['g1'], read: [] } } },
        },
        { success: false, message: 'an automation named b exists', original: { name: 'b' }, created: null },
      ],
    };
    expect(membersOf('workflow.importCatalogAutomations', result)).toEqual([]);
    expect(membersOf('workflow.importCatalogAutomations', { ...result, status: 'error' })).toEqual(['response.status']);
    expect(
      membersOf('workflow.importAutomations', {
        status: 'success',
        message: 'x',
        imported: [{ success: false, message: 'bad', original: {} }],
      }),
    ).toEqual(['response.imported[0].created']);
  });

  it('accept the creation results of operations 3 and 10, with the status Created', () => {
    const created: CreatedResult<object> = {
      status: 'Created',
      message: 'Automation created',
      data: { _id: 'a1', name: 'x', componentType: null, gbac: { write: [], read: [] } },
    };
    expect(membersOf('workflow.createAutomation', created)).toEqual([]);
    expect(membersOf('workflow.createAutomation', { ...created, status: 'created' })).toEqual(['response.status']);
    const prebuilt = {
      metadata: {
        name: '@nap/turn-up',
        version: '1.0.0',
        description: 'd',
        author: 'a',
        license: 'Apache-2.0',
        repository: { type: 'git', url: 'https://x' },
        keywords: ['k'],
        hostedRepoId: 12,
      },
      manifest: {
        bundleName: 'turn-up',
        fingerprint: 'f',
        createdEpoch: '1735689600',
        artifacts: [{ id: 'w1', name: 'w', type: 'workflow', location: '/bundles/w.json' }],
      },
      bundles: [{ type: 'workflow' }, { type: 'mop-template' }],
      readme: '# turn-up',
    };
    expect(membersOf('admin.createGroup', { status: 'Created', message: 'Group created', data: prebuilt })).toEqual([]);
    expect(membersOf('admin.createGroup', { status: 'Created', message: 'Group created', data: { _id: 'g1', name: 'operators' } })).toEqual(
      [],
    );
    expect(membersOf('admin.createGroup', { status: 'Created', message: 'Group created' })).toEqual(['response.data']);
  });

  it('accept the orchestrator results (operations 5, 6, 7)', () => {
    expect(membersOf('orch-proxy.restAction', [{ result: '204 No Content' }])).toEqual([]);
    expect(membersOf('orch-proxy.restAction', { result: '204' })).toEqual(['response']);
    expect(membersOf('orch-proxy.restQuery', { instance_data: { name: 'r1', address: '10.0.0.1' } })).toEqual([]);
    expect(membersOf('orch-proxy.restQuery', [{ instance_data: { 'tailf-ncs:device': [{ name: 'r1' }] } }])).toEqual([]);
    expect(membersOf('orch-proxy.restQuery', [{ name: 'r1' }])).not.toEqual([]);
    expect(membersOf('orch-proxy.restQuery', 'r1')).not.toEqual([]);
    const leaf: SetLeafResultItem[] = [
      { action: 'update', path_raw: '/d{!dev!}', path_evaluated: '/d{r1}', value_raw: '!v!', value_evaluated: '1' },
    ];
    expect(
      membersOf('orch-proxy.setLeaf', [
        { ...leaf[0], dry_run: { 'dry-run-result': { cli: { 'local-node': { data: '+hostname r1;' } } } } },
      ]),
    ).toEqual([]);
    expect(membersOf('orch-proxy.setLeaf', [{ ...leaf[0], action: 'set' }])).toEqual(['response[0].action']);
    expect(membersOf('orch-proxy.setLeaf', leaf)).toEqual([]);
    expect(membersOf('orch-proxy.setLeaf', [{ action: 'set' }])).toEqual(
      expect.arrayContaining([
        'response[0].path_raw',
        'response[0].path_evaluated',
        'response[0].value_raw',
        'response[0].value_evaluated',
      ]),
    );
  });

  it('accept the integrations list (GET /integrations) with logger properties', () => {
    const list: IntegrationList = {
      results: [
        {
          metadata: { isActive: true, activeSync: false },
          data: {
            loggerProps: { log_level: 'info', log_max_files: 5, console_level: 'warn', syslog: { level: 'info', type: '5424', port: 514 } },
            isEncrypted: false,
            model: '@nap/adapter-nso',
            name: 'nso',
            type: 'Application',
            properties: { id: 'nso', type: 'NSO', brokers: ['device'], groups: [] },
            profiling: false,
            virtual: false,
            systemProps: { maxOldSpaceSize: 2048 },
            eventDeduplication: { active: true, cacheTtl: 60, algorithm: 'md5', uniqueProps: ['/name'] },
          },
        },
      ],
      total: 1,
    };
    expect(membersOf('admin.getIntegrations', list)).toEqual([]);
    expect(membersOf('admin.getIntegrations', { results: list.results })).toEqual(['response.total']);
    expect(membersOf('admin.getIntegrations', { results: [{ metadata: { isActive: 'yes' } }], total: 1 })).toEqual([
      'response.results[0].metadata.isActive',
    ]);
  });

  it('accept the SSH result (POST /gw/ssh/send_command) and the device template search (POST /configuration_manager/templates/search)', () => {
    const ssh: SshSendCommandResult = { status: 'success', code: 200, result: [{ command: 'show version', output: 'IOS' }] };
    expect(membersOf('gateway-devices.sshSendCommand', ssh)).toEqual([]);
    expect(membersOf('gateway-devices.sshSendCommand', { result: [] })).toEqual(['response.status', 'response.code']);
    const search: DeviceTemplateSearchResult = {
      total: 1,
      list: [
        {
          id: 't1',
          name: 'edge',
          template: 'hostname {{ hostname }}',
          variables: { hostname: 'r1' },
          created: '2025-01-01T00:00:00Z',
          updated: '2025-01-01T00:00:00Z',
          createdBy: 'admin',
          updatedBy: 'admin',
          gbac: { write: [], read: [] },
        },
      ],
    };
    expect(membersOf('gateway-devices.searchDeviceTemplates', search)).toEqual([]);
    expect(membersOf('gateway-devices.searchDeviceTemplates', { total: 1, list: [{ name: 'edge' }] })).toEqual([
      'response.list[0].id',
      'response.list[0].template',
    ]);
  });

  it('accept command templates (GET /mop/listTemplates) and refuse ISO dates where the spec has epoch numbers', () => {
    const template = {
      name: 'show-checks',
      _id: 'm1',
      os: 'cisco-ios',
      passRule: true,
      commands: [{ command: 'show version', passRule: true, rules: [{ rule: 'IOS', eval: 'contains', raw: 'IOS', result: true }] }],
      created: 1735689600000,
      lastUpdated: 1735689600000,
      createdBy: 'admin',
      lastUpdatedBy: 'admin',
    };
    expect(membersOf('mop.listTemplates', [template])).toEqual([]);
    expect(membersOf('mop.listTemplates', [{ ...template, created: '2025-01-01' }])).toEqual(['response[0].created']);
  });

  it('accept the exported form (POST /formbuilder/forms/export) only with a UUID v4 id', () => {
    const form: Form = {
      _id: '3f8e2a5c-1b4d-4c6e-9a7b-2d1e0f3c4b5a',
      name: 'Device form',
      children: [
        {
          type: 'field',
          name: 'device',
          description: 'd',
          element: '{"type":"string"}',
          source_type: 'method',
          source: 'getDevices',
          id: 'c1',
          yangkey: '',
          key: 'device',
          properties: { type: 'string', prefix: '' },
        },
      ],
      elements: [{ type: 'method', id: { name: 'getDevices' } }],
      groups: ['g1'],
      created: '2025-01-01T00:00:00Z',
      last_updated: '2025-01-01T00:00:00Z',
      created_by: 'u1',
      last_updated_by: 'u1',
    };
    expect(membersOf('studio.exportForm', form)).toEqual([]);
    expect(membersOf('studio.exportForm', { ...form, _id: 'form-1' })).toEqual(['response._id']);
  });

  it('accept the token answers of the authentication additions', () => {
    expect(membersOf('admin.login', 'eyJhbGciOiJFZERTQSJ9.e30.sig')).toEqual([]);
    expect(membersOf('admin.login', { token: 'x' })).toEqual(['response']);
    const token: OAuthTokenResult = { access_token: 'eyJ', token_type: 'Bearer', expires_in: 3600 };
    expect(membersOf('admin.oauthToken', token)).toEqual([]);
    expect(membersOf('admin.oauthToken', { ...token, token_type: 'bearer' })).toEqual(['response.token_type']);
    expect(
      membersOf('admin.whoami', {
        id: 'u1',
        username: 'admin',
        roles: ['admin'],
        groups: [{ id: 'g1', name: 'admins', provenance: 'NAP' }],
      }),
    ).toEqual([]);
    expect(membersOf('admin.whoami', { id: 'u1', username: 'admin', roles: ['root'], groups: [] })).toEqual(['response.roles[0]']);
  });

  it('do not change the body they check', () => {
    const body = structuredClone(job);
    validateResponse(getOperation('workflow.retryTask'), body);
    expect(body).toEqual(job);
  });
});
