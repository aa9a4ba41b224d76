import { APPLICATION_NAMES } from '@nap/contracts';
import type { JobDocument, WorkersStatus } from '@nap/contracts';
import { TEST_ADMIN, startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually } from '@nap/testing';
import { createGreetingEndpoint, variablesOf, waitForJob } from '../support/automation';

/**
 * The calls the platform's existing clients make, written the way they write them: Itential's
 * GitHub Actions (itential-automation-start: an endpoint trigger, then polling
 * GET /operations-manager/jobs/:id with ?token=), the Ansible collection itential.platform (the raw
 * body of POST /login as ?token=, equals[field] filters, workers), the Python SDK ipsdk (OAuth
 * client credentials, then a Bearer token) and the MCP server (triggers list, jobs/start, projects).
 */

let platform: TestPlatform;
let base: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  base = platform.url;
  const token = await platform.login();
  await createGreetingEndpoint(platform, token, { workflow: 'client-greet', trigger: 'from CI', routeName: 'client-greet' });
}, 60_000);

afterAll(async () => {
  await platform.stop();
});

/** Polls the job the way the GitHub Action does: status from `data.status`, output from `data.variables`. */
async function pollLikeTheAction(
  jobId: string,
  auth: { query?: string; headers?: Record<string, string> },
): Promise<{ status: string; output: Record<string, unknown> }> {
  return eventually(
    `job ${jobId} ending`,
    async () => {
      const res = await fetch(`${base}/operations-manager/jobs/${jobId}${auth.query ?? ''}`, { headers: auth.headers ?? {} });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: JobDocument };
      return (
        body.data.status !== 'running' && body.data.status !== 'paused' && { status: body.data.status, output: variablesOf(body.data) }
      );
    },
    { intervalMs: 50, timeoutMs: 10_000 },
  );
}

describe('a job started from an endpoint trigger by the existing clients', () => {
  it('completes for a client that logs in and sends the raw /login body as ?token= (Ansible, GitHub Actions)', async () => {
    const login = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ user: { username: TEST_ADMIN.username, password: TEST_ADMIN.password } }),
    });
    expect(login.status).toBe(200);
    expect(login.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(login.headers.get('set-cookie')).toMatch(/^token=nap1\./);
    const token = await login.text();
    expect(token).toMatch(/^nap1\.[^"]+$/);
    const health = await fetch(`${base}/health/server?token=${token}`);
    expect(((await health.json()) as { release: string }).release).toMatch(/^\d{4}\.\d+/);
    const started = await fetch(`${base}/operations-manager/triggers/endpoint/client-greet?token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ who: 'github' }),
    });
    expect(started.status).toBe(200);
    const { data } = (await started.json()) as { data: JobDocument };
    const result = await pollLikeTheAction(data._id, { query: `?token=${token}` });
    expect(result).toMatchObject({ status: 'complete', output: { who: 'github', greeting: 'hello github' } });
  });

  it('completes for a client that takes an OAuth token and sends it as Bearer (ipsdk)', async () => {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: TEST_ADMIN.username,
      client_secret: TEST_ADMIN.password,
    });
    const oauth = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    const { access_token: accessToken } = (await oauth.json()) as { access_token: string };
    const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
    const started = await fetch(`${base}/operations-manager/triggers/endpoint/client-greet`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ who: 'python' }),
    });
    const { data } = (await started.json()) as { data: JobDocument };
    expect(await pollLikeTheAction(data._id, { headers })).toMatchObject({ status: 'complete', output: { greeting: 'hello python' } });
  });

  it('accepts a token sent back wrapped in quotes, as clients that stored the old JSON answer do', async () => {
    const token = await platform.login();
    const quoted = await fetch(`${base}/whoami?token=${encodeURIComponent(`"${token}"`)}`);
    expect(quoted.status).toBe(200);
    const bearer = await fetch(`${base}/whoami`, { headers: { authorization: `Bearer "${token}"` } });
    expect(bearer.status).toBe(200);
  });

  it('starts a job by workflow name with POST /operations-manager/jobs/start (MCP server)', async () => {
    const token = await platform.login();
    const res = await platform.http('POST', '/operations-manager/jobs/start', {
      token,
      body: {
        workflow: 'client-greet',
        options: { type: 'automation', groups: [], description: 'from the MCP server', variables: { who: 'mcp' } },
      },
    });
    expect(res.status).toBe(200);
    const { message, data } = res.body as { message: string; data: JobDocument };
    expect(message).toBe('Successfully created the requested item');
    expect(data).toMatchObject({ name: 'client-greet', description: 'from the MCP server', status: 'running' });
    expect((await waitForJob(platform, token, data._id)).variables).toMatchObject({ greeting: 'hello mcp' });
  });
});

describe('routes those clients call', () => {
  let token: string;
  beforeAll(async () => {
    token = await platform.login();
  });

  it('does not let a parametrised route of another method shadow a literal path', async () => {
    const res = await platform.http('GET', '/operations-manager/jobs/start', { token });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    const projectImport = await platform.http('GET', '/automation-studio/projects/import', { token });
    expect(projectImport.status).toBe(405);
    expect(projectImport.headers.get('allow')).toBe('POST');
  });

  it('filters every list route with equals/equalsField, field-wise equals[field] and the other shared options', async () => {
    const apps = await platform.http('GET', '/health/applications?equals=workflow&equalsField=service', { token });
    expect(apps.status).toBe(200);
    expect((apps.body as { results: { id: string }[]; total: number }).results.map((a) => a.id)).toEqual([
      'AutomationCatalog',
      'OperationsManager',
      'WorkFlowEngine',
    ]);
    const running = (await platform.http('GET', '/applications?equals=RUNNING&equalsField=state&limit=2', { token })).body as {
      results: unknown[];
      total: number;
    };
    expect(running.results).toHaveLength(2);
    expect(running.total).toBe(APPLICATION_NAMES.length);
    await platform.http('POST', '/user-management/groups', { token, body: { group: { name: 'netops' } } });
    const groups = (await platform.http('GET', '/authorization/groups?equals[name]=netops', { token })).body as {
      results: { name: string }[];
    };
    expect(groups.results.map((g) => g.name)).toEqual(['netops']);
    const byPrefix = (await platform.http('GET', '/user-management/groups?startsWith=net&startsWithField=name', { token })).body as {
      results: { name: string }[];
    };
    expect(byPrefix.results.map((g) => g.name)).toEqual(['netops']);
    const accounts = (await platform.http('GET', `/authorization/accounts?equals=${TEST_ADMIN.username}&equalsField=username`, { token }))
      .body as { results: { username: string }[]; total: number };
    expect(accounts).toMatchObject({ total: 1, results: [{ username: TEST_ADMIN.username }] });
    const workflows = (await platform.http('GET', '/automation-studio/workflows?equals[name]=client-greet', { token })).body as {
      items: { name: string }[];
      total: number;
    };
    expect(workflows).toMatchObject({ total: 1, items: [{ name: 'client-greet' }] });
    const templates = await platform.http('GET', '/automation-studio/templates?equals[type]=jinja2', { token });
    expect(templates).toMatchObject({ status: 200, body: { total: 0 } });
    expect(await platform.http('GET', '/mop/runs?equals=nothing-ran&equalsField=template', { token })).toMatchObject({
      status: 200,
      body: { total: 0, items: [] },
    });
    expect(await platform.http('GET', '/mop/runs?equals=x&equalsField=variables', { token })).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED' },
    });
  });

  it('answers /health/status and the /authorization names of the account routes', async () => {
    expect((await platform.http('GET', '/health/status', { token })).body).toMatchObject({
      status: 'running',
      apps: 'running',
      services: [{ status: 'running' }, { status: 'running' }],
    });
    const accounts = (await platform.http('GET', '/authorization/accounts', { token })).body as { results: { _id: string }[] };
    const id = accounts.results[0]?._id ?? '';
    expect((await platform.http('GET', `/authorization/accounts/${id}`, { token })).body).toMatchObject({ username: TEST_ADMIN.username });
  });

  it('lists the tasks of jobs with the job query members (Ansible get_tasks, get_active_tasks)', async () => {
    const res = await platform.http('GET', '/operations-manager/tasks?equals[name]=stringConcat&include=name,status', { token });
    expect(res.status).toBe(200);
    const { data, metadata } = res.body as { data: Record<string, unknown>[]; metadata: { total: number } };
    expect(metadata.total).toBeGreaterThanOrEqual(3);
    expect(data[0]).toEqual({ _id: expect.stringMatching(/^[0-9a-f]{24}:a1$/), name: 'stringConcat', status: 'complete' });
    const active = (await platform.http('GET', '/operations-manager/tasks?equals[status]=running', { token })).body as {
      metadata: { total: number };
    };
    expect(active.metadata.total).toBe(0);
    const full = (await platform.http('GET', '/operations-manager/tasks?equals[job.name]=client-greet&limit=1', { token })).body as {
      data: Record<string, unknown>[];
    };
    expect(full.data[0]).toMatchObject({ id: 'a1', app: 'WorkFlowEngine', job: { name: 'client-greet', status: 'complete' } });
  });

  it('reports job and task metrics per workflow from the job store', async () => {
    const jobs = (await platform.http('GET', '/workflow_engine/jobs/metrics?equals=client-greet&equalsField=workflow', { token })).body as {
      results: Record<string, unknown>[];
      total: number;
    };
    expect(jobs.total).toBe(1);
    expect(jobs.results[0]).toMatchObject({
      workflow: 'client-greet',
      jobsComplete: 3,
      jobsTotal: 3,
      totalRunTime: expect.any(Number),
      averageRunTime: expect.any(Number),
    });
    const tasks = (await platform.http('GET', '/workflow_engine/tasks/metrics?equals[workflow]=client-greet', { token })).body as {
      results: Record<string, unknown>[];
    };
    expect(tasks.results).toEqual([
      expect.objectContaining({
        workflow: 'client-greet',
        taskId: 'a1',
        name: 'stringConcat',
        app: 'WorkFlowEngine',
        metrics: expect.objectContaining({ runs: 3, success: 3 }),
      }),
    ]);
  });

  it('drains the engine with the worker routes: nothing starts while deactivated, everything resumes when activated', async () => {
    const status = await platform.http('GET', '/workflow_engine/workers/status', { token });
    expect(status.body).toMatchObject({
      jobWorker: { active: true },
      taskWorker: { active: true },
      replicas: [{ jobWorker: true, taskWorker: true }],
    });
    const off = await platform.http('POST', '/workflow_engine/jobWorker/deactivate', { token });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ status: 'success', data: { jobWorker: { active: false }, replicas: [{ jobWorker: false }] } });
    await platform.http('POST', '/workflow_engine/deactivate', { token });
    const started = await platform.http('POST', '/operations-manager/triggers/endpoint/client-greet', { token, body: { who: 'later' } });
    const jobId = (started.body as { data: JobDocument }).data._id;
    const jobNow = async () =>
      ((await platform.http('GET', `/operations-manager/jobs/${jobId}`, { token })).body as { data: JobDocument }).data;
    // stored for no engine (claimed at 0): nothing drives it until a job worker claims it
    const waiting = await jobNow();
    expect(waiting.status).toBe('running');
    expect(waiting.tasks.a1?.status).toBe('incomplete');
    expect(waiting.metrics?.claim_time).toBe(0);
    await platform.http('POST', '/workflow_engine/jobWorker/activate', { token });
    // the engine claims the waiting job and drives it (its replica counts it), yet starts no task
    await eventually('the engine drives the waiting job', async () => {
      const workers = (await platform.http('GET', '/workflow_engine/workers/status', { token })).body as WorkersStatus;
      return ((await jobNow()).metrics?.claim_time ?? 0) > 0 && workers.replicas.some((r) => r.jobs > 0);
    });
    expect((await jobNow()).tasks.a1?.status).not.toBe('complete');
    const on = await platform.http('POST', '/workflow_engine/activate', { token });
    expect(on.body).toMatchObject({ data: { jobWorker: { active: true }, taskWorker: { active: true } } });
    expect((await waitForJob(platform, token, jobId)).variables).toMatchObject({ greeting: 'hello later' });
  });
});
