import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '@nap/testing';
import { REPO_ROOT, startStandaloneAsDocumented } from '../support/processes';
import type { NapProcess } from '../support/processes';
import { shellBlocks } from '../support/doc-examples';

/**
 * Every shell example of the README runs as written on a fresh platform: the blocks, in order, in
 * one bash (so `TOKEN` and the ids they set carry over), with `set -euo pipefail`, against a
 * platform started as the README starts it (its `NAP_ADMIN_PASSWORD`), on a free port instead of
 * 3000. Every request they make must succeed, but for the refusals the README shows on purpose.
 * A block preceded by `<!-- readme-examples: not run: <why> -->` is left out (the start itself,
 * the distributed set-up).
 */

const README = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');

/** The refusals the README shows on purpose, as `status route`. */
const SHOWN_REFUSALS = ['403 /transformations'];

const blocks = shellBlocks(README, 'readme-examples');
const toRun = blocks.filter((b) => b.marker?.kind !== 'not run');

let nap: NapProcess;
let url: string;
let dataDir: string;
let workDir: string;

beforeAll(async () => {
  for (const tool of ['bash', 'curl', 'jq'])
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
      throw new Error(`${tool} is missing: the README's examples use bash, curl and jq (apt-get install -y ${tool})`);
  const password = /NAP_ADMIN_PASSWORD='([^']+)' npm start/.exec(README)?.[1];
  if (password === undefined) throw new Error("README.md no longer starts the platform with NAP_ADMIN_PASSWORD='…' npm start");
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-readme-'));
  workDir = mkdtempSync(path.join(os.tmpdir(), 'nap-readme-work-'));
  ({ nap, url } = await startStandaloneAsDocumented(dataDir, password));
}, 90_000);

afterAll(async () => {
  await nap?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(workDir, { recursive: true, force: true });
});

/** What the platform answered to each request, from its debug request log. */
function requests(): { status: number; route: string; method: string }[] {
  return nap
    .output()
    .split('\n')
    .filter((line) => line.includes('"msg":"request"'))
    .map((line) => JSON.parse(line) as { status: number; route: string; method: string });
}

describe('the README', () => {
  it('marks every shell block it does not run with why', () => {
    expect(toRun.length).toBeGreaterThanOrEqual(5);
    expect(blocks.filter((b) => b.marker?.kind === 'not run').map((b) => b.marker?.why)).toEqual([
      'the set-up and the start, which the test does itself',
      'it starts the platform, which the test does with the same NAP_ADMIN_PASSWORD',
      'it needs nats-server and MongoDB, and starts the platform',
      // nap-data refuses a running platform's data; test/e2e/move-to-cluster.test.ts runs these commands
      'it needs the platform stopped',
    ]);
    // no example relies on a tool the README does not name
    for (const b of toRun) expect(b.text).not.toMatch(/\buuidgen\b/);
  });

  it('runs every other shell example as written, in order, against a fresh platform', async () => {
    const script = [
      'set -euo pipefail',
      'shopt -s inherit_errexit',
      ...toRun.map((b) => `echo "### README.md line ${b.line}"\n${b.text.replaceAll('http://127.0.0.1:3000', url)}`),
    ].join('\n');
    // not spawnSync: the platform's output is read while the examples run
    const run = await new Promise<{ code: number | string; output: string }>((resolve) => {
      execFile('bash', ['-c', script], { cwd: workDir, encoding: 'utf8', timeout: 120_000 }, (err, stdout, stderr) =>
        resolve({ code: err === null ? 0 : (err.code ?? err.signal ?? 'unknown'), output: `${stdout}\n${stderr}` }),
      );
    });
    const output = run.output;
    if (run.code !== 0) throw new Error(`The README's examples failed (exit ${run.code}):\n${output}`);
    // the last request of the examples is olga's refused one: once it is logged, all are
    const answered = await eventually('the request log of every example', () => {
      const all = requests();
      return all.some((r) => r.status === 403) ? all : undefined;
    });
    expect(answered.length).toBeGreaterThan(15);
    expect(answered.filter((r) => r.status >= 400).map((r) => `${r.status} ${r.route}`)).toEqual(SHOWN_REFUSALS);
    // what the examples print: the transformation's result, the first administrator's identity, olga's role
    expect(output).toContain('{"label":"PROD"}');
    expect(output).toContain('["operations"]');
  });
});
