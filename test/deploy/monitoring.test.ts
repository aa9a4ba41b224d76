import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CATALOG, DEFAULT_TIMEOUT_MS } from '@nap/contracts';
import { parse, stringify } from 'yaml';
import type { AlertingRule } from './monitoring';
import {
  ALERT_METRICS,
  RULES_FILE,
  RULES_TEST_FILE,
  RUNBOOK_FILE,
  isAlert,
  loadRules,
  markdownAnchors,
  metricNames,
  promtoolBinary,
} from './monitoring';

/**
 * The alert rules NAP ships (deploy/helm/nap/files/prometheus/nap-alerts.yaml): checked and
 * unit-tested by a real promtool, each alert with a firing and a quiet unit test whose quiet case
 * is shown to bite (a rule without its guard fails it), a runbook section per alert in
 * docs/monitoring.md, and only metrics this repository knows of.
 */

interface ExpAlert {
  exp_labels?: Record<string, string>;
  exp_annotations?: Record<string, string>;
}
interface UnitTest {
  name?: string;
  alert_rule_test?: { eval_time: string; alertname: string; exp_alerts?: ExpAlert[] | null }[];
  promql_expr_test?: unknown[];
}
interface UnitTestFile {
  rule_files: string[];
  tests: UnitTest[];
}

const rulesText = readFileSync(RULES_FILE, 'utf8');
const rules = loadRules();
const alerts = rules.groups.flatMap((g) => g.rules).filter(isAlert);
const recorded = new Set(rules.groups.flatMap((g) => g.rules).flatMap((r) => (isAlert(r) ? [] : [r.record])));
const alertNames = [...new Set(alerts.map((a) => a.alert))];
const unitTests = parse(readFileSync(RULES_TEST_FILE, 'utf8')) as UnitTestFile;
const runbook = readFileSync(RUNBOOK_FILE, 'utf8');
const promtool = promtoolBinary();

/** GitHub's anchor of a heading that is the alert's name. */
const anchorOf = (alertname: string) => alertname.toLowerCase();
const ruleText = (a: AlertingRule) => `${a.alert} (${a.labels?.severity ?? 'no severity'})`;

describe('the alert rules', () => {
  it.each(alerts.map((a) => [ruleText(a), a] as const))(
    '%s has a severity, a summary and a description naming its value, and a runbook_url to its section',
    (_name, alert) => {
      expect(['critical', 'warning']).toContain(alert.labels?.severity);
      expect(alert.annotations?.summary).toMatch(/\S/);
      expect(alert.annotations?.description).toContain('$value');
      expect(alert.annotations?.description).toContain('$labels.job');
      expect(alert.annotations?.runbook_url).toBe(`docs/monitoring.md#${anchorOf(alert.alert)}`);
    },
  );

  it('has a section of docs/monitoring.md for each alert, and none for an alert that is not there', () => {
    const anchors = markdownAnchors(runbook);
    for (const name of alertNames) expect([name, anchors.includes(anchorOf(name))]).toEqual([name, true]);
    // the alert sections: the third-level headings under "## Alerts"
    const alertsPart = runbook.slice(runbook.indexOf('\n## Alerts'));
    const sections = [...alertsPart.split(/\n## (?!Alerts)/)[0]!.matchAll(/^### (\S+)\s*$/gm)].map((m) => m[1]);
    expect(sections.sort()).toEqual([...alertNames].sort());
  });

  it('links from docs/monitoring.md to files and sections that exist', () => {
    const links = [...runbook.matchAll(/\]\(([^)#\s]*)(?:#([^)\s]+))?\)/g)].filter((m) => !/^[a-z]+:/.test(m[1] ?? ''));
    expect(links.length).toBeGreaterThan(20);
    for (const [link, file, anchor] of links) {
      const target = file ? path.join(path.dirname(RUNBOOK_FILE), file) : RUNBOOK_FILE;
      const text = readFileSync(target, 'utf8');
      if (anchor !== undefined) expect([link, markdownAnchors(text).includes(anchor)]).toEqual([link, true]);
    }
  });

  it('reads only the metrics test/deploy/monitoring.ts lists (ALERT_METRICS), and all of them', () => {
    const read = new Set(rules.groups.flatMap((g) => g.rules).flatMap((r) => metricNames(r.expr)));
    for (const name of recorded) read.delete(name);
    expect([...read].sort()).toEqual([...ALERT_METRICS].sort());
  });

  it('finds the series an expression reads, and no function, label, keyword, number or duration', () => {
    expect(
      metricNames(
        'sum by (job, le) (rate(a_bucket{le="+Inf", operation!~`x\\.y|z`}[5m])) / on (job) group_left (component) b offset 1h > 1e3',
      ),
    ).toEqual(['a_bucket', 'b']);
    expect(metricNames('time() - max without (instance) (c:recorded:rate5m) > 3 * 3600 unless d == bool 0.5')).toEqual([
      'c:recorded:rate5m',
      'd',
    ]);
    expect(metricNames('histogram_quantile(0.99, e) > Inf and ignoring (outcome) group_left\n  sum(f)')).toEqual(['e', 'f']);
  });

  it('leaves out of the latency alert exactly the streamed answers and the operations allowed over 30 s', () => {
    // a new content type must be sorted into one of these: does its answer last?
    const STREAMED = new Set(['text/event-stream', 'application/x-ndjson', 'application/gzip']);
    const AT_ONCE = new Set(['application/json', 'text/plain', 'text/plain; version=0.0.4', 'application/samlmetadata+xml']);
    const routed = CATALOG.filter((op) => op.http !== undefined);
    for (const op of routed) {
      const type = op.response.contentType ?? 'application/json';
      expect([op.id, STREAMED.has(type) || AT_ONCE.has(type)]).toEqual([op.id, true]);
    }
    const long = routed
      .filter((op) => op.timeoutMs > DEFAULT_TIMEOUT_MS || STREAMED.has(op.response.contentType ?? 'application/json'))
      .map((op) => op.id);
    const recording = rules.groups.flatMap((g) => g.rules).find((r) => !isAlert(r));
    const pattern = /operation!~`([^`]+)`/.exec(recording?.expr ?? '')?.[1];
    if (pattern === undefined) throw new Error('the latency recording rule has no operation!~`…` matcher');
    // Prometheus anchors a regex matcher at both ends
    const excluded = new RegExp(`^(?:${pattern})$`);
    expect(routed.filter((op) => excluded.test(op.id)).map((op) => op.id)).toEqual(long);
    expect(long).toEqual(expect.arrayContaining(['workflow.watchEvents', 'workflow.watchJobEvents', 'admin.exportAudit']));
  });

  it('has, for each alert and severity, a unit test where it fires and one where it stays quiet', () => {
    const cases = unitTests.tests.flatMap((t) => (t.alert_rule_test ?? []).map((c) => ({ group: t, ...c })));
    for (const alert of alerts) {
      const firing = cases
        .filter((c) => c.alertname === alert.alert)
        .flatMap((c) => c.exp_alerts ?? [])
        .filter((e) => e.exp_labels?.severity === alert.labels?.severity);
      expect([ruleText(alert), firing.length > 0]).toEqual([ruleText(alert), true]);
      for (const e of firing) expect(Object.keys(e.exp_annotations ?? {}).sort()).toEqual(Object.keys(alert.annotations ?? {}).sort());
      // quiet: a test whose every evaluation of this alert expects nothing
      const quiet = unitTests.tests.filter((t) => {
        const own = (t.alert_rule_test ?? []).filter((c) => c.alertname === alert.alert);
        return own.length > 0 && own.every((c) => (c.exp_alerts ?? []).length === 0);
      });
      expect([ruleText(alert), quiet.length > 0]).toEqual([ruleText(alert), true]);
    }
    // a test of an alert that does not exist would pass without testing anything
    for (const c of cases) expect([c.group.name, alertNames.includes(c.alertname)]).toEqual([c.group.name, true]);
  });
});

/**
 * promtool's environment: a Go heap allowed to grow to five times what is live before it is
 * collected (GOGC=400; 100 by default), which takes a quarter off the CPU its unit tests cost.
 */
const PROMTOOL_ENV = { ...process.env, GOGC: '400' };

/**
 * Runs promtool with `args` in `cwd`; answers its exit status and its output, stderr into stdout as
 * it writes them (it says which file it tests on stdout, and why one failed on stderr).
 */
function runPromtool(binary: string, args: string[], cwd: string): Promise<{ status: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', 'exec "$0" "$@" 2>&1', binary, ...args], {
      cwd,
      env: PROMTOOL_ENV,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code ?? 1, output }));
  });
}

/** One run of promtool's unit tests: `tests` of nap-alerts.test.yaml against `rulesYaml`. */
interface RuleTestRun {
  rulesYaml: string;
  tests: UnitTest[];
}

/**
 * Runs each of `runs` as its own rule file and unit test file, all in one directory: one `promtool
 * check rules` over every rule file (a refusal throws), then `promtool test rules` over every test
 * file, in two processes side by side. promtool tests each file apart and reports each under its
 * name ("Unit Testing:  <file>", then SUCCESS or FAILED and why); each run's answer is that part of
 * the output, with status 0 when it says SUCCESS and 1 otherwise.
 */
async function promtoolTests(binary: string, runs: RuleTestRun[]): Promise<{ status: number; output: string }[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-alerts-'));
  try {
    const rules = runs.map((_, i) => `nap-alerts-${i}.yaml`);
    const tests = runs.map((_, i) => `nap-alerts-${i}.test.yaml`);
    runs.forEach((run, i) => {
      writeFileSync(path.join(dir, rules[i] as string), run.rulesYaml);
      writeFileSync(path.join(dir, tests[i] as string), stringify({ ...unitTests, rule_files: [rules[i]], tests: run.tests }));
    });
    const check = await runPromtool(binary, ['check', 'rules', ...rules], dir);
    if (check.status !== 0) throw new Error(`promtool check rules refused the rules:\n${check.output}`);
    const half = Math.ceil(tests.length / 2);
    const outputs = await Promise.all(
      [tests.slice(0, half), tests.slice(half)].map((files) => runPromtool(binary, ['test', 'rules', ...files], dir)),
    );
    const sections = new Map(
      outputs
        .flatMap((o) => o.output.split(/^Unit Testing: +/m).slice(1))
        .map((section) => [section.slice(0, section.indexOf('\n')).trim(), section] as const),
    );
    return tests.map((file) => {
      const section = sections.get(file);
      if (section === undefined)
        throw new Error(`promtool test rules said nothing of ${file}:\n${outputs.map((o) => o.output).join('\n')}`);
      return { status: /^\s*SUCCESS\s*$/m.test(section) && !/^\s*FAILED:/m.test(section) ? 0 : 1, output: section };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Each guard of a rule against noise, taken away: the alert's quiet unit tests must then fail.
 * [what the rule would do, the alert, the text of nap-alerts.yaml, what it becomes]
 */
const WITHOUT_GUARD: [string, string, string, string][] = [
  ['count 502 (a device failing) as NAP errors', 'NapHttpErrors', 'status=~"5..", status!="502"', 'status=~"5.."'],
  [
    'judge a quiet night',
    'NapHttpErrors',
    'sum by (namespace, job) (rate(nap_http_requests_total[5m])) > 0.1',
    'sum by (namespace, job) (rate(nap_http_requests_total[5m])) > 0',
  ],
  ['time the event streams, downloads and device calls', 'NapSlowAnswers', 'operation!~`', 'operation!~`none`, operation=~`.*|'],
  ['judge a few slow requests', 'NapSlowAnswers', 'le="+Inf"} > 0.1', 'le="+Inf"} > 0'],
  ['page for one failed job', 'NapJobsFailing', 'state="error"}[30m])) >= 5', 'state="error"}[30m])) > 0'],
  [
    'add up what every replica reads from the store',
    'NapAdapterDead',
    'max by (namespace, job) (nap_adapters',
    'sum by (namespace, job) (nap_adapters',
  ],
  [
    'take any scrape target for NAP',
    'NapProcessDown',
    'up == 0\n          and on (namespace, job, instance)\n          max_over_time',
    'up == 0 or max_over_time',
  ],
  [
    'miss a component whose pods a rollout replaced',
    'NapComponentDown',
    'count by (namespace, job, component) (nap_process_start_time_seconds)',
    'count by (namespace, job, component, instance) (nap_process_start_time_seconds)',
  ],
  ['count a restart as a crash loop', 'NapProcessRestarting', '[1h]) >= 3', '[1h]) >= 1'],
  ['judge a few failed device commands', 'NapDeviceCommandsFailing', 'outcome!="ok"}[15m])) >= 10', 'outcome!="ok"}[15m])) >= 0'],
  [
    'ring for a queue that empties',
    'NapDeviceSessionsQueued',
    'nap_device_sessions_queued > 0\n        for: 15m',
    'nap_device_sessions_queued > 0\n        for: 5m',
  ],
  [
    'warn of low space while writes are refused',
    'NapStoreDiskLow',
    '\n          and\n          nap_store_disk_free_bytes >= nap_store_disk_min_free_bytes',
    '',
  ],
  [
    'believe the replica whose retention failed',
    'NapRetentionOverdue',
    'time() - max by (namespace, job, kind)',
    'time() - min by (namespace, job, kind)',
  ],
  [
    'warn beside the critical alert',
    'NapTlsCertificateExpiring',
    '\n          and\n          nap_tls_certificate_expiry_timestamp_seconds - time() >= 3 * 86400',
    '',
  ],
  [
    'stay on after the renewed pair was taken',
    'NapTlsReloadFailed',
    '\n          unless ignoring (outcome)\n          increase(nap_tls_certificate_reloads_total{outcome="ok"}[1h]) > 0',
    '',
  ],
  ['call a few typos guessing', 'NapPasswordGuessing', 'outcome="wrong"}[10m])) >= 20', 'outcome="wrong"}[10m])) >= 2'],
  ['call one person locked out an alert', 'NapAccountsThrottled', 'outcome="throttled"}[15m])) >= 10', 'outcome="throttled"}[15m])) >= 1'],
  [
    'page for one directory timeout',
    'NapSignInDirectoryUnavailable',
    'outcome="unavailable"}[10m])) >= 3',
    'outcome="unavailable"}[10m])) >= 1',
  ],
];

if (promtool !== undefined) {
  const binary = promtool;
  describe('promtool', () => {
    it('checks the rule file (promtool check rules)', () => {
      const r = spawnSync(binary, ['check', 'rules', RULES_FILE], { encoding: 'utf8', env: PROMTOOL_ENV });
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain(`SUCCESS: ${alerts.length + recorded.size} rules found`);
      expect(r.status).toBe(0);
    });

    /** An alert's own unit tests. */
    const ownTests = (alertname: string) => unitTests.tests.filter((t) => (t.alert_rule_test ?? []).some((c) => c.alertname === alertname));

    /** The unit tests as they are (the whole file); by guard (WITHOUT_GUARD's order), its alert's tests without the guard. */
    let results: { asTheyAre: { status: number; output: string }; withoutGuard: { status: number; output: string }[] };

    // every promtool run at once (see promtoolTests): a process per run cost more than the tests. The
    // unit tests as they are run once, whole: promtool runs each test on its own series, so the whole
    // file passing is each alert's own tests passing, the ground the runs without a guard stand on.
    beforeAll(async () => {
      const [asTheyAre, withoutGuard] = await Promise.all([
        runPromtool(binary, ['test', 'rules', path.basename(RULES_TEST_FILE)], path.dirname(RULES_TEST_FILE)),
        promtoolTests(
          binary,
          WITHOUT_GUARD.map(([, alertname, from, to]) => ({ rulesYaml: rulesText.replace(from, to), tests: ownTests(alertname) })),
        ),
      ]);
      results = { asTheyAre, withoutGuard };
    }, 240_000);

    it('passes the unit tests (promtool test rules)', () => {
      expect(results.asTheyAre.output).toContain('SUCCESS');
      expect(results.asTheyAre.status).toBe(0);
    });

    it.each(WITHOUT_GUARD.map((guard, i) => [...guard, i] as const))(
      'fails the unit tests of a rule that would %s (%s)',
      (_what, alertname, from, _to, i) => {
        expect(rulesText).toContain(from);
        // the alert's own tests pass as they are (with all the others), and fail once the guard is gone
        expect(results.asTheyAre).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
        const mutated = results.withoutGuard[i];
        expect(mutated?.status).not.toBe(0);
        expect(mutated?.output).toContain(`alertname: ${alertname}`);
      },
    );
  });
} else {
  describe('promtool — NOT INSTALLED', () => {
    it('needs promtool (Debian: apt-get install prometheus) to check and unit-test the alert rules', () => {
      const message =
        'ALERT RULE TESTS NOT RUN: promtool is missing. Install it with `sudo apt-get install prometheus` (Debian), then run `npx jest test/deploy/monitoring.test.ts`.';
      if (process.env.CI === 'true') throw new Error(message);
      const line = '!'.repeat(100);
      console.warn(`\n${line}\n!! ${message}\n${line}\n`);
      expect(promtool).toBeUndefined();
    });
  });
}
