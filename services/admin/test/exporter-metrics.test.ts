import { eventually, freePort } from '@nap/testing';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { AggregatorRegistry, createMetrics } from '@nap/telemetry';
import { registerAdminMetrics } from '../src/metrics';
import { AdapterRepository } from '../src/store/adapters';
import { IntegrationRepository } from '../src/store/integrations';
import { SessionRepository } from '../src/store/sessions';

/**
 * `/exporter_metrics` through HTTP: the platform's own gauges and counters move with what happens
 * (sessions, API calls, jobs, MOP runs, device operations), keep the original platform's gauge names
 * where one exists, follow Prometheus naming, and carry only bounded labels.
 */

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
});

afterAll(async () => {
  await platform?.stop();
});

/** Samples of the exposition: `name{labels}` → value. */
async function scrape(): Promise<Map<string, number>> {
  const res = await platform.http('GET', '/exporter_metrics', { token });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  const samples = new Map<string, number>();
  for (const line of String(res.body).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    // the process label every sample carries is left out of the key
    samples.set(
      line
        .slice(0, at)
        .replace(/,?component="[^"]*"/, '')
        .replace('{}', ''),
      Number(line.slice(at + 1)),
    );
  }
  return samples;
}

function value(samples: Map<string, number>, key: string): number {
  const v = samples.get(key);
  if (v === undefined)
    throw new Error(`no sample ${key}; have ${[...samples.keys()].filter((k) => k.startsWith(key.split('{')[0] ?? key)).join(', ')}`);
  return v;
}

async function waitForJob(id: string): Promise<string> {
  return eventually(`job ${id} ending`, async () => {
    const job = (await platform.http('GET', `/operations-manager/jobs/${id}`, { token })).body as { data: { status: string } };
    return ['complete', 'error', 'canceled'].includes(job.data.status) ? job.data.status : undefined;
  });
}

describe('/exporter_metrics', () => {
  it('counts active and unique sessions under the original gauge names', async () => {
    const before = await scrape();
    const account = await platform.http('POST', '/user-management/accounts', {
      token,
      body: { account: { username: 'metrics-op', password: 'metrics-op-password-1', groups: [] } },
    });
    expect(account.status).toBe(200);
    const second = await platform.login();
    const other = await platform.login('metrics-op', 'metrics-op-password-1');
    const during = await scrape();
    expect(value(during, 'nap_active_sessions')).toBe(value(before, 'nap_active_sessions') + 2);
    expect(value(during, 'nap_unique_sessions')).toBe(value(before, 'nap_unique_sessions') + 1);
    // the account's sessions end with it
    expect(
      (await platform.http('DELETE', `/user-management/accounts/${(account.body as { data: { _id: string } }).data._id}`, { token }))
        .status,
    ).toBe(200);
    expect((await platform.http('GET', '/whoami', { token: other })).status).toBe(401);
    expect((await platform.http('GET', '/logout', { token: second })).status).toBe(200);
    const after = await scrape();
    expect(value(after, 'nap_active_sessions')).toBe(value(before, 'nap_active_sessions'));
    expect(value(after, 'nap_unique_sessions')).toBe(value(before, 'nap_unique_sessions'));
  });

  it('counts API calls since start', async () => {
    const before = value(await scrape(), 'nap_total_api_calls');
    for (let i = 0; i < 3; i++) await platform.http('GET', '/health/server', { token });
    // the three calls and the scrape before them (the second scrape is counted once it is answered)
    expect(value(await scrape(), 'nap_total_api_calls')).toBe(before + 4);
  });

  it('shows jobs by state, the active jobs, and job and task durations by workflow', async () => {
    const workflow = {
      name: 'metrics-flow',
      type: 'automation',
      tasks: {
        workflow_start: { name: 'workflow_start', groups: [] },
        a1: {
          name: 'query',
          app: 'WorkFlowEngine',
          type: 'operation',
          location: 'Application',
          variables: { incoming: { pass: '', query: 'x', obj: { x: 1 } }, outgoing: { return_data: null } },
          groups: [],
        },
        workflow_end: { name: 'workflow_end', groups: [] },
      },
      transitions: {
        workflow_start: { a1: { type: 'standard', state: 'success' } },
        a1: { workflow_end: { type: 'standard', state: 'success' } },
        workflow_end: {},
      },
      groups: [],
    };
    const created = await platform.http('POST', '/automation-studio/automations', { token, body: { automation: workflow } });
    expect(created.status).toBe(200);
    const before = await scrape();
    expect(value(before, 'nap_active_jobs')).toBe(0);
    for (let i = 0; i < 2; i++) {
      const started = await platform.http('POST', '/workflow_engine/startJobWithOptions/metrics-flow', {
        token,
        body: { options: { variables: {} } },
      });
      expect(started.status).toBe(200);
      expect(await waitForJob((started.body as { _id: string })._id)).toBe('complete');
    }
    // the engine observes a job's end once its last step is written: the scrape may come first
    const after = await eventually('the durations of both jobs observed', async () => {
      const samples = await scrape();
      return (samples.get('nap_job_duration_seconds_count{workflow="metrics-flow",state="complete"}') ?? 0) >= 2 ? samples : undefined;
    });
    expect(value(after, 'nap_jobs{state="complete"}')).toBe(value(before, 'nap_jobs{state="complete"}') + 2);
    expect(value(after, 'nap_jobs{state="running"}')).toBe(0);
    expect(value(after, 'nap_active_jobs')).toBe(0);
    expect(value(after, 'nap_job_duration_seconds_count{workflow="metrics-flow",state="complete"}')).toBe(2);
    expect(value(after, 'nap_task_duration_seconds_count{workflow="metrics-flow",state="success"}')).toBeGreaterThanOrEqual(2);
  });

  it('counts MOP runs by pass and fail', async () => {
    const before = await scrape();
    await platform.http('POST', '/mop/createAnalyticTemplate', {
      token,
      body: {
        template: {
          name: 'metrics-routes',
          prepostCommands: [
            {
              preRawCommand: 'show x',
              postRawCommand: 'show x',
              rules: [{ type: 'regex', preRegex: 'Total (\\d+)', postRegex: 'Total (\\d+)', evaluation: '>=' }],
            },
          ],
        },
      },
    });
    const side = (response: string) => ({ commands_results: [{ raw: 'show x', evaluated: 'show x', device: 'r1', response }] });
    const pass = await platform.http('POST', '/mop/runAnalyticsTemplate', {
      token,
      body: { analytic_template_name: 'metrics-routes', pre: side('Total 12'), post: side('Total 10') },
    });
    expect(pass.body).toMatchObject({ result: true });
    const fail = await platform.http('POST', '/mop/runAnalyticsTemplate', {
      token,
      body: { analytic_template_name: 'metrics-routes', pre: side('Total 8'), post: side('Total 10') },
    });
    expect(fail.body).toMatchObject({ result: false });
    const after = await scrape();
    expect(value(after, 'nap_mop_runs_total{kind="analytic",result="pass"}')).toBe(
      value(before, 'nap_mop_runs_total{kind="analytic",result="pass"}') + 1,
    );
    expect(value(after, 'nap_mop_runs_total{kind="analytic",result="fail"}')).toBe(
      value(before, 'nap_mop_runs_total{kind="analytic",result="fail"}') + 1,
    );
  });

  it('counts device operations by protocol and outcome, and shows the sessions open', async () => {
    const port = await freePort();
    const res = await platform.http('POST', '/gw/ssh/send_command', {
      token,
      body: {
        sshSendCommandParameters: {
          host: '127.0.0.1',
          commands: ['show version'],
          connection_options: { device_type: 'cisco_ios', username: 'u', password: 'p', port },
        },
      },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const code = (res.body as { code: string }).code;
    const after = await scrape();
    expect(value(after, `nap_device_commands_total{protocol="ssh",outcome="${code}"}`)).toBe(1);
    expect(value(after, 'nap_device_sessions_open')).toBe(0);
  });

  it('shows adapters by state and integrations', async () => {
    const samples = await scrape();
    expect(value(samples, 'nap_adapters{state="RUNNING"}')).toBe(0);
    expect(value(samples, 'nap_integrations')).toBe(0);
  });

  it('shows the free space on the disk under the embedded store, and what the store keeps', async () => {
    const samples = await scrape();
    expect(value(samples, 'nap_store_disk_free_bytes{store="embedded"}')).toBeGreaterThan(0);
    expect(value(samples, 'nap_store_disk_min_free_bytes{store="embedded"}')).toBe(128 * 1024 * 1024);
  });

  it('counts every answer: an event stream when its client leaves, a cross-site refusal, a route that does not exist', async () => {
    const before = await scrape();
    const controller = new AbortController();
    const stream = await fetch(`${platform.url}/operations-manager/events`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    controller.abort();
    const refused = await platform.http('POST', '/user-management/groups', {
      headers: { cookie: `token=${token}`, origin: 'http://evil.example' },
      body: { name: 'cross-site', description: 'x', memberOf: [], assignedRoles: [] },
    });
    expect(refused.status).toBe(403);
    expect((await platform.http('GET', '/no/such/route', { token })).status).toBe(404);
    expect((await platform.http('DELETE', '/whoami', { token })).status).toBe(405);
    const after = await eventually('the stream counted once its client left', async () => {
      const samples = await scrape();
      return samples.has('nap_http_requests_total{operation="workflow.watchEvents",method="GET",status="200"}') ? samples : undefined;
    });
    const delta = (key: string) => value(after, key) - (before.get(key) ?? 0);
    expect(delta('nap_http_requests_total{operation="workflow.watchEvents",method="GET",status="200"}')).toBe(1);
    expect(delta('nap_http_requests_total{operation="admin.createGroup",method="POST",status="403"}')).toBe(1);
    expect(delta('nap_http_requests_total{operation="unrouted",method="GET",status="404"}')).toBe(1);
    expect(delta('nap_http_requests_total{operation="unrouted",method="DELETE",status="405"}')).toBe(1);
  });

  it('counts logins by how they came and how they ended: right, wrong, throttled', async () => {
    const user = { username: 'metrics-logins', password: 'metrics-logins-password-1' };
    expect((await platform.http('POST', '/user-management/accounts', { token, body: { account: { ...user, groups: [] } } })).status).toBe(
      200,
    );
    const before = await scrape();
    const login = (password: string) => platform.http('POST', '/login', { body: { user: { username: user.username, password } } });
    expect((await login(user.password)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await login('not-the-password')).status).toBe(401);
    // the sixth attempt waits, the right password included
    expect((await login(user.password)).status).toBe(429);
    const basic = `Basic ${Buffer.from('nobody-at-all:wrong-password').toString('base64')}`;
    expect((await platform.http('GET', '/whoami', { headers: { authorization: basic } })).status).toBe(401);
    const oauth = await platform.http('POST', '/oauth/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=nobody-at-all&client_secret=wrong-secret',
    });
    expect(oauth.status).toBe(401);
    const after = await scrape();
    const delta = (via: string, outcome: string) =>
      value(after, `nap_logins_total{via="${via}",outcome="${outcome}"}`) -
      value(before, `nap_logins_total{via="${via}",outcome="${outcome}"}`);
    expect(delta('login', 'ok')).toBe(1);
    expect(delta('login', 'wrong')).toBe(5);
    expect(delta('login', 'throttled')).toBe(1);
    expect(delta('basic', 'wrong')).toBe(1);
    expect(delta('oauth', 'wrong')).toBe(1);
    // every series is there from the start, so that an alert's increase() sees the first failure
    expect(value(before, 'nap_logins_total{via="sso",outcome="unavailable"}')).toBe(0);
  });

  it("shows when each retention is due next and how old the audit queue's oldest entry is", async () => {
    const samples = await scrape();
    const now = Date.now() / 1000;
    // the job retention's first due time is the platform's first start: it ran, and moved on to a later one
    const jobs = await eventually('the job retention moved on', async () => {
      const due = value(await scrape(), 'nap_retention_next_run_timestamp_seconds{kind="jobs"}');
      return due > now ? due : undefined;
    });
    expect(jobs).toBeLessThanOrEqual(now + 86_400);
    // the audit retention looks every hour
    const audit = value(samples, 'nap_retention_next_run_timestamp_seconds{kind="audit"}');
    expect(audit).toBeGreaterThan(now);
    expect(audit).toBeLessThanOrEqual(now + 3_600);
    // what the gateway recorded so far is in the chain, or about to be
    expect(value(samples, 'nap_queue_oldest_entry_age_seconds{queue="audit"}')).toBeLessThan(60);
    // a journal on the embedded store, not a NATS stream: no fill
    expect(samples.has('nap_queue_fill_ratio{queue="audit"}')).toBe(false);
  });

  it('names metrics as Prometheus does and keeps labels bounded (no ids, no hosts)', async () => {
    const samples = await scrape();
    const names = new Set([...samples.keys()].map((k) => k.split('{')[0] ?? k));
    for (const name of names) {
      expect(name).toMatch(/^nap_[a-z0-9_]+$/);
    }
    for (const name of ['nap_active_sessions', 'nap_unique_sessions', 'nap_total_api_calls', 'nap_active_jobs'])
      expect(names).toContain(name);
    for (const key of samples.keys()) {
      // a UUID, a 24-hex job id or an address in a label would make the series unbounded
      expect(key).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-|"[0-9a-f]{24}"|127\.0\.0\.1/);
    }
  });
});

describe('aggregation across replicas', () => {
  it('counts what replicas read from their shared store once, not once per replica', async () => {
    const store = platform.stores.get('admin');
    if (store === undefined) throw new Error('no admin store');
    // two admin replicas' registries over the same store, as /exporter_metrics aggregates them
    const replicas = [createMetrics({ processMetrics: false }), createMetrics({ processMetrics: false })];
    const sources = {
      sessions: new SessionRepository(store),
      adapters: new AdapterRepository(store),
      integrations: new IntegrationRepository(store),
      storeDisk: async () => store.diskSpace?.(),
      bus: platform.bus,
      adapterMonitor: { runtime: () => undefined },
    };
    for (const m of replicas) registerAdminMetrics(m.registry, sources, () => undefined);
    const aggregated = AggregatorRegistry.aggregate(await Promise.all(replicas.map((m) => m.registry.getMetricsAsJSON())));
    const one = await replicas[0]?.registry.getSingleMetric('nap_active_sessions')?.get();
    const both = await aggregated.getSingleMetric('nap_active_sessions')?.get();
    expect(one?.values[0]?.value).toBeGreaterThan(0);
    expect(both?.values[0]?.value).toBe(one?.values[0]?.value);
    // the disk is the lowest any replica reads, never the sum
    const keeps = await aggregated.getSingleMetric('nap_store_disk_min_free_bytes')?.get();
    expect(keeps?.values[0]?.value).toBe(128 * 1024 * 1024);
  });
});
