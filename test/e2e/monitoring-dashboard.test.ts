import { readFileSync } from 'node:fs';
import path from 'node:path';
import { eventually, task, workflowDocument } from '@nap/testing';
import { greetWorkflow } from '../support/automation';
import { startMonitoredPlatform } from '../support/monitored-platform';
import type { MonitoredPlatform } from '../support/monitored-platform';
import { prometheusPresent } from '../support/prometheus';
import type { Prometheus } from '../support/prometheus';

/**
 * The Grafana dashboard NAP ships (deploy/helm/nap/files/grafana/nap-dashboard.json), read the way
 * Grafana reads it: its structure (titles, units, the `${datasource}` variable, a grid without
 * overlaps, the aggregations the rule file's comments ask for), then every query of every panel,
 * its template variables substituted as Grafana substitutes them, run by a real Prometheus that
 * scrapes a real standalone platform (TLS, embedded store) with NAP's rule file loaded, after the
 * platform has been used a little: logins right and wrong, a job that completes, jobs in error.
 */

const DASHBOARD_FILE = path.resolve(__dirname, '../../deploy/helm/nap/files/grafana/nap-dashboard.json');

const RECORDING_RULE = 'namespace_job:nap_http_interactive_request_duration_seconds_bucket:rate5m';

/** The panels any running NAP fills once it has answered requests and ended a job. */
const EVERY_NAP = [
  'Processes up',
  'Processes not answering',
  'Requests/s',
  '5xx ratio',
  'Jobs running or paused',
  'Jobs ended in error (1h)',
  'Adapters DEAD or stuck',
  'Audit trail behind',
  'Device requests queued',
  'Wrong passwords (10m)',
  'Restarts (1h)',
  'Event loop lag p99 (worst)',
  'Requests/s by status class',
  'Interactive operations latency',
  'Busiest operations',
  'Bus requests/s by outcome',
  'Jobs by state',
  'Active jobs',
  'Jobs ended/s by state',
  'Job duration p90 by workflow',
  'Tasks ended/s by finish state',
  'Task duration p90 by workflow',
  'Device operations/s by outcome',
  'Device sessions open and queued',
  'MOP template runs/s by result',
  'Adapters by state',
  'Logins/s by outcome',
  'Sessions',
  'Oldest queue entry not handled',
  'Retention runs next in',
  'Event stream clients',
  'Event stream clients dropped/s',
  'Event loop lag p99',
  'Resident memory',
  'JavaScript heap used',
  'Restarts in the last hour',
  'CPU',
  'Open file descriptors',
];

/** The panels this test's platform fills too: it serves TLS itself, keeps an embedded store, and ended jobs in error. */
const THIS_PLATFORM = [
  'Store disk free',
  'Store disk free by process',
  'TLS certificate expires in',
  'TLS certificate days left',
  'TLS certificate reloads (1h)',
  'Workflows with the most jobs in error',
];

/** The panels left empty here: no answer was a 5xx, and the queues of a standalone platform are journals in its store, not NATS streams. */
const EMPTY_HERE = ['5xx answers/s by operation', 'Queue fill (NATS)'];

/** Gauges read from a store every replica shares: each replica reports the same value, so they aggregate by max. */
const STORE_READ_GAUGES = [
  'nap_jobs',
  'nap_active_jobs',
  'nap_adapters',
  'nap_integrations',
  'nap_active_sessions',
  'nap_unique_sessions',
  'nap_retention_next_run_timestamp_seconds',
  'nap_queue_oldest_entry_age_seconds',
  'nap_queue_fill_ratio',
];

/** The unit ids of Grafana's value formats (packages/grafana-data/src/valueFormats/categories.ts) the dashboard may use. */
const GRAFANA_UNITS = new Set(['short', 'none', 'percentunit', 'reqps', 'ops', 'cps', 's', 'ms', 'd', 'dtdurations', 'bytes']);

const PROMQL_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset', 'and', 'or', 'unless']);

const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };

interface Target {
  refId: string;
  expr: string;
  instant?: boolean;
  datasource?: unknown;
}

interface Panel {
  id: number;
  type: string;
  title?: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: unknown;
  fieldConfig?: { defaults?: { unit?: string } };
  targets?: Target[];
  panels?: Panel[];
}

interface Variable {
  name: string;
  type: string;
  query: string | { query: string };
  datasource?: unknown;
  includeAll?: boolean;
  allValue?: string;
}

interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: Variable[] };
}

const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as Dashboard;
/** Every panel, those of collapsed rows included. */
const allPanels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const queryPanels = allPanels.filter((p) => p.type !== 'row');
const variables = dashboard.templating.list;

function variableQuery(v: Variable): string {
  return typeof v.query === 'string' ? v.query : v.query.query;
}

/**
 * A query as Grafana sends it: `$name`, `${name}` and `[[name]]` of a known variable replaced by its
 * value, any other left as it is (as the `${1}` of a label_replace).
 */
function interpolate(expr: string, values: Record<string, string>): string {
  const replaced = expr.replace(/\$(\w+)|\[\[(\w+)\]\]|\$\{(\w+)(?::[^}]+)?\}/g, (match, a?: string, b?: string, c?: string) => {
    const name = a ?? b ?? c ?? '';
    return values[name] ?? match;
  });
  const unknown = /\$(?!\{\d+\})\{?\w*/.exec(replaced);
  if (unknown) throw new Error(`${expr} uses ${unknown[0]}, a variable the dashboard does not define`);
  return replaced;
}

/** A value selected in a variable, inside a regex matcher: Grafana escapes what regex would read (and PromQL's string the backslash). */
function regexValue(value: string): string {
  return value.replace(/[\\^$*+?.()|{}[\]]/g, '\\\\$&');
}

/** The metric names a query reads: identifiers that are not functions, keywords, label names, strings or durations. */
function metricNamesOf(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const names = [...bare.matchAll(/(?<![\w:.$])([A-Za-z_:][\w:]*)(?![\w:])(?!\s*\()/g)].map((m) => m[1] ?? '');
  return [...new Set(names.filter((n) => !PROMQL_KEYWORDS.has(n)))];
}

/** What Grafana puts for its own variables (a 6-hour range) and the job, with "All" of every multi-value variable. */
const GRAFANA_VALUES = { job: 'nap', __rate_interval: '1m', __interval: '15s', __range: '21600s', __range_s: '21600' };
const allSelected = () => ({ ...GRAFANA_VALUES, component: '.*', instance: '.*' });

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the Grafana dashboard NAP ships, as Grafana reads it', () => {
  it('is a dashboard Grafana 10 and 11 import, on a data source chosen in its ${datasource} variable', () => {
    expect(dashboard.uid).toBe('nap-overview');
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.schemaVersion).toBeLessThanOrEqual(41);
    const byName = new Map(variables.map((v) => [v.name, v]));
    expect(byName.get('datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    expect(byName.get('job')).toMatchObject({ type: 'query', datasource: DATASOURCE });
    expect(variableQuery(byName.get('job') as Variable)).toBe('label_values(nap_process_start_time_seconds, job)');
    // every other query variable reads the same data source, and "All" is a regex that matches everything
    for (const v of variables.filter((v) => v.type === 'query')) {
      expect(v.datasource).toEqual(DATASOURCE);
      if (v.includeAll) expect(v.allValue).toBe('.*');
    }
  });

  it('gives every panel a unique id and title, a unit, and the ${datasource} of every query', () => {
    const ids = allPanels.map((p) => p.id);
    expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const titles = allPanels.map((p) => p.title ?? '');
    expect(titles.filter((t) => t.trim() === '')).toEqual([]);
    expect(queryPanels.map((p) => p.title).filter((t, i, all) => all.indexOf(t) !== i)).toEqual([]);
    const faults: string[] = [];
    for (const p of queryPanels) {
      const unit = p.fieldConfig?.defaults?.unit;
      if (unit === undefined || !GRAFANA_UNITS.has(unit)) faults.push(`${p.title}: unit ${unit}`);
      if (JSON.stringify(p.datasource) !== JSON.stringify(DATASOURCE))
        faults.push(`${p.title}: data source ${JSON.stringify(p.datasource)}`);
      if (!p.targets?.length) faults.push(`${p.title}: no query`);
      for (const t of p.targets ?? []) {
        if (t.datasource !== undefined && JSON.stringify(t.datasource) !== JSON.stringify(DATASOURCE))
          faults.push(`${p.title} ${t.refId}: data source ${JSON.stringify(t.datasource)}`);
        if (!t.expr?.trim()) faults.push(`${p.title} ${t.refId}: empty query`);
      }
      if (new Set(p.targets?.map((t) => t.refId)).size !== p.targets?.length) faults.push(`${p.title}: refIds repeat`);
    }
    expect(faults).toEqual([]);
  });

  it('lays its panels on the 24-column grid without overlaps, each under a row', () => {
    const faults: string[] = [];
    for (const p of allPanels) {
      const { x, y, w, h } = p.gridPos;
      if (!(x >= 0 && y >= 0 && w > 0 && h > 0 && x + w <= 24)) faults.push(`${p.title}: ${JSON.stringify(p.gridPos)}`);
    }
    const placed = dashboard.panels; // a collapsed row's panels are laid out when it opens
    for (const [i, a] of placed.entries())
      for (const b of placed.slice(i + 1)) {
        const overlap =
          a.gridPos.x < b.gridPos.x + b.gridPos.w &&
          b.gridPos.x < a.gridPos.x + a.gridPos.w &&
          a.gridPos.y < b.gridPos.y + b.gridPos.h &&
          b.gridPos.y < a.gridPos.y + a.gridPos.h;
        if (overlap) faults.push(`"${a.title}" overlaps "${b.title}"`);
      }
    expect(faults).toEqual([]);
    const [first] = [...placed].sort((a, b) => a.gridPos.y - b.gridPos.y || a.gridPos.x - b.gridPos.x);
    expect(first?.type).toBe('row');
  });

  it('selects one job in every query, reads counters through rate() over $__rate_interval, and shared gauges through max', () => {
    const faults: string[] = [];
    for (const p of queryPanels)
      for (const { expr, refId } of p.targets ?? []) {
        const where = `${p.title} ${refId}`;
        try {
          interpolate(expr, allSelected());
        } catch (err) {
          faults.push(`${where}: ${(err as Error).message}`);
        }
        for (const name of metricNamesOf(expr)) {
          const uses = [...expr.matchAll(new RegExp(`(?<![\\w:])${escapeRegExp(name)}(?![\\w:])(\\{[^}]*\\})?`, 'g'))];
          // two NAP installations in one Prometheus never mix
          if (uses.some((m) => !m[1]?.includes('job="$job"'))) faults.push(`${where}: ${name} without job="$job"`);
          if (/_(total|count|bucket)$/.test(name) && name !== RECORDING_RULE) {
            const rated = expr.match(new RegExp(`\\b(rate|increase)\\(\\s*${escapeRegExp(name)}\\{`, 'g')) ?? [];
            if (rated.length !== uses.length) faults.push(`${where}: counter ${name} read without rate() or increase()`);
          }
          if (STORE_READ_GAUGES.includes(name)) {
            const maxed = expr.match(new RegExp(`\\bmax\\s*(?:by\\s*\\([^)]*\\)\\s*)?\\(\\s*${escapeRegExp(name)}\\{`, 'g')) ?? [];
            if (maxed.length !== uses.length) faults.push(`${where}: ${name}, read from the shared store, not aggregated with max`);
          }
        }
        for (const m of expr.matchAll(/\brate\([^[]*\[([^\]]+)\]/g))
          if (m[1] !== '$__rate_interval') faults.push(`${where}: rate over [${m[1]}]`);
      }
    expect(faults).toEqual([]);
  });

  it('sorts every panel into one of the test lists, so that a new one says whether it has data', () => {
    const listed = [...EVERY_NAP, ...THIS_PLATFORM, ...EMPTY_HERE];
    expect(listed.filter((t, i) => listed.indexOf(t) !== i)).toEqual([]);
    expect([...listed].sort()).toEqual(queryPanels.map((p) => p.title).sort());
  });
});

const present = prometheusPresent('the monitoring dashboard end-to-end test');
const describeWithPrometheus = present ? describe : describe.skip;

const ADMIN_PASSWORD = 'dashboard-admin-password';

describeWithPrometheus('the Grafana dashboard NAP ships, on a real Prometheus scraping a real platform', () => {
  let platform: MonitoredPlatform;
  let prometheus: Prometheus;
  let health: string;

  /** The Prometheus HTTP API, which answers an error for a query it does not accept. */
  async function api<T>(route: string, params: Record<string, string>): Promise<T> {
    const res = await fetch(`${prometheus.url}${route}?${new URLSearchParams(params).toString()}`);
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`${res.status} ${body.error ?? ''}`);
    return body.data;
  }

  /** The series a panel's query answers, as Grafana asks: over the last minutes for a graph, now for an instant one. */
  async function run(target: Target, values: Record<string, string>): Promise<number> {
    const query = interpolate(target.expr, values);
    if (target.instant) return (await api<{ result: unknown[] }>('/api/v1/query', { query })).result.length;
    const end = Date.now() / 1000;
    const range = { query, start: String(end - 120), end: String(end), step: '2' };
    return (await api<{ result: unknown[] }>('/api/v1/query_range', range)).result.length;
  }

  /** One component and instance selected, as Grafana writes them into a regex matcher. */
  const oneSelected = () => ({ ...GRAFANA_VALUES, component: regexValue('standalone'), instance: regexValue(health) });

  beforeAll(async () => {
    platform = await startMonitoredPlatform(ADMIN_PASSWORD, 30);
    ({ prometheus, health } = platform);
    const { call, login, runJob } = platform;

    const admin = await login('admin', ADMIN_PASSWORD);
    expect(admin.status).toBe(200);
    const token = admin.text;
    for (let i = 0; i < 3; i++) expect((await login('admin', `wrong-${i}`)).status).toBe(401);

    expect((await call('POST', '/automation-studio/automations', { automation: greetWorkflow('dashboard-greet') }, token)).status).toBe(
      200,
    );
    // a query task that finds nothing, where finding nothing is an error: its jobs end in error
    const failing = workflowDocument(
      'dashboard-fail',
      { q1: task('query', { pass_on_null: false, query: 'absent', obj: '$var.job.data' }, { return_data: null }, { type: 'operation' }) },
      [
        ['workflow_start', 'q1'],
        ['q1', 'workflow_end'],
      ],
    );
    expect((await call('POST', '/automation-studio/automations', { automation: failing }, token)).status).toBe(200);
    expect(await runJob(token, 'dashboard-greet', { who: 'on-call' })).toBe('complete');
    expect(await runJob(token, 'dashboard-fail', { data: { n: 1 } })).toBe('error');
    // increase() counts from a series' second sample: a second failure once the first was scraped
    await eventually(
      'the first job in error scraped',
      async () => (await prometheus.query('nap_job_duration_seconds_count{state="error"}')).length > 0,
    );
    expect(await runJob(token, 'dashboard-fail', { data: { n: 2 } })).toBe('error');
    // an interactive operation asked again, for the recording rule's rate
    expect((await call('GET', '/whoami', undefined, token)).status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
  });

  it('offers this platform in its job, component and instance variables', async () => {
    const offered: Record<string, string[]> = {};
    for (const v of variables.filter((v) => v.type === 'query')) {
      const match = /^label_values\((.+),\s*(\w+)\)$/.exec(variableQuery(v));
      if (!match?.[1] || !match[2]) throw new Error(`${v.name}: ${variableQuery(v)} is not label_values(selector, label)`);
      const label = match[2];
      const query = `group by (${label}) (${interpolate(match[1], allSelected())})`;
      offered[v.name] = (await api<{ result: { metric: Record<string, string> }[] }>('/api/v1/query', { query })).result
        .map((s) => s.metric[label] ?? '')
        .sort();
    }
    expect(offered).toEqual({ job: ['nap'], component: ['standalone'], instance: [health] });
  });

  it('reads only metrics NAP exposes, and the recording rule of its rule file', async () => {
    const exposed = new Set(await api<string[]>('/api/v1/label/__name__/values', {}));
    // NATS only: the standalone platform's queue is a journal in its store
    const allowed = new Set(['nap_queue_fill_ratio', RECORDING_RULE]);
    // Prometheus's own: whether a target answered its scrape
    const prometheusOwn = new Set(['up']);
    const read = [...new Set(queryPanels.flatMap((p) => (p.targets ?? []).flatMap((t) => metricNamesOf(t.expr))))].sort();
    expect(read).toEqual(expect.arrayContaining(['nap_http_requests_total', 'nap_jobs', RECORDING_RULE, 'up']));
    expect(read.filter((n) => !prometheusOwn.has(n) && !n.startsWith('nap_') && n !== RECORDING_RULE)).toEqual([]);
    expect(read.filter((n) => !exposed.has(n) && !allowed.has(n))).toEqual([]);
  });

  it('has every query accepted by Prometheus, with "All" selected and with one component and instance', async () => {
    const refused: string[] = [];
    for (const values of [allSelected(), oneSelected()])
      for (const p of queryPanels)
        for (const t of p.targets ?? [])
          await run(t, values).catch((err: Error) => refused.push(`${p.title} ${t.refId} (${values.component}): ${err.message}`));
    expect(refused).toEqual([]);
  }, 30_000);

  it('fills the panels every NAP fills, and those of a platform that serves TLS, keeps an embedded store and fails jobs', async () => {
    const expected = queryPanels.filter((p) => EVERY_NAP.includes(p.title ?? '') || THIS_PLATFORM.includes(p.title ?? ''));
    const empty = async (): Promise<string[]> => {
      const none: string[] = [];
      for (const values of [allSelected(), oneSelected()])
        for (const p of expected)
          for (const t of p.targets ?? []) {
            const found = await run(t, values).catch((err: Error) => err.message);
            if (found === 0 || typeof found === 'string')
              none.push(`${p.title} ${t.refId} (component ${values.component}): ${found === 0 ? 'no series' : found}`);
          }
      return none;
    };
    // what the last scrapes and rule evaluations bring (the recording rule's rate needs two of them)
    const left = await eventually('every panel filled', async () => ((await empty()).length === 0 ? [] : undefined), {
      timeoutMs: 15_000,
      intervalMs: 500,
    }).catch(() => empty());
    expect(left).toEqual([]);
  }, 30_000);
});
