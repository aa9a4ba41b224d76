import type { JobDocument } from '@nap/contracts';
import { TEST_ADMIN, startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually } from '@nap/testing';
import { createGreetingEndpoint, waitForJob } from '../support/automation';

/**
 * Every call of the platform's clients that clients.test.ts leaves out, made the way each client
 * makes it and checked the way its code checks the answer:
 * - the Ansible collection itential.platform: a `requests` call with `content-type` and `accept`
 *   application/json on every method (a body only when the module has data), the token of the raw
 *   /login answer (or `platform_auth_token`) as `?token=`, the query encoded as Python's urlencode
 *   does (`%5B`, `%5D`, `+`, `%2C`); anything but 200 fails the task, and the body is read as JSON
 *   only when the content type starts with application/json;
 * - the Python SDK ipsdk: user/password logs in with POST /login and goes on with the cookie jar;
 *   client credentials take `access_token` from POST /oauth/token and send it as Bearer; any status
 *   outside 2xx raises;
 * - the GitHub Actions itential-automation-start and itential-automation-get-status (their ea-utils
 *   SDK): the release of GET /health/server picks the job routes, `expires_in` of the OAuth answer
 *   dates the token, a refused start shows `data.message`, a refused status read shows `data`.
 */

let platform: TestPlatform;
let base: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  base = platform.url;
  const token = await platform.login();
  await createGreetingEndpoint(platform, token, { workflow: 'Example Job', trigger: 'from a pipeline', routeName: 'deploy-site' });
}, 60_000);

afterAll(async () => {
  await platform.stop();
});

/** The answer of one call as the Ansible collection keeps it: the status, and `json` when the content type says JSON. */
interface AnsibleResult {
  status: number;
  json?: unknown;
  text: string;
}

/** POST /login as the collection's login() does it; answers `resp.text`, which becomes `?token=` of every call. */
async function ansibleLogin(): Promise<string> {
  const res = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ user: { username: TEST_ADMIN.username, password: TEST_ADMIN.password } }),
  });
  expect(res.status).toBe(200);
  return res.text();
}

/** make_request() of the collection: `params` plus the token, urlencoded; JSON headers always; `data` only when given. */
async function ansible(
  token: string,
  method: string,
  endpoint: string,
  params: Record<string, string> = {},
  data?: unknown,
): Promise<AnsibleResult> {
  const query = new URLSearchParams({ ...params, token }).toString();
  const res = await fetch(`${base}${endpoint}?${query}`, {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    ...(data ? { body: JSON.stringify(data) } : {}),
  });
  const text = await res.text();
  const json: unknown = (res.headers.get('content-type') ?? '').startsWith('application/json') ? JSON.parse(text) : undefined;
  return { status: res.status, text, ...(json === undefined ? {} : { json }) };
}

async function startGreeting(token: string, who: string): Promise<string> {
  const started = await platform.http('POST', '/operations-manager/triggers/endpoint/deploy-site', { token, body: { who } });
  expect(started.status).toBe(200);
  return (started.body as { data: JobDocument }).data._id;
}

describe('the Ansible collection itential.platform', () => {
  let token: string;
  let jobId: string;
  beforeAll(async () => {
    token = await ansibleLogin();
    jobId = await startGreeting(token, 'ansible');
    await waitForJob(platform, token, jobId);
  });

  it('auth_token answers the token as text, and a play that sets platform_auth_token uses it as ?token=', async () => {
    expect(token).toMatch(/^nap1\.[A-Za-z0-9_.-]+$/);
    const health = await ansible(token, 'GET', '/health/server');
    expect(health.status).toBe(200);
    expect(health.json).toMatchObject({ status: 'running' });
  });

  it('get_system_health reads GET /health/system', async () => {
    const health = await ansible(token, 'GET', '/health/system');
    expect(health.status).toBe(200);
    expect(health.json).toMatchObject({
      arch: expect.any(String),
      release: expect.any(String),
      uptime: expect.any(Number),
      freemem: expect.any(Number),
      totalmem: expect.any(Number),
      loadavg: expect.any(Array),
      cpus: expect.any(Array),
    });
  });

  it('the worker modules POST with a JSON content type and no body, and get_worker_status reads the result', async () => {
    const calls: [string, { jobWorker?: boolean; taskWorker?: boolean }][] = [
      ['/workflow_engine/jobWorker/deactivate', { jobWorker: false }],
      ['/workflow_engine/deactivate', { taskWorker: false }],
      ['/workflow_engine/jobWorker/activate', { jobWorker: true }],
      ['/workflow_engine/activate', { taskWorker: true }],
    ];
    for (const [endpoint, replica] of calls) {
      const res = await ansible(token, 'POST', endpoint);
      expect({ endpoint, status: res.status }).toEqual({ endpoint, status: 200 });
      expect(res.json).toMatchObject({ status: 'success', data: { replicas: [replica] } });
    }
    const status = await ansible(token, 'GET', '/workflow_engine/workers/status');
    expect(status.status).toBe(200);
    expect(status.json).toMatchObject({ jobWorker: { active: true }, taskWorker: { active: true } });
  });

  it('get_jobs filters with equals[<option>] as urlencoded, and includes name and status only', async () => {
    const res = await ansible(token, 'GET', '/operations-manager/jobs', { 'equals[name]': 'Example Job', include: 'name,status' });
    expect(res.status).toBe(200);
    const page = res.json as { items: Record<string, unknown>[]; total: number };
    expect(page.total).toBe(1);
    expect(page.items).toEqual([{ _id: jobId, name: 'Example Job', status: 'complete' }]);
    const both = await ansible(token, 'GET', '/operations-manager/jobs', {
      'equals[name]': 'Example Job',
      'equals[status]': 'complete',
      include: 'name,status',
    });
    expect((both.json as { total: number }).total).toBe(1);
    // the older get_paused_jobs, get_canceled_jobs and get_errored_jobs modules: equals[status] alone
    for (const status of ['paused', 'canceled', 'error']) {
      const none = await ansible(token, 'GET', '/operations-manager/jobs', { 'equals[status]': status });
      expect({ status, code: none.status, total: (none.json as { total: number }).total }).toEqual({ status, code: 200, total: 0 });
    }
  });

  it('get_tasks includes name, status and type of the tasks it filters', async () => {
    const res = await ansible(token, 'GET', '/operations-manager/tasks', {
      'equals[name]': 'stringConcat',
      include: 'name,status,type',
    });
    expect(res.status).toBe(200);
    const { data } = res.json as { data: Record<string, unknown>[] };
    expect(data).toEqual([{ _id: `${jobId}:a1`, name: 'stringConcat', status: 'complete', type: 'operation' }]);
  });

  describe('with an adapter', () => {
    beforeAll(async () => {
      const created = await ansible(
        token,
        'POST',
        '/adapters',
        {},
        {
          properties: {
            name: 'network-adapter',
            type: 'Adapter',
            model: '@nap/adapter-http',
            properties: {
              id: 'network-adapter',
              type: 'HTTP',
              brokers: [],
              groups: [],
              properties: {
                server: { protocol: 'http', host: '127.0.0.1', port: 9, base_path: '/' },
                authentication: { type: 'none' },
              },
            },
          },
        },
      );
      expect(created.status).toBe(200);
    });

    it('restart_adapters restarts each adapter named with PUT /adapters/:name/restart, and fails on an unknown one', async () => {
      const res = await ansible(token, 'PUT', '/adapters/network-adapter/restart');
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ name: 'network-adapter', state: expect.any(String) });
      await eventually('the restarted adapter runs', async () => {
        const adapter = await ansible(token, 'GET', '/adapters/network-adapter');
        return (adapter.json as { metadata: { state: string } }).metadata.state === 'RUNNING';
      });
      const unknown = await ansible(token, 'PUT', '/adapters/security-adapter/restart');
      expect(unknown.status).toBe(404);
      expect(unknown.text).toContain('security-adapter');
    });

    it('set_adapter_log_level sends { properties: { transport, level } } and the adapter keeps the level', async () => {
      const res = await ansible(
        token,
        'PUT',
        '/adapters/network-adapter/loglevel',
        {},
        {
          properties: { transport: 'file', level: 'debug' },
        },
      );
      expect(res.status).toBe(200);
      const adapter = await ansible(token, 'GET', '/adapters/network-adapter');
      expect(adapter.json).toMatchObject({ data: { loggerProps: { log_level: 'debug' } } });
      const wrong = await ansible(
        token,
        'PUT',
        '/adapters/network-adapter/loglevel',
        {},
        { properties: { transport: 'file', level: 'loud' } },
      );
      expect(wrong.status).toBe(400);
      expect(wrong.json).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.properties.level' }] });
    });
  });

  it('restart_applications (and the older restart_ag_manager) restart each application with PUT /applications/:name/restart', async () => {
    for (const name of ['AGManager', 'WorkFlowEngine']) {
      const res = await ansible(token, 'PUT', `/applications/${name}/restart`);
      expect({ name, status: res.status }).toEqual({ name, status: 200 });
      expect(res.json).toMatchObject({ name, state: expect.any(String) });
    }
    await eventually('the applications run again', async () => {
      const apps = await ansible(token, 'GET', '/health/applications', { equals: 'RUNNING', equalsField: 'state' });
      const ids = (apps.json as { results: { id: string }[] }).results.map((a) => a.id);
      return ids.includes('AGManager') && ids.includes('WorkFlowEngine');
    });
    const unknown = await ansible(token, 'PUT', '/applications/NoSuchApp/restart');
    expect(unknown.status).toBe(404);
  });
});

describe('the Python SDK ipsdk', () => {
  const headers = { 'user-agent': 'ipsdk/0.0.0' };

  it('logs in with user and password and goes on with the session cookie (reads and changes)', async () => {
    const login = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ user: { username: TEST_ADMIN.username, password: TEST_ADMIN.password } }),
    });
    expect(login.ok).toBe(true);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(cookie).toMatch(/^token=nap1\./);
    const jobs = await fetch(`${base}/operations-manager/jobs?${new URLSearchParams({ limit: '10', skip: '0' }).toString()}`, {
      headers: { ...headers, cookie },
    });
    expect(jobs.ok).toBe(true);
    expect(((await jobs.json()) as { limit: number }).limit).toBe(10);
    // past its ttl the client logs in again, its cookie jar still sending the old cookie
    const again = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { ...headers, cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ user: { username: TEST_ADMIN.username, password: TEST_ADMIN.password } }),
    });
    expect(again.ok).toBe(true);
    const renewed = (again.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(renewed).toMatch(/^token=nap1\./);
    expect(renewed).not.toBe(cookie);
    expect((await fetch(`${base}/whoami`, { headers: { ...headers, cookie: renewed } })).ok).toBe(true);
    // a change with the cookie alone and no browser's header (no Origin, no Sec-Fetch-Site), as ipsdk sends it
    const group = await fetch(`${base}/user-management/groups`, {
      method: 'POST',
      headers: { ...headers, cookie: renewed, 'content-type': 'application/json' },
      body: JSON.stringify({ group: { name: 'ipsdk-cookie-change' } }),
    });
    expect(group.ok).toBe(true);
    const created = ((await group.json()) as { data: { _id: string } }).data;
    const removed = await fetch(`${base}/user-management/groups/${created._id}`, {
      method: 'DELETE',
      headers: { ...headers, cookie: renewed },
    });
    expect(removed.ok).toBe(true);
  });

  it('raises on a wrong password or secret: neither login answers 2xx', async () => {
    const login = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ user: { username: TEST_ADMIN.username, password: 'not-it' } }),
    });
    expect(login.status).toBe(401);
    const oauth = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: TEST_ADMIN.username, client_secret: 'not-it' }),
    });
    expect(oauth.status).toBe(401);
    // and a request sent before any login is refused too
    expect((await fetch(`${base}/operations-manager/jobs`, { headers })).status).toBe(401);
  });

  it('with client credentials sends every method with the Bearer token, JSON headers only with a body', async () => {
    const oauth = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: TEST_ADMIN.username, client_secret: TEST_ADMIN.password }),
    });
    expect(oauth.ok).toBe(true);
    const { access_token: accessToken } = JSON.parse(await oauth.text()) as { access_token: string };
    const bearer = { ...headers, authorization: `Bearer ${accessToken}` };
    const json = { ...bearer, 'content-type': 'application/json', accept: 'application/json' };
    const created = await fetch(`${base}/user-management/groups`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ group: { name: 'sdk-group', description: 'made by ipsdk' } }),
    });
    expect(created.ok).toBe(true);
    const groupId = ((await created.json()) as { data: { _id: string } }).data._id;
    const read = await fetch(`${base}/user-management/groups/${groupId}`, { headers: bearer });
    expect(read.ok).toBe(true);
    const removed = await fetch(`${base}/user-management/groups/${groupId}`, { method: 'DELETE', headers: bearer });
    expect(removed.ok).toBe(true);
    expect((await fetch(`${base}/user-management/groups/${groupId}`, { headers: bearer })).status).toBe(404);
    // a POST without json: no content type, no body
    const activated = await fetch(`${base}/workflow_engine/activate`, { method: 'POST', headers: bearer });
    expect(activated.ok).toBe(true);
  });
});

describe('the GitHub Actions itential-automation-start and itential-automation-get-status', () => {
  /** The ea-utils SDK of the Actions with OAuth client credentials: the token, and when it must be renewed. */
  async function oauthUser(): Promise<{ token: string; expiresAt: number }> {
    const res = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: TEST_ADMIN.username, client_secret: TEST_ADMIN.password, grant_type: 'client_credentials' }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { access_token: string; expires_in: number };
    expect(body.expires_in).toBeGreaterThan(60);
    return { token: body.access_token, expiresAt: Date.now() + body.expires_in * 1000 };
  }

  it('with OAuth: reads the release, starts the endpoint trigger and polls the job with the Bearer token', async () => {
    const { token, expiresAt } = await oauthUser();
    expect(expiresAt).toBeGreaterThan(Date.now());
    const auth = { authorization: `Bearer ${token}` };
    const health = await fetch(`${base}/health/server`, { headers: auth });
    expect(health.status).toBe(200);
    const { release } = (await health.json()) as { release: string };
    // the Action keeps everything before the last dot: above 2021.1 it uses the operations-manager routes
    expect(Number(release.substring(0, release.lastIndexOf('.')))).toBeGreaterThan(2021.1);
    const started = await fetch(`${base}/operations-manager/triggers/endpoint/deploy-site`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ who: 'actions' }),
    });
    expect(started.status).toBe(200);
    const automationId = ((await started.json()) as { data: { _id: string } }).data._id;
    const job = await eventually(
      'the automation ends',
      async () => {
        const res = await fetch(`${base}/operations-manager/jobs/${automationId}`, { headers: auth });
        expect(res.status).toBe(200);
        const { data } = (await res.json()) as { data: JobDocument };
        return data.status !== 'running' && data.status !== 'paused' && data;
      },
      { intervalMs: 50, timeoutMs: 10_000 },
    );
    expect(job.status).toBe('complete');
    expect(job.variables).toMatchObject({ who: 'actions', greeting: 'hello actions' });
  });

  it('shows the message of a refused start (data.message) and the body of a refused status read', async () => {
    const token = await ansibleLogin();
    const refused = await fetch(`${base}/operations-manager/triggers/endpoint/deploy-site?token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({}),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toContain('who');
    const unknownEndpoint = await fetch(`${base}/operations-manager/triggers/endpoint/no-such-endpoint?token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(unknownEndpoint.status).toBe(404);
    expect(((await unknownEndpoint.json()) as { message: string }).message).toContain('no-such-endpoint');
    // itential-automation-get-status with an automation_id that names no job
    const unknownJob = await fetch(`${base}/operations-manager/jobs/0123456789abcdef01234567?token=${token}`);
    expect(unknownJob.status).toBe(404);
    expect(((await unknownJob.json()) as { message: string }).message).toEqual(expect.any(String));
  });
});
