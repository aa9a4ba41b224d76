import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { CHART_DIR, ROOT } from './helm';

/** The alert rules NAP ships (a plain Prometheus rule file, also rendered by the chart), and their promtool unit tests. */
export const RULES_DIR = path.join(CHART_DIR, 'files/prometheus');
export const RULES_FILE = path.join(RULES_DIR, 'nap-alerts.yaml');
export const RULES_TEST_FILE = path.join(RULES_DIR, 'nap-alerts.test.yaml');
/** The runbook: one section per alert, which each alert's `runbook_url` names. */
export const RUNBOOK_FILE = path.join(ROOT, 'docs/monitoring.md');

/**
 * Every series the rules read, by the name Prometheus stores (a histogram's `_bucket`/`_count`):
 * NAP's metrics, and Prometheus's own `up`. A rule that reads another name (a renamed or
 * misspelt metric) fails the monitoring test until this list says it exists; a test scraping a
 * real NAP can check each of these is served.
 */
export const ALERT_METRICS: readonly string[] = [
  'nap_adapters',
  'nap_device_commands_total',
  'nap_device_sessions_queued',
  'nap_http_request_duration_seconds_bucket',
  'nap_http_requests_total',
  'nap_job_duration_seconds_count',
  'nap_logins_total',
  'nap_nodejs_eventloop_lag_p99_seconds',
  'nap_process_start_time_seconds',
  'nap_queue_fill_ratio',
  'nap_queue_oldest_entry_age_seconds',
  'nap_retention_next_run_timestamp_seconds',
  'nap_store_disk_free_bytes',
  'nap_store_disk_min_free_bytes',
  'nap_tls_certificate_expiry_timestamp_seconds',
  'nap_tls_certificate_reloads_total',
  'up',
];

export interface AlertingRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
export interface RecordingRule {
  record: string;
  expr: string;
  labels?: Record<string, string>;
}
export type Rule = AlertingRule | RecordingRule;
export interface RuleFile {
  groups: { name: string; interval?: string; rules: Rule[] }[];
}

export const isAlert = (rule: Rule): rule is AlertingRule => 'alert' in rule;

/** The rule file as parsed YAML. */
export function loadRules(file = RULES_FILE): RuleFile {
  return parse(readFileSync(file, 'utf8')) as RuleFile;
}

// Words of PromQL that are no series name: operators, modifiers, and the literals Inf and NaN.
const PROMQL_WORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'offset',
  'atan2',
  'inf',
  'nan',
]);

/**
 * The series names a PromQL expression reads: every identifier that is not a function or an
 * aggregation (those are followed by a parenthesis), a keyword, a label name (inside `{…}` or a
 * `by`/`on`/… list), a string, a number or a duration. Enough for the rules NAP writes (no
 * `{__name__=…}` selectors); its own test holds it to a few expressions.
 */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/gi, ' ')
    .replace(/(?<![\w:])\d+(?:ms|s|m|h|d|w|y)\b/g, ' ')
    .replace(/(?<![\w:])(?:0x[0-9a-f]+|\d*\.?\d+(?:e[+-]?\d+)?)/gi, ' ');
  const names = new Set<string>();
  for (const match of bare.matchAll(/[a-zA-Z_:][\w:]*/g)) {
    const rest = bare.slice((match.index ?? 0) + match[0].length);
    if (/^\s*\(/.test(rest) || PROMQL_WORDS.has(match[0].toLowerCase())) continue;
    names.add(match[0]);
  }
  return [...names].sort();
}

/** The heading anchors GitHub makes for a markdown file: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
export function markdownAnchors(markdown: string): string[] {
  const seen = new Map<string, number>();
  const anchors: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading?.[1]) continue;
    const base = heading[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.push(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** promtool (Debian's `prometheus` package, else the first on PATH), or undefined where none runs. */
export function promtoolBinary(): string | undefined {
  return ['/usr/bin/promtool', 'promtool'].find((binary) => spawnSync(binary, ['--version'], { stdio: 'ignore' }).status === 0);
}
