import type { AdapterHealth, AdapterRecord, ApplicationHealth, ApplicationRecord, AuditRecord, HealthStatus } from '../src/api/platform';
import {
  adapterActions,
  adapterCheckUrl,
  adapterEndpoint,
  adapterRows,
  formatBytes,
  healthcheckOf,
  infraRows,
  integrationRows,
  logLevelOf,
  maskedPaths,
  serviceActions,
  serviceRows,
  summaryOf,
} from '../src/pages/platform/platform-status';

/** What the Platform pages say of the platform's state: rows, tones, problems first, and the summary line. */

const NOW = Date.UTC(2026, 11, 4, 16, 0, 0);

function application(name: string, service: string, state: 'RUNNING' | 'STOPPED' | 'DEAD', activeSync = true): ApplicationRecord {
  const instances =
    state === 'DEAD'
      ? []
      : [
          {
            id: `${service}-reg`,
            instance: `${service}-1`,
            state: state === 'STOPPED' ? ('paused' as const) : ('running' as const),
            version: '2026.1.0',
            started: new Date(NOW - 60_000).toISOString(),
          },
        ];
  return {
    metadata: { isActive: state !== 'STOPPED', activeSync, state, service: service as ApplicationRecord['metadata']['service'] },
    data: { name, type: 'Application', model: `@nap/${service}`, loggerProps: {}, properties: {} },
    instances,
  };
}

function appHealth(name: string, service: string, requests: number, errors: number): ApplicationHealth {
  return {
    id: name,
    name,
    type: 'Application',
    service: service as ApplicationHealth['service'],
    state: 'RUNNING',
    version: '2026.1.0',
    instances: [{ id: `${service}-reg`, state: 'running', requests, errors }],
  };
}

function adapter(name: string, settings: Record<string, unknown>, type: 'HTTP' | 'NSO' = 'HTTP'): AdapterRecord {
  return {
    metadata: { isActive: true, state: 'RUNNING' },
    data: { name, model: '@nap/adapter-http', properties: { id: name, type, brokers: [], groups: [], properties: settings } },
  };
}

function adapterHealth(
  name: string,
  state: AdapterHealth['state'],
  connection: AdapterHealth['connection']['state'],
  extra: Partial<AdapterHealth> = {},
) {
  return { name, type: 'HTTP' as const, state, connection: { state: connection }, uptime: 0, lastCheck: null, lastError: null, ...extra };
}

function stopRecord(name: string, by: string, at: string): AuditRecord {
  return {
    seq: 1,
    entryId: `e-${name}`,
    timestamp: at,
    actor: { kind: 'account', username: by },
    operation: 'admin.stopAdapter',
    method: 'PUT',
    outcome: { status: 200 },
    target: { kind: 'adapter', id: name, name },
    changes: [{ member: 'state', before: 'RUNNING', after: 'STOPPED' }],
    prevHash: '0',
    hash: '1',
  } as AuditRecord;
}

describe('the Platform pages’ rows', () => {
  it('make one row a service, named by its applications, problems first', () => {
    const rows = serviceRows(
      [
        application('OperationsManager', 'workflow', 'RUNNING'),
        application('WorkFlowEngine', 'workflow', 'RUNNING'),
        application('AdminEssentials', 'admin', 'RUNNING'),
        application('MOP', 'mop', 'STOPPED'),
        application('OrchManager', 'orch-proxy', 'DEAD'),
        application('Jst', 'studio', 'RUNNING', false),
      ],
      [appHealth('OperationsManager', 'workflow', 12, 1), appHealth('WorkFlowEngine', 'workflow', 12, 1)],
    );
    expect(rows.map((r) => [r.name, r.state, r.tone])).toEqual([
      ['OrchManager', 'DEAD', 'problem'],
      ['MOP', 'STOPPED', 'stopped'],
      ['Jst', 'RUNNING', 'changing'],
      ['AdminEssentials', 'RUNNING', 'ok'],
      ['OperationsManager, WorkFlowEngine', 'RUNNING', 'ok'],
    ]);
    const workflow = rows.find((r) => r.service === 'workflow');
    // the counts of the service's replicas once, not once an application
    expect(workflow).toMatchObject({ running: 1, paused: 0, requests: 12, errors: 1, versions: ['2026.1.0'], upSince: NOW - 60_000 });
    expect(rows.find((r) => r.service === 'mop')).toMatchObject({ running: 0, paused: 1 });
    expect(rows.find((r) => r.service === 'orch-proxy')).toMatchObject({ running: 0, paused: 0, upSince: undefined });
  });

  it('say since when a service runs from its health: an operator’s Stop and Start restart the count, not the process', () => {
    const restarted = { ...appHealth('OrchManager', 'orch-proxy', 0, 0) };
    restarted.instances = [{ id: 'orch-proxy-reg', state: 'running', started: new Date(NOW - 3000).toISOString(), requests: 0, errors: 0 }];
    const [row] = serviceRows([application('OrchManager', 'orch-proxy', 'RUNNING')], [restarted]);
    // the record says the process began a minute ago; the health, that the application was started again 3 s ago
    expect(row?.upSince).toBe(NOW - 3000);
    // a health without the time: the record's
    const [unknown] = serviceRows([application('OrchManager', 'orch-proxy', 'RUNNING')], [appHealth('OrchManager', 'orch-proxy', 0, 0)]);
    expect(unknown?.upSince).toBe(NOW - 60_000);
  });

  it('offer a service the actions its state allows, never a stop of the admin service', () => {
    expect(serviceActions({ state: 'RUNNING', isProtected: false })).toEqual(['restart', 'stop']);
    expect(serviceActions({ state: 'RUNNING', isProtected: true })).toEqual([]);
    expect(serviceActions({ state: 'STOPPED', isProtected: false })).toEqual(['start']);
    expect(serviceActions({ state: 'DEAD', isProtected: false })).toEqual([]);
  });

  it('list adapters problems first (DEAD, then failing checks), say since when and who stopped one, and leave deleted ones out', () => {
    const rows = adapterRows(
      [
        adapterHealth('netbox', 'RUNNING', 'ONLINE', { uptime: 90 }),
        adapterHealth('gitlab', 'STOPPED', 'UNKNOWN'),
        adapterHealth('old', 'DELETED', 'UNKNOWN'),
        adapterHealth('infoblox', 'RUNNING', 'OFFLINE', {
          lastError: { message: 'the health path / answered 503', at: '2026-12-04T15:59:00.000Z' },
        }),
        adapterHealth('servicenow', 'DEAD', 'OFFLINE', { lastError: { message: 'could not be reached', at: '2026-12-04T15:58:00.000Z' } }),
        adapterHealth('nso', 'STARTING', 'UNKNOWN'),
      ],
      [adapter('netbox', {}), adapter('gitlab', {})],
      [stopRecord('gitlab', 'olga', '2026-12-04T15:50:00.000Z'), stopRecord('gitlab', 'admin', '2026-12-04T15:40:00.000Z')],
      NOW,
    );
    expect(rows.map((r) => [r.name, r.tone])).toEqual([
      ['infoblox', 'problem'],
      ['servicenow', 'problem'],
      ['gitlab', 'stopped'],
      ['nso', 'changing'],
      ['netbox', 'ok'],
    ]);
    const by = (name: string) => rows.find((r) => r.name === name);
    expect(by('netbox')).toMatchObject({ since: NOW - 90_000, model: '@nap/adapter-http' });
    expect(by('servicenow')).toMatchObject({ since: Date.UTC(2026, 11, 4, 15, 58), lastError: { message: 'could not be reached' } });
    // the latest stop is who stopped it
    expect(by('gitlab')).toMatchObject({ stoppedBy: 'olga', since: Date.UTC(2026, 11, 4, 15, 50) });
    expect(by('nso')?.since).toBeUndefined();
  });

  it('offer an adapter the actions its state allows: restart brings a DEAD one back', () => {
    expect(adapterActions('RUNNING')).toEqual(['restart', 'stop']);
    expect(adapterActions('STARTING')).toEqual(['stop']);
    expect(adapterActions('STOPPED')).toEqual(['start']);
    expect(adapterActions('DEAD')).toEqual(['restart']);
    expect(adapterActions('STOPPING')).toEqual([]);
    expect(adapterActions('DELETED')).toEqual([]);
  });

  it('read an adapter’s system, its connection check with the platform’s defaults, its masked secrets and its log level', () => {
    const http = adapter('snow', {
      server: { protocol: 'https', host: 'acme.service-now.com', port: 443, base_path: '/api/now' },
      authentication: { type: 'basic', username: 'nap', password: '********' },
      healthcheck: { path: 'stats.do', intervalSeconds: 5 },
    });
    expect(adapterEndpoint(http)).toBe('https://acme.service-now.com:443/api/now');
    // the check asks from the server's root, not below its base path
    expect(adapterCheckUrl(http)).toBe('https://acme.service-now.com:443/stats.do');
    expect(healthcheckOf(http)).toEqual({ path: 'stats.do', intervalSeconds: 5, failuresBeforeDead: 3 });
    const nso = adapter(
      'nso',
      { http: { host: 'nso-1' }, ssl: { enabled: true }, credentials: { user: 'nap', passwd: '********' } },
      'NSO',
    );
    expect(adapterEndpoint(nso)).toBe('https://nso-1:8888');
    expect(healthcheckOf(nso)).toEqual({ path: '/restconf', intervalSeconds: 30, failuresBeforeDead: 3 });
    expect(maskedPaths(nso.data.properties)).toEqual(['properties.credentials.passwd']);
    expect(maskedPaths({ list: [{ token: '********' }, 'x'] })).toEqual(['list[0].token']);
    expect(logLevelOf(undefined)).toBeUndefined();
    expect(logLevelOf({ log_level: 'warn' })).toBe('warn');
    expect(logLevelOf({ console_level: 'debug', log_level: 'warn' })).toBe('debug');
  });

  it('list integrations with their server and authentication', () => {
    expect(
      integrationRows([
        {
          metadata: { isActive: true },
          data: {
            name: 'snow',
            model: 'ServiceNow Table:latest',
            properties: {
              server: { protocol: 'https', host: 'acme.service-now.com' },
              authentication: { type: 'bearer', token: '********' },
            },
          },
        },
      ]),
    ).toEqual([
      { name: 'snow', model: 'ServiceNow Table:latest', server: 'https://acme.service-now.com', authentication: 'bearer', active: true },
    ]);
  });
});

describe('the Platform page’s summary', () => {
  const status = (store: string): HealthStatus => ({
    status: 'running',
    timestamp: NOW,
    services: [
      { service: 'bus (nats)', status: 'running' },
      { service: 'store (embedded)', status: store },
    ],
    apps: 'running',
    applications: [],
  });
  const services = serviceRows([application('MOP', 'mop', 'RUNNING'), application('AdminEssentials', 'admin', 'RUNNING')], []);
  const running = adapterRows([adapterHealth('netbox', 'RUNNING', 'ONLINE')], [], [], NOW);

  it('says all is healthy with the count of components', () => {
    expect(infraRows(status('running')).map((r) => [r.label, r.kind, r.tone])).toEqual([
      ['Bus', 'nats', 'ok'],
      ['Store', 'embedded', 'ok'],
    ]);
    expect(summaryOf(services, running, infraRows(status('running')))).toMatchObject({ tone: 'ok', headline: 'All 5 components healthy' });
  });

  it('names the problems first, then what operators stopped, each with its state', () => {
    const adapters = adapterRows(
      [
        adapterHealth('netbox', 'RUNNING', 'OFFLINE'),
        adapterHealth('gitlab', 'STOPPED', 'UNKNOWN'),
        adapterHealth('servicenow', 'DEAD', 'OFFLINE'),
      ],
      [],
      [],
      NOW,
    );
    const stoppedMop = serviceRows([application('MOP', 'mop', 'STOPPED')], []);
    const summary = summaryOf(stoppedMop, adapters, infraRows(status('low on space')));
    expect(summary.tone).toBe('problem');
    expect(summary.headline).toBe(
      '3 problems: store (embedded) low on space, adapter netbox OFFLINE, adapter servicenow DEAD; 2 stopped by an operator: application MOP STOPPED, adapter gitlab STOPPED',
    );
    expect(summary.groups[0]?.findings.map((f) => f.adapter)).toEqual([undefined, 'netbox', 'servicenow']);
  });

  it('counts what changes apart, and what could not be read as a problem', () => {
    const starting = adapterRows([adapterHealth('netbox', 'STARTING', 'UNKNOWN')], [], [], NOW);
    expect(summaryOf(services, starting, []).headline).toBe('2 components healthy; 1 changing: adapter netbox STARTING');
    expect(summaryOf(services, [], [], ['adapters']).headline).toBe('1 problem: adapters unreadable');
  });

  it('writes bytes as people read them', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(238_723_072)).toBe('228 MiB');
    expect(formatBytes(82_820_857_856)).toBe('77.1 GiB');
    expect(formatBytes(undefined)).toBe('—');
  });
});
