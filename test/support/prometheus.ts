import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, freePort, isExecutable, spawnTracked, stopChild } from '@nap/testing';

/** Debian's Prometheus (`apt-get install prometheus`): the server and promtool. */
export const PROMETHEUS = '/usr/bin/prometheus';
export const PROMTOOL = '/usr/bin/promtool';

/** The rule file NAP ships (the Helm chart's PrometheusRule renders the same groups). */
export const NAP_ALERT_RULES = path.resolve(__dirname, '../../deploy/helm/nap/files/prometheus/nap-alerts.yaml');

/**
 * True when Debian's Prometheus is installed. Without it a developer's machine skips, loudly, what
 * needs it; under `CI=true` this throws, since CI installs it (.ci/run).
 */
export function prometheusPresent(what: string): boolean {
  if (isExecutable(PROMETHEUS) && isExecutable(PROMTOOL)) return true;
  const message = `${PROMETHEUS} or ${PROMTOOL} is missing (apt-get install prometheus): ${what} needs a real Prometheus`;
  if (process.env.CI === 'true') throw new Error(message);
  const line = '!'.repeat(100);
  console.warn(`${line}\n!! SKIPPED: ${message}\n${line}`);
  return false;
}

/** A sample of an instant query: its labels and value. */
export interface PromSample {
  metric: Record<string, string>;
  value: number;
}

/** An alert as `/api/v1/alerts` answers it. */
export interface PromAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing';
  value: string;
}

/** A rule as `/api/v1/rules` answers it, with the health of its last evaluation. */
export interface PromRule {
  name: string;
  type: 'alerting' | 'recording';
  query: string;
  health: 'ok' | 'err' | 'unknown';
  lastError?: string;
  lastEvaluation: string;
}

export interface Prometheus {
  url: string;
  /** An instant query's vector. */
  query(expr: string): Promise<PromSample[]>;
  alerts(): Promise<PromAlert[]>;
  rules(): Promise<PromRule[]>;
  /** The scrape targets and their health. */
  targets(): Promise<{ scrapeUrl: string; health: string; lastError: string }[]>;
  stop(): Promise<void>;
}

async function api<T>(url: string, route: string): Promise<T> {
  const res = await fetch(`${url}${route}`);
  const body = (await res.json()) as { status: string; data: T; error?: string };
  if (res.status !== 200 || body.status !== 'success') throw new Error(`Prometheus ${route}: ${res.status} ${body.error ?? ''}`);
  return body.data;
}

/**
 * A real Prometheus on a free port, scraping `targets` (`host:port`, path `metricsPath`) every
 * second and evaluating `ruleFiles` every second, with its own storage in a temporary directory.
 */
export async function startPrometheus(options: { targets: string[]; ruleFiles?: string[]; metricsPath?: string }): Promise<Prometheus> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-prometheus-'));
  const port = await freePort();
  const config = path.join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    JSON.stringify({
      global: { scrape_interval: '1s', evaluation_interval: '1s', scrape_timeout: '1s' },
      rule_files: options.ruleFiles ?? [],
      scrape_configs: [
        { job_name: 'nap', metrics_path: options.metricsPath ?? '/metrics', static_configs: [{ targets: options.targets }] },
      ],
    }),
  );
  let output = '';
  const child = spawnTracked(PROMETHEUS, [
    `--config.file=${config}`,
    `--storage.tsdb.path=${path.join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--web.enable-lifecycle',
  ]);
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await eventually(
      'Prometheus ready',
      async () => {
        if (child.exitCode !== null) throw new Error(`Prometheus exited (${child.exitCode}):\n${output}`);
        const res = await fetch(`${url}/-/ready`).catch(() => undefined);
        return res?.status === 200;
      },
      { intervalMs: 100, timeoutMs: 30_000 },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    async query(expr) {
      const data = await api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(
        url,
        `/api/v1/query?query=${encodeURIComponent(expr)}`,
      );
      return data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
    async alerts() {
      return (await api<{ alerts: PromAlert[] }>(url, '/api/v1/alerts')).alerts;
    },
    async rules() {
      const data = await api<{ groups: { rules: PromRule[] }[] }>(url, '/api/v1/rules');
      return data.groups.flatMap((g) => g.rules);
    },
    async targets() {
      return (await api<{ activeTargets: { scrapeUrl: string; health: string; lastError: string }[] }>(url, '/api/v1/targets'))
        .activeTargets;
    },
    stop,
  };
}
