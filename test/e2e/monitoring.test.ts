import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, startNatsServer } from '@nap/testing';
import type { NatsServer } from '@nap/testing';
import { ALERT_METRICS, isAlert, loadRules } from '../deploy/monitoring';
import { greetWorkflow } from '../support/automation';
import { distributedEnv, gatewayUrl, startNapProcess } from '../support/processes';
import type { NapProcess } from '../support/processes';
import { startMonitoredPlatform } from '../support/monitored-platform';
import type { MonitoredPlatform } from '../support/monitored-platform';
import { NAP_ALERT_RULES, prometheusPresent, startPrometheus } from '../support/prometheus';
import type { Prometheus } from '../support/prometheus';

/**
 * The alert rules NAP ships, evaluated by a real Prometheus (Debian's) that scrapes a real
 * standalone platform (`npm start`'s entry, its management port's /metrics), serving TLS with a
 * certificate that expires in two days. promtool's unit tests (test/deploy/monitoring.test.ts)
 * prove each rule on series written by hand; this proves the rules meet the metrics NAP really
 * exposes: every metric they name exists with the labels they use, every rule evaluates without
 * error, a healthy platform raises nothing, and what goes wrong raises its alert.
 */

const present = prometheusPresent('the monitoring end-to-end test');
const describeWithPrometheus = present ? describe : describe.skip;

const ADMIN_PASSWORD = 'monitoring-admin-password';

/**
 * The series the rules read (test/deploy/monitoring.test.ts holds this list equal to the rule
 * file's), but Prometheus's own `up`.
 */
const RULE_METRICS = ALERT_METRICS.filter((name) => name !== 'up');

/**
 * The alerts a platform raises, pending or firing, but those paced by the machine's whole disk: the
 * test machine's disk fills and empties at the pace of everything else it runs (builds, other
 * suites), which is no trouble of NAP's, and a prediction drawn from minutes of it may well point
 * at "full within a day". The promtool cases test that rule.
 */
async function napAlerts(prometheus: Prometheus): Promise<Awaited<ReturnType<Prometheus['alerts']>>> {
  return (await prometheus.alerts()).filter((a) => a.labels.alertname !== 'NapStoreDiskFillingUp');
}

/** Which of `names` Prometheus has no series of (histograms by their base name). */
async function missingMetrics(prometheus: Prometheus, names: string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const name of names) if ((await prometheus.query(`count(${name})`)).length === 0) missing.push(baseName(name));
  return [...new Set(missing)].sort();
}

/** The series a histogram or summary name stands for: `_bucket`, `_count` and `_sum` are its own. */
function baseName(name: string): string {
  return name.replace(/_(bucket|count|sum)$/, '');
}

const DISTRIBUTED_PASSWORD = 'monitoring-distributed-password';

/** The platform of the distributed block: a nats-server, a process per component, and their own Prometheus. */
const world: { dir?: string; nats?: NatsServer; processes: Map<string, NapProcess>; prometheus?: Prometheus } = {
  processes: new Map(),
};
let worldStarted: Promise<void> | undefined;

/** The management listener a process logged. */
function healthOf(process: NapProcess): string {
  const found = /"health":"http:\/\/([\d.]+:\d+)"/.exec(process.output())?.[1];
  if (found === undefined) throw new Error(`no management listener logged:\n${process.output()}`);
  return found;
}

/**
 * Starts the distributed block's platform, once. The first block starts it beside its own, so that
 * the second does not wait for five processes and a Prometheus after the first block's tests; it
 * idles meanwhile, scraped by a Prometheus of its own that sees nothing of the other platform.
 */
function startDistributedWorld(): Promise<void> {
  worldStarted ??= (async () => {
    world.dir = mkdtempSync(path.join(os.tmpdir(), 'nap-monitoring-distributed-'));
    world.nats = await startNatsServer({ jetstream: true });
    const env = distributedEnv(world.nats.url, world.dir, DISTRIBUTED_PASSWORD, { NAP_HEALTH_PORT: '0' });
    // the services side by side (each kept as soon as it serves, so that it is stopped whatever
    // became of the others), then the gateway
    await Promise.all(
      (['admin', 'workflow', 'gateway-devices'] as const).map(async (service) =>
        world.processes.set(
          service,
          await startNapProcess(`services/${service}/dist/main.js`, env, new RegExp(`Service ${service} is serving`)),
        ),
      ),
    );
    world.processes.set('gateway', await startNapProcess('gateway/dist/main.js', env, /Gateway listening/));
    world.prometheus = await startPrometheus({ targets: [...world.processes.values()].map(healthOf), ruleFiles: [NAP_ALERT_RULES] });
  })();
  return worldStarted;
}

afterAll(async () => {
  await worldStarted?.catch(() => undefined);
  await world.prometheus?.stop();
  for (const process of [...world.processes.values()].reverse()) await process.stop();
  await world.nats?.stop();
  if (world.dir) rmSync(world.dir, { recursive: true, force: true });
}, 60_000);

describeWithPrometheus('NAP under a real Prometheus with the alert rules it ships', () => {
  let platform: MonitoredPlatform;
  let prometheus: Prometheus;
  let token: string;
  const rules = loadRules();
  const call: MonitoredPlatform['call'] = (...args) => platform.call(...args);
  const login = (username: string, password: string) => platform.login(username, password);

  /** Alerts pending or firing now, as `name/severity`. */
  async function raised(): Promise<string[]> {
    return (await napAlerts(prometheus)).map((a) => `${a.labels.alertname}/${a.labels.severity}`).sort();
  }

  beforeAll(async () => {
    // the distributed block's platform starts meanwhile (that block reports a failure of it)
    startDistributedWorld().catch(() => undefined);
    // a certificate that expires in two days: its alert must come
    platform = await startMonitoredPlatform(ADMIN_PASSWORD, 2);
    prometheus = platform.prometheus;
    const admin = await login('admin', ADMIN_PASSWORD);
    expect(admin.status).toBe(200);
    token = admin.text;
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
  });

  it('scrapes the management port, and every metric the rules read is there with the labels they use', async () => {
    const target = await eventually(
      'the target scraped',
      async () => {
        const [first] = await prometheus.targets();
        return first?.health === 'up' ? first : undefined;
      },
      { intervalMs: 250 },
    );
    expect(target.scrapeUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);

    // a job that completes, so that the job and task histograms have series
    const created = await call('POST', '/automation-studio/automations', { automation: greetWorkflow('monitoring-flow') }, token);
    expect(created.status).toBe(200);
    expect(await platform.runJob(token, 'monitoring-flow', { who: 'on-call' })).toBe('complete');

    // NATS only: the standalone platform's queue is a journal in its store
    const natsOnly = new Set(['nap_queue_fill_ratio']);
    const names = RULE_METRICS.filter((n) => !natsOnly.has(n));
    expect(names).toEqual(
      expect.arrayContaining([
        'nap_http_requests_total',
        'nap_logins_total',
        'nap_queue_oldest_entry_age_seconds',
        'nap_retention_next_run_timestamp_seconds',
        'nap_tls_certificate_expiry_timestamp_seconds',
        'nap_process_start_time_seconds',
      ]),
    );
    await eventually('every metric the rules read scraped', async () => (await missingMetrics(prometheus, names)).length === 0, {
      intervalMs: 250,
      timeoutMs: 20_000,
    }).catch(() => undefined);
    const missing = await missingMetrics(prometheus, names);
    expect(missing).toEqual([]);

    // the labels the rules select on carry the values they expect
    const values = async (expr: string, label: string) => (await prometheus.query(expr)).map((s) => s.metric[label]).sort();
    expect(await values('nap_queue_oldest_entry_age_seconds', 'queue')).toEqual(['audit']);
    expect(await values('nap_retention_next_run_timestamp_seconds', 'kind')).toEqual(['audit', 'jobs']);
    expect(await values('sum by (outcome) (nap_logins_total)', 'outcome')).toEqual(['inactive', 'ok', 'throttled', 'unavailable', 'wrong']);
    expect(await values('nap_adapters', 'state')).toEqual(expect.arrayContaining(['DEAD', 'STARTING', 'STOPPING']));
    expect(await values('nap_tls_certificate_reloads_total', 'outcome')).toEqual(['failed', 'ok']);
    expect(await values('nap_job_duration_seconds_count', 'state')).toContain('complete');
    expect(await values('nap_store_disk_free_bytes', 'store')).toEqual(['embedded']);
  }, 90_000);

  it('evaluates every rule without an error on what NAP exposes', async () => {
    const evaluated = await eventually(
      'every rule evaluated',
      async () => {
        const all = await prometheus.rules();
        return all.length > 0 && all.every((r) => !r.lastEvaluation.startsWith('0001')) ? all : undefined;
      },
      { intervalMs: 250 },
    );
    expect(evaluated.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.lastError ?? r.health}`)).toEqual([]);
    expect(evaluated.filter((r) => r.type === 'alerting').length).toBe(rules.groups.flatMap((g) => g.rules).filter(isAlert).length);
    // the recording rule has data once an interactive operation was asked more than once (a series
    // is born at its first request, and rate() counts from the second)
    const recorded = await eventually(
      'the interactive request rate recorded',
      async () => {
        expect((await call('GET', '/whoami', undefined, token)).status).toBe(200);
        const samples = await prometheus.query('namespace_job:nap_http_interactive_request_duration_seconds_bucket:rate5m{le="+Inf"}');
        return samples.length > 0 && (samples[0]?.value ?? 0) > 0 ? samples : undefined;
      },
      { intervalMs: 500 },
    );
    expect(recorded[0]?.metric.job).toBe('nap');
  }, 60_000);

  it('raises nothing on a healthy platform but the certificate that expires in two days', async () => {
    // a few evaluations after every rule's first
    const raisedNow = await eventually(
      'the certificate alert pending',
      async () => {
        const now = await raised();
        return now.includes('NapTlsCertificateExpiring/critical') ? now : undefined;
      },
      { intervalMs: 250 },
    );
    expect(raisedNow).toEqual(['NapTlsCertificateExpiring/critical']);
    const [alert] = (await napAlerts(prometheus)).filter((a) => a.labels.alertname === 'NapTlsCertificateExpiring');
    // pending for its 10 minutes, with the time left in its summary
    expect(alert?.state).toBe('pending');
    expect(alert?.annotations.summary).toMatch(/expires in 1d 23h|expires in 2d/);
  }, 60_000);

  it('raises password guessing and throttled accounts when logins fail', async () => {
    // 20 wrong passwords spread over accounts, known or not (each address may fail 50 times)
    for (let i = 0; i < 20; i++) expect((await login(`guess-${i % 7}`, `wrong-${i}`)).status).toBe(401);
    // one account that keeps being tried: 5 failures, then every attempt waits
    const account = await call(
      'POST',
      '/user-management/accounts',
      { account: { username: 'monitoring-victim', password: 'monitoring-victim-password', groups: [] } },
      token,
    );
    expect(account.status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await login('monitoring-victim', `nope-${i}`)).status).toBe(401);
    for (let i = 0; i < 10; i++) expect((await login('monitoring-victim', 'monitoring-victim-password')).status).toBe(429);

    const now = await eventually(
      'both login alerts firing',
      async () => {
        const alerts = await napAlerts(prometheus);
        const firing = (name: string) => alerts.find((a) => a.labels.alertname === name && a.state === 'firing');
        const guessing = firing('NapPasswordGuessing');
        const throttled = firing('NapAccountsThrottled');
        return guessing && throttled ? { guessing, throttled } : undefined;
      },
      { intervalMs: 250, timeoutMs: 30_000 },
    );
    expect(now.guessing.labels.severity).toBe('warning');
    expect(Number(now.guessing.value)).toBeGreaterThanOrEqual(25);
    expect(now.throttled.annotations.description).toContain('429 LOGIN_THROTTLED');
    // nothing else besides the certificate
    expect(await raised()).toEqual(['NapAccountsThrottled/warning', 'NapPasswordGuessing/warning', 'NapTlsCertificateExpiring/critical']);
  }, 90_000);
});

describeWithPrometheus('distributed NAP under a real Prometheus: one target per process, the audit queue in JetStream', () => {
  let prometheus: Prometheus;
  const processes = world.processes;

  beforeAll(async () => {
    await startDistributedWorld();
    prometheus = world.prometheus as Prometheus;
    // a login, so that the audit queue's stream exists and holds what the gateway appended
    const url = gatewayUrl(processes.get('gateway') as NapProcess);
    const res = await fetch(`${url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { username: 'admin', password: DISTRIBUTED_PASSWORD } }),
    });
    expect(res.status).toBe(200);
  }, 120_000);

  it('finds every metric the rules read in the process that owns it, the queue’s fill included, and evaluates every rule', async () => {
    const targets = await eventually(
      'every process scraped',
      async () => {
        const now = await prometheus.targets();
        return now.length === processes.size && now.every((t) => t.health === 'up') ? now : undefined;
      },
      { intervalMs: 250, timeoutMs: 20_000 },
    ).catch(async () => prometheus.targets());
    expect(targets.map((t) => `${t.scrapeUrl} ${t.health} ${t.lastError}`).filter((t) => !t.includes(' up '))).toEqual([]);
    // no TLS in the gateway here
    const names = RULE_METRICS.filter((n) => !n.startsWith('nap_tls_'));
    // the job histogram has no series before a job ended here
    const expected = ['nap_job_duration_seconds'];
    await eventually(
      'every metric scraped',
      async () => JSON.stringify(await missingMetrics(prometheus, names)) === JSON.stringify(expected),
      { intervalMs: 250, timeoutMs: 20_000 },
    ).catch(() => undefined);
    const absent = await missingMetrics(prometheus, names);
    expect(absent).toEqual(['nap_job_duration_seconds']);
    const components = async (expr: string) => [...new Set((await prometheus.query(expr)).map((s) => s.metric.component))].sort();
    expect(await components('nap_process_start_time_seconds')).toEqual(['admin', 'gateway', 'gateway-devices', 'workflow']);
    expect(await components('nap_logins_total')).toEqual(['admin']);
    expect(await components('nap_retention_next_run_timestamp_seconds')).toEqual(['admin', 'workflow']);
    const fill = await prometheus.query('nap_queue_fill_ratio{queue="audit"}');
    expect(fill.length).toBe(1);
    expect(fill[0]?.value).toBeLessThan(0.01);

    const evaluated = await eventually(
      'every rule evaluated',
      async () => {
        const all = await prometheus.rules();
        return all.length > 0 && all.every((r) => !r.lastEvaluation.startsWith('0001')) ? all : undefined;
      },
      { intervalMs: 250 },
    );
    expect(evaluated.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.lastError ?? r.health}`)).toEqual([]);
    expect(await napAlerts(prometheus)).toEqual([]);
  }, 60_000);

  it('raises the component down at once when its only process dies', async () => {
    await processes.get('workflow')?.kill();
    processes.delete('workflow');
    const alerts = await eventually(
      'the workflow component and its process down',
      async () => {
        const now = await napAlerts(prometheus);
        const names = now.map((a) => `${a.labels.alertname}/${a.labels.component ?? a.labels.instance}`);
        return names.some((n) => n === 'NapComponentDown/workflow') && names.some((n) => n.startsWith('NapProcessDown/')) ? now : undefined;
      },
      { intervalMs: 250, timeoutMs: 20_000 },
    );
    // pending for their 5 minutes; the one down component only
    expect(alerts.every((a) => a.state === 'pending')).toBe(true);
    expect(alerts.filter((a) => a.labels.alertname === 'NapComponentDown').map((a) => a.labels.component)).toEqual(['workflow']);
    expect(alerts.find((a) => a.labels.alertname === 'NapComponentDown')?.labels.severity).toBe('critical');
  }, 60_000);
});
