import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { CATALOG } from '@nap/contracts';
import type { JobDocument, Trigger } from '@nap/contracts';
import { startCliSimulator } from '@nap/lab';
import type { CliSimulator } from '@nap/lab';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually, task, workflowDocument } from '@nap/testing';
import { createAutomation, greetWorkflow, waitForJob } from '../support/automation';
import { readEvents } from '../support/sse';
import type { Frame } from '../support/sse';

/**
 * The platform's promise that a secret is never answered in clear, as a sweep: secrets seeded
 * everywhere the HTTP interface takes one (job variables by name and declared by an inputSchema, a
 * manual task finished with one, a task error quoting one, trigger form data, device variables,
 * integrations, adapters, repository configurations, profiles and sign-in providers, command
 * template runs, account passwords), each a distinct text; then every GET route of the catalog that
 * can be filled in, the safe POST reads, a job's event stream, the audit export and a job archive,
 * read as the administrator: none holds any seeded secret in any form. Nor does the platform's log
 * at debug, nor the stores of the services and the bus (what the platform seals: devices,
 * integrations, adapters, profiles, triggers, and jobs, their large values included).
 */

let platform: TestPlatform;
let token: string;
let sim: CliSimulator;

const RUN = randomBytes(4).toString('hex');
/** Every seeded secret by where it was put; the text is `sweep-<place>-<run>` and a tail that changes its URL-encoded form. */
const SECRETS = new Map<string, string>();

function secret(place: string): string {
  const value = `sweep-${place}-${RUN}+p/w`;
  SECRETS.set(place, value);
  return value;
}

/**
 * The base64 texts that hold `text` wherever it starts in what was encoded (3 alignments): the
 * characters of each encoding that only `text` decides (the first and last group mix in its neighbours).
 */
function base64Cores(text: string): string[] {
  return [0, 1, 2].map((pad) => {
    const encoded = Buffer.from(`${'\0'.repeat(pad)}${text}`).toString('base64');
    return encoded.slice(pad === 0 ? 0 : 4, -4);
  });
}

/** The places (and forms) of the seeded secrets `text` holds: none when it leaks nothing. */
function leaks(text: string, secrets: ReadonlyMap<string, string> = SECRETS): string[] {
  const found: string[] = [];
  for (const [place, value] of secrets) {
    // the distinctive part has no character JSON or a URL encodes: it finds the plain, escaped and encoded forms
    const core = value.slice(0, value.indexOf('+'));
    if (text.includes(core)) found.push(`${place} (as written, JSON-escaped or URL-encoded)`);
    else if (base64Cores(core).some((b) => text.includes(b))) found.push(`${place} (base64)`);
  }
  return found;
}

function textOf(body: unknown): string {
  return typeof body === 'string' ? body : JSON.stringify(body);
}

type Envelope<T> = { data: T };

/** Every answer read, seeding included, by the request that gave it: what the sweep checks. */
const answers: { route: string; status: number; text: string }[] = [];

async function ok<T = unknown>(method: string, route: string, body?: unknown, as: string = token): Promise<T> {
  const res = await platform.http(method, route, { token: as, ...(body !== undefined ? { body } : {}) });
  answers.push({ route: `${method} ${route}`, status: res.status, text: textOf(res.body) });
  if (res.status !== 200 && res.status !== 201 && res.status !== 202)
    throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(res.body).slice(0, 800)}`);
  return res.body as T;
}

/** What was seeded, by kind: the values the GET routes' path parameters are filled with. */
const seeded = {
  jobs: [] as string[],
  triggers: [] as string[],
  automations: [] as string[],
  accounts: [] as string[],
  runs: [] as string[],
  archives: [] as string[],
};

const SWEEP_WORKFLOW = 'secret-sweep';

/** Every line the platform logged (at debug, the most it says): swept like the answers. */
const logged: string[] = [];
let stderrWrite: jest.SpyInstance | undefined;

beforeAll(async () => {
  // the test platform logs to this process's stderr: kept here instead of shown
  stderrWrite = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    logged.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  });
  platform = await startTestPlatform({ config: { logLevel: 'debug' } });
  token = await platform.login();
  sim = await startCliSimulator({
    deviceType: 'cisco_ios',
    hostname: 'sweep1',
    password: secret('device-gw_password'),
    startPrivileged: true,
  });
}, 60_000);

afterAll(async () => {
  await sim?.stop();
  await platform?.stop();
  stderrWrite?.mockRestore();
});

it('leaks() finds a secret as written, JSON-escaped, URL-encoded and in base64 at any alignment (HTTP Basic)', () => {
  const value = secret('self-check');
  for (const text of [value, JSON.stringify({ a: value }), encodeURIComponent(value), Buffer.from(value).toString('base64')])
    expect(leaks(text)).toHaveLength(1);
  for (const user of ['u', 'us', 'use']) expect(leaks(Buffer.from(`${user}:${value}`).toString('base64'))).toHaveLength(1);
  SECRETS.delete('self-check');
});

describe('seeding secrets everywhere the HTTP interface takes one', () => {
  it('jobs: variables by secret name, declared by the inputSchema, a manual task finished with one, a task error quoting one', async () => {
    await ok('POST', '/automation-studio/automations', {
      automation: workflowDocument(
        SWEEP_WORKFLOW,
        {
          // fails: its text is no JSON once the password is filled in, and its error quotes the text
          e1: task(
            'makeData',
            { input: 'login with <!password!> refused', variables: '$var.job.creds', outputType: 'json' },
            { output: null },
          ),
          e2: task('makeData', { input: 'use <!accessCode!> now', variables: '$var.job.access', outputType: 'json' }, { output: null }),
          v1: task(
            'ViewData',
            // its resolved incoming copies a declared secret and a secret-named one: both masked wherever they repeat
            { header: 'h', message: 'm', body: '$var.job.service_token', variables: '$var.job.access', btn_success: 'ok', btn_failure: '' },
            {},
            { type: 'manual' },
          ),
        },
        [
          ['workflow_start', 'e1'],
          ['e1', 'e2', 'error'],
          ['e2', 'v1', 'error'],
          ['v1', 'workflow_end'],
        ],
        {
          inputSchema: {
            type: 'object',
            properties: { access: { type: 'object', properties: { accessCode: { type: 'string', format: 'password' } } } },
          },
        },
      ),
    });
    seeded.automations.push(await createAutomation(platform, token, greetWorkflow('secret-sweep-greet')));
    const started = await ok<JobDocument>('POST', `/workflow_engine/startJobWithOptions/${SWEEP_WORKFLOW}`, {
      options: {
        variables: {
          password: secret('job-password'),
          api_token: secret('job-api_token'),
          service_token: secret('job-service_token copied into a manual task incoming'),
          creds: { username: 'ops', password: secret('job-creds.password') },
          access: { accessCode: secret('job-declared-accessCode'), site: 'ams' },
        },
      },
    });
    seeded.jobs.push(started._id);
    await eventually(
      'the manual task v1 waiting',
      async () => (await ok<Envelope<JobDocument>>('GET', `/operations-manager/jobs/${started._id}`)).data.tasks.v1?.status === 'running',
      { timeoutMs: 10_000 },
    );
    await ok('POST', `/operations-manager/jobs/${started._id}/tasks/v1/finish`, {
      variables: { password: secret('task-finish-password'), note: 'done' },
    });
    const done = await waitForJob(platform, token, started._id);
    expect(done.status).toBe('complete');
    // a member secret only by the inputSchema may be searched by, but its value is stored sealed: a
    // search by the start of its value finds nothing (it would tell the value a character at a time)
    const byName = await ok<{ total: number }>('GET', `/operations-manager/jobs?equals[_id]=${started._id}`);
    const byDeclared = await ok<{ total: number }>(
      'GET',
      `/operations-manager/jobs?equals[_id]=${started._id}&starts-with[variables.access.accessCode]=sweep-`,
    );
    expect({ byName: byName.total, byDeclared: byDeclared.total }).toEqual({ byName: 1, byDeclared: 0 });
    // the tasks did fail, quoting what they were given: the errors are there to be swept
    expect(String(done.tasks.e1?.variables?.error)).toContain('login with');
    expect(String(done.tasks.e2?.variables?.error)).toContain('use');
  });

  it('triggers: manual and schedule form data', async () => {
    const [actionId] = seeded.automations as [string];
    const manual = await ok<Envelope<Trigger>>('POST', '/operations-manager/triggers', {
      name: 'sweep manual',
      type: 'manual',
      actionId,
      formData: { who: 'ops', api_token: secret('trigger-manual-api_token'), creds: { password: secret('trigger-manual-creds.password') } },
    });
    seeded.triggers.push(manual.data._id);
    const run = await ok<Envelope<JobDocument>>('POST', `/operations-manager/triggers/manual/${manual.data._id}/run`, {});
    seeded.jobs.push(run.data._id);
    const schedule = await ok<Envelope<Trigger>>('POST', '/operations-manager/triggers', {
      name: 'sweep schedule',
      type: 'schedule',
      actionId,
      firstRunAt: Date.now() + 200,
      formData: { who: 'clock', device_password: secret('trigger-schedule-device_password') },
    });
    seeded.triggers.push(schedule.data._id);
    const fired = await eventually(
      'the scheduled job',
      async () => {
        const list = await ok<{ items: JobDocument[] }>('GET', `/operations-manager/jobs?equals[trigger._id]=${schedule.data._id}`);
        return list.items[0];
      },
      { timeoutMs: 15_000 },
    );
    seeded.jobs.push(fired._id);
    for (const id of seeded.jobs.slice(1)) expect((await waitForJob(platform, token, id)).status).toBe('complete');
  });

  it('triggers: a form and an endpoint schema that declare a password field (format password)', async () => {
    const [actionId] = seeded.automations as [string];
    const form = await ok<Envelope<{ _id: string }>>('POST', '/formbuilder/forms', {
      form: {
        name: 'sweep form',
        struct: {},
        schema: {
          type: 'object',
          properties: { who: { type: 'string' }, accessCode: { type: 'string', format: 'password' } },
          required: ['who'],
        },
      },
    });
    const manual = await ok<Envelope<Trigger>>('POST', '/operations-manager/triggers', {
      name: 'sweep form trigger',
      type: 'manual',
      actionId,
      formId: form.data._id,
      formData: { who: 'ops', accessCode: secret('trigger form data declared secret by its form') },
    });
    seeded.triggers.push(manual.data._id);
    const run = await ok<Envelope<JobDocument>>('POST', `/operations-manager/triggers/manual/${manual.data._id}/run`, {
      formData: { who: 'eng', accessCode: secret('job variable declared secret by its trigger form') },
    });
    seeded.jobs.push(run.data._id);
    const endpoint = await ok<Envelope<Trigger>>('POST', '/operations-manager/triggers', {
      name: 'sweep endpoint',
      type: 'endpoint',
      actionId,
      routeName: 'sweep-endpoint',
      schema: { type: 'object', properties: { who: { type: 'string' }, pin: { type: 'string', writeOnly: true } }, required: ['who'] },
    });
    seeded.triggers.push(endpoint.data._id);
    const called = await ok<Envelope<JobDocument>>('POST', '/operations-manager/triggers/endpoint/sweep-endpoint', {
      who: 'api',
      pin: secret('job variable declared secret by its endpoint trigger schema'),
    });
    seeded.jobs.push(called.data._id);
    for (const id of seeded.jobs.slice(-2)) expect((await waitForJob(platform, token, id)).status).toBe('complete');
  });

  it('devices: top-level and nested variables, HTTP headers', async () => {
    await ok('POST', '/gw/createInventoryDevice', {
      name: 'sweep-ios',
      variables: {
        gw_host: sim.host,
        gw_port: sim.port,
        gw_network_os: sim.deviceType,
        gw_user: sim.username,
        gw_password: SECRETS.get('device-gw_password'),
        creds: { user: 'x', password: secret('device-creds.password') },
      },
    });
    await ok('POST', '/gw/createInventoryDevice', {
      name: 'sweep-http',
      groups: ['sweep-group'],
      variables: {
        gw_http_base_url: 'http://127.0.0.1:9/api',
        gw_http_headers: { Authorization: `Bearer ${secret('device-http-authorization')}` },
        enable_pwd: secret('device-enable_pwd'),
      },
    });
  });

  it('command template runs with variables holding secrets', async () => {
    await ok('POST', '/mop/createTemplate', {
      mop: {
        name: 'sweep-template',
        os: 'cisco_ios',
        passRule: true,
        commands: [{ command: 'show running-config | include <!snmp_community!>', passRule: true, rules: [] }],
      },
    });
    // not swept: the answer to a run is the caller's own output, the commands as sent with the values it gave (by design,
    // services/mop/test/templates.test.ts); the run kept and answered by GET /mop/runs/:id is masked, and is swept
    const run = await platform.http('POST', '/mop/RunCommandTemplate', {
      token,
      body: {
        template: 'sweep-template',
        devices: ['sweep-ios'],
        variables: { snmp_community: secret('mop-run-snmp_community'), site: 'ams' },
      },
    });
    expect(run.status).toBe(200);
    const { runId } = run.body as { runId: string };
    seeded.runs.push(runId);
    // the run did send the secret to the device: what the sweep then finds masked was there to find
    expect(JSON.stringify(run.body)).toContain(SECRETS.get('mop-run-snmp_community'));
  });

  it('an HTTP request to a device whose headers hold a secret, to an address that does not answer', async () => {
    const res = await platform.http('POST', '/gw/http_requests/request/execute', {
      token,
      body: { host: 'sweep-http', method: 'GET', endpoint: '/status' },
    });
    answers.push({ route: 'POST /gw/http_requests/request/execute', status: res.status, text: textOf(res.body) });
    expect(res.status).toBeGreaterThanOrEqual(400);
  });

  it('a command sent with credentials of its own (connection_options), refused by the device', async () => {
    const sent = await ok<unknown>('POST', '/gw/sshSendCommandExec', {
      host: 'sweep-ios',
      command_string: 'show version',
      connection_options: { username: 'nobody', password: secret('adhoc-ssh-password') },
    }).catch((err: Error) => err.message);
    expect(sent).toBeDefined();
  });

  it('integrations, adapters, repository configurations', async () => {
    await ok('POST', '/integration-models', {
      model: {
        openapi: '3.0.3',
        info: { title: 'Sweep Pets', version: '1.0.0' },
        servers: [{ url: 'http://127.0.0.1:9/api' }],
        paths: { '/pets': { get: { operationId: 'listPets', responses: { '200': { description: 'ok' } } } } },
      },
    });
    await ok('POST', '/integrations', {
      properties: {
        name: 'sweep-basic',
        model: 'Sweep Pets:1.0.0',
        properties: { authentication: { type: 'basic', username: 'u', password: secret('integration-basic-password') } },
      },
    });
    await ok('POST', '/integrations', {
      properties: {
        name: 'sweep-oauth',
        model: 'Sweep Pets:1.0.0',
        properties: {
          authentication: {
            type: 'oauthClientCredentials',
            token_url: 'http://127.0.0.1:9/oauth_token.do',
            client_id: 'nap',
            client_secret: secret('integration-oauth-client_secret'),
          },
        },
      },
    });
    await ok('POST', '/adapters', {
      properties: {
        name: 'sweep-adapter',
        type: 'Adapter',
        model: '@nap/adapter-http',
        properties: {
          id: 'sweep-adapter',
          type: 'HTTP',
          brokers: [],
          groups: [],
          properties: {
            server: { protocol: 'http', host: '127.0.0.1', port: 9, base_path: '/api' },
            authentication: { type: 'basic', username: 'u', password: secret('adapter-password') },
            healthcheck: { path: '/stats.do', intervalSeconds: 3600 },
          },
        },
      },
    });
    await ok('POST', '/prebuilts-repository/configs', {
      config: {
        name: 'sweep-gitlab',
        type: 'gitlab',
        hostname: '127.0.0.1:9',
        protocol: 'http',
        path: 'sweep/prebuilts',
        credentials: { token: secret('repository-token') },
      },
    });
  });

  it('profiles and sign-in providers', async () => {
    await ok('POST', '/profiles', {
      properties: {
        id: 'sweep-profile',
        alarmProps: [{ ip: '192.0.2.10', community: secret('profile-alarm-community'), type: 'snmp' }],
      },
    });
    const { profile } = await ok<{ profile: { authenticationProps: Record<string, unknown> } & Record<string, unknown> }>(
      'GET',
      '/profiles/default',
    );
    await ok('PUT', '/profiles/default', {
      properties: {
        ...profile,
        authenticationProps: {
          ...profile.authenticationProps,
          providers: {
            directory: {
              type: 'ldap',
              url: 'ldap://127.0.0.1:9',
              bindDN: 'cn=nap,dc=example,dc=net',
              bindPassword: secret('provider-ldap-bindPassword'),
              userBase: 'ou=people,dc=example,dc=net',
              timeoutMs: 500,
            },
            aaa: { type: 'radius', servers: ['127.0.0.1:9'], secret: secret('provider-radius-secret') },
            corp: { type: 'oidc', issuer: 'http://127.0.0.1:9', clientId: 'nap', clientSecret: secret('provider-oidc-clientSecret') },
          },
        },
      },
    });
  });

  it('accounts: created, set and changed passwords, and sign-ins with them', async () => {
    const created = await ok<{ _id?: string; data?: { _id: string } }>('POST', '/user-management/accounts', {
      account: { username: 'sweep-user', password: secret('account-created-password') },
    });
    const id = created.data?._id ?? created._id;
    if (typeof id !== 'string') throw new Error(`no account id in ${JSON.stringify(created)}`);
    seeded.accounts.push(id);
    await platform.login('sweep-user', SECRETS.get('account-created-password'));
    await ok('PUT', `/user-management/accounts/${id}/password`, { password: secret('account-set-password') });
    const user = await platform.login('sweep-user', SECRETS.get('account-set-password'));
    await ok(
      'PUT',
      '/whoami/password',
      { currentPassword: SECRETS.get('account-set-password'), newPassword: secret('account-changed-password') },
      user,
    );
    // a refused sign-in names the account, never the password tried
    const refused = await platform.http('POST', '/login', {
      body: { user: { username: 'sweep-user', password: secret('account-wrong-password') } },
    });
    expect(refused.status).toBe(401);
    expect(leaks(textOf(refused.body))).toEqual([]);
  });
});

/** Reads a route as the administrator and keeps the answer as text (JSON, NDJSON, metrics, XML alike). */
async function read(method: string, route: string, body?: unknown): Promise<void> {
  const res = await fetch(`${platform.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    redirect: 'manual',
  });
  // a redirect's Location could carry a secret too
  answers.push({ route: `${method} ${route}`, status: res.status, text: `${res.headers.get('location') ?? ''}\n${await res.text()}` });
}

/** The ids an answer lists (`_id`, `id`, `name` or `seq` of its items, or of their `data`), at most 20. */
function idsOf(body: unknown): string[] {
  const record = body as Record<string, unknown> | null;
  const list = Array.isArray(body)
    ? body
    : [record?.results, record?.items, record?.data, record?.list, record?.integrationModels].find((l): l is unknown[] => Array.isArray(l));
  const ids: string[] = [];
  for (const item of list ?? []) {
    if (typeof item === 'string') ids.push(item);
    if (item === null || typeof item !== 'object') continue;
    const member = item as Record<string, unknown>;
    const data = (member.data ?? {}) as Record<string, unknown>;
    const profile = (member.profile ?? {}) as Record<string, unknown>;
    const id =
      member._id ?? member.id ?? member.name ?? member.seq ?? member.versionId ?? member.collection ?? data._id ?? data.name ?? profile.id;
    if (typeof id === 'string' || typeof id === 'number') ids.push(String(id));
  }
  return [...new Set(ids)].slice(0, 20);
}

/**
 * GET routes the sweep does not call, and why. Anything else of the catalog is called; a route
 * added to the catalog is swept without a change here.
 */
const NOT_SWEPT: Record<string, string> = {
  '/logout': 'ends the calling session: nothing to answer but an acknowledgement',
  '/operations-manager/events':
    'a live stream with no replay of what happened before it was opened; the job event stream below reads the same events',
  '/operations-manager/jobs/:jobId/events': 'a stream: read once below, its snapshot and events up to the end of the job',
  '/operations-manager/jobs/archives/:archiveId': 'a gzip download: read below once an archive is made',
};

/**
 * GET routes with a parameter that nothing seeded fills in: the sweep puts no secret in these kinds
 * (documents of the studio, links, prebuilts, analytic and device templates; the policy masks them by
 * name like every answer), and they list nothing to call the route with.
 */
const NOTHING_SEEDED = [
  '/mop/listAnAnalyticTemplate/:name',
  '/configuration_manager/templates/:id',
  '/external-links/:linkId',
  '/prebuilts/:id/export',
  '/prebuilts/:id',
  '/automation-studio/component-groups/:id',
  '/automation-studio/templates/:id/export',
  '/automation-studio/templates/:id',
  '/automation-studio/projects/:id',
  '/automation-studio/projects/:id/export',
  '/transformations/:id',
];

/** The list route a parameterised route takes its values from, where it is not the route up to its first parameter. */
const LIST_OF: Record<string, string> = {
  '/schema/adapters/:name': '/adapters',
  '/schema/applications/:name': '/applications',
  '/schema/integrations/:name': '/integrations',
  '/mop/listAnAnalyticTemplate/:name': '/mop/listAnalyticTemplates',
  '/mop/listATemplate/:name': '/mop/listTemplates',
  '/indexes/:collection/status': '/indexes',
};

/** The routes to call for one GET operation of the catalog: its path with the seeded values filled in. */
async function routesOf(path: string): Promise<string[]> {
  if (path.startsWith('/mop/task/'))
    return seeded.jobs.slice(0, 1).flatMap((jobId) => ['v1', 'e1'].map((taskId) => `${path}?jobId=${jobId}&taskId=${taskId}`));
  if (path === '/automation-studio/references-to') return seeded.automations.map((id) => `${path}?target=${id}`);
  if (path === '/mop/listATemplate/:name') return [path.replace(':name', 'sweep-template')];
  if (path === '/sso/login') return [`${path}?provider=corp`];
  if (path === '/sso/saml/metadata') return [`${path}?provider=corp`];
  if (path === '/operations-manager/jobs')
    return [
      `${path}?limit=100`,
      `${path}?limit=100&include=tasks`,
      `${path}?limit=100&include=variables`,
      `${path}?limit=100&include=tasks,variables`,
    ];
  const params = [...path.matchAll(/:(\w+)/g)].map((m) => m[1] as string);
  if (params.length === 0) return [path];
  let values: string[];
  if (params[0] === 'jobId' || params[0] === 'job_data') values = seeded.jobs;
  else if (path.startsWith('/mop/runs/')) values = seeded.runs;
  else if (path.startsWith('/mop/devices/')) values = ['sweep'];
  else {
    const list = LIST_OF[path] ?? path.slice(0, path.indexOf('/:'));
    const res = await platform.http('GET', list, { token });
    values = res.status === 200 ? idsOf(res.body) : [];
  }
  return values.map((value) => path.replace(`:${params[0] as string}`, encodeURIComponent(value)));
}

describe('no answer holds a seeded secret', () => {
  it('every GET route of the catalog it can fill in, and the safe POST reads', async () => {
    const unfilled: string[] = [];
    for (const op of CATALOG) {
      if (op.http?.method !== 'GET' || op.http.path in NOT_SWEPT) continue;
      const routes = await routesOf(op.http.path);
      if (routes.length === 0) unfilled.push(op.http.path);
      for (const route of routes) await read('GET', route);
    }
    for (const name of ['sweep-ios', 'sweep-http']) await read('POST', '/gw/getInventoryDevice', { name });
    await read('POST', '/gw/getInventoryDevices', {});
    await read('POST', '/gw/getInventoryGroups', {});
    await read('POST', '/workflow_engine/getJobList/all', { options: {} });
    await read('POST', '/mop/deviceObjects', {});
    // the job's event stream: its snapshot (the job ended: nothing follows)
    const res = await fetch(`${platform.url}/operations-manager/jobs/${seeded.jobs[0] as string}/events`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const frames: Frame[] = [];
    await readEvents(res, (frame) => void frames.push(frame));
    expect(frames[0]?.event).toBe('snapshot');
    answers.push({ route: 'GET /operations-manager/jobs/:jobId/events', status: res.status, text: JSON.stringify(frames) });

    const leaked = answers.flatMap((a) => leaks(a.text).map((place) => `${a.route} (${a.status}): ${place}`));
    expect(leaked).toEqual([]);
    // every route with a parameter was called, but those of kinds nothing seeded
    expect(unfilled).toEqual(NOTHING_SEEDED);
  });
});

describe('nothing kept holds a seeded secret in clear', () => {
  it('the stores of the services and of the bus: devices, integrations, adapters, profiles, triggers, jobs and their values', async () => {
    const found: string[] = [];
    const swept: string[] = [];
    for (const service of ['gateway-devices', 'admin', 'mop', 'workflow'] as const) {
      const store = platform.stores.get(service);
      if (!store) throw new Error(`no store of ${service}`);
      // every collection, the jobs' too: the workflow service keeps a job's secrets sealed wherever it holds them
      for (const name of await store.listCollections()) {
        const docs = await store.collection(name).find({});
        swept.push(`${service}.${name}`);
        for (const place of leaks(JSON.stringify(docs))) found.push(`${service}.${name}: ${place}`);
      }
    }
    // the in-process bus's journal (work queues, event sequences)
    if (!platform.busStore) throw new Error('no store of the in-process bus');
    for (const name of await platform.busStore.listCollections()) {
      const docs = await platform.busStore.collection(name).find({});
      for (const place of leaks(JSON.stringify(docs))) found.push(`nap_bus.${name}: ${place}`);
    }
    expect(found).toEqual([]);
    // the sweep read the jobs with their values: every seeded job, and the answer its manual task was finished with (the password beside it sealed)
    expect(swept).toEqual(expect.arrayContaining(['workflow.jobs', 'workflow.job_values', 'workflow.triggers']));
    const jobs = await platform.stores
      .get('workflow')
      ?.collection('jobs')
      .find({ _id: { $in: seeded.jobs } });
    expect(jobs?.map((j) => j._id).sort()).toEqual([...seeded.jobs].sort());
    expect(JSON.stringify(jobs)).toContain('"note":"done"');
  });

  it('the log, at debug', () => {
    // the platform did log: requests, jobs, device sessions
    expect(logged.length).toBeGreaterThan(100);
    expect(logged.flatMap((line) => leaks(line).map((place) => `${place}: ${line.slice(0, 300)}`))).toEqual([]);
  });

  it('a job archive, downloaded', async () => {
    const archive = await ok<{ _id: string }>('POST', '/operations-manager/jobs/archive', {
      before: Date.now() + 60_000,
      status: 'complete',
    });
    await eventually(
      `archive ${archive._id} complete`,
      async () =>
        (await ok<{ results: { state: string }[] }>('GET', `/operations-manager/jobs/archives?equals[_id]=${archive._id}`)).results[0]
          ?.state === 'complete',
      { timeoutMs: 15_000 },
    );
    const res = await fetch(`${platform.url}/operations-manager/jobs/archives/${archive._id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    const text = gunzipSync(Buffer.from(await res.arrayBuffer())).toString('utf8');
    // the archive holds the seeded jobs: it is no empty file that proves nothing
    for (const id of seeded.jobs) expect(text).toContain(id);
    expect(leaks(text)).toEqual([]);
    expect(leaks(JSON.stringify(await ok('GET', '/operations-manager/jobs/archives')))).toEqual([]);
  });
});
