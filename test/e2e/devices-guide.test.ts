import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCliSimulator, startNetconfLab } from '@nap/lab';
import type { CliSimulator, NetconfLab } from '@nap/lab';
import { eventually } from '@nap/testing';
import { assignedNames, firstMissingOutput, runBash, shellBlocks, shellQuote, shownOutputs } from '../support/doc-examples';
import type { ShellBlock } from '../support/doc-examples';
import { REPO_ROOT, startStandaloneAsDocumented } from '../support/processes';
import type { NapProcess } from '../support/processes';

/**
 * Every shell example of docs/devices.md runs as written, in order, in one bash (`set -euo
 * pipefail`, so `TOKEN` and the ids the blocks set carry over), against a fresh standalone platform
 * started with the guide's `NAP_ADMIN_PASSWORD`, on a free port instead of 3000. The devices are real
 * peers of `@nap/lab`: two Cisco IOS command-line simulators that log in at `>` and need the enable
 * secret, and a yuma123 netconfd behind a lab sshd (which needs root, as every NETCONF test of the
 * suite does; without it the test fails naming what is missing, it never skips).
 *
 * The guide's source marks what the test does with a block, in a comment just above it:
 * - `<!-- devices-guide: not run: <why> -->`: left out (the start of the platform).
 * - `<!-- devices-guide: set by the test: <why> -->`: the block assigns shell variables the reader
 *   sets to their own devices (`DEVICE_HOST=192.0.2.10 …`); the test assigns the same names to its
 *   peers instead, and fails when the names differ from those it has values for.
 * - In the other blocks, a comment line `#> <text>` shows what the command before it prints: every
 *   one must be printed, in the order shown (`…` stands for any text).
 *
 * `nap` is the repository's build (`cli/bin/nap.js`), put on the PATH; HOME and the XDG folders
 * point into the test's own folder, so no profile or token of the machine's user is read or written.
 */

const GUIDE_FILE = 'docs/devices.md';
const GUIDE = readFileSync(path.join(REPO_ROOT, GUIDE_FILE), 'utf8');
const TAG = 'devices-guide';

/** The refusals the guide shows on purpose, as `status route`, in order. */
const SHOWN_REFUSALS = ['502 /gw/sshSendCommandExec', '404 /gw/getInventoryDevice'];

/** The login of the simulated devices: a password with a quote and spaces, as real ones may have. */
const DEVICE_USER = 'netops';
const DEVICE_PASSWORD = `it's a "lab" password`;
const ENABLE_SECRET = 'en-secret-9';

const blocks = shellBlocks(GUIDE, TAG);

let nap: NapProcess;
let url: string;
let dataDir: string;
let workDir: string;
const sims: CliSimulator[] = [];
let netconf: NetconfLab;
/** What the test gives each variable a `set by the test` block assigns. */
let supplied: Record<string, string>;

beforeAll(async () => {
  for (const tool of ['bash', 'curl', 'jq'])
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
      throw new Error(`${tool} is missing: the guide's examples use bash, curl and jq (apt-get install -y ${tool})`);
  if (!existsSync(path.join(REPO_ROOT, 'cli/dist/nap.js'))) throw new Error('cli/dist/nap.js is missing: run `npm run build` first');
  const password = /NAP_ADMIN_PASSWORD='([^']+)' npm start/.exec(GUIDE)?.[1];
  if (password === undefined) throw new Error(`${GUIDE_FILE} no longer starts the platform with NAP_ADMIN_PASSWORD='…' npm start`);

  for (const hostname of ['sim-edge1', 'sim-edge2']) {
    sims.push(
      await startCliSimulator({
        deviceType: 'cisco_ios',
        hostname,
        username: DEVICE_USER,
        password: DEVICE_PASSWORD,
        enableSecret: ENABLE_SECRET,
        startPrivileged: false,
      }),
    );
  }
  netconf = await startNetconfLab();
  const [sim1, sim2] = sims as [CliSimulator, CliSimulator];
  supplied = {
    DEVICE_HOST: sim1.host,
    DEVICE_PORT: String(sim1.port),
    DEVICE_USER,
    DEVICE_PASSWORD,
    ENABLE_SECRET,
    DEVICE2_HOST: sim2.host,
    DEVICE2_PORT: String(sim2.port),
    NETCONF_HOST: netconf.sshd.host,
    NETCONF_PORT: String(netconf.sshd.port),
    NETCONF_USER: netconf.sshd.username,
    NETCONF_PASSWORD: netconf.sshd.password,
  };

  dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-devices-guide-'));
  // the platform's key directory (NAP_SSH_KEY_DIR by default), where the guide's key file lies
  supplied.KEY_DIR = path.join(dataDir, 'gateway', 'ssh-keys');
  workDir = mkdtempSync(path.join(os.tmpdir(), 'nap-devices-guide-work-'));
  mkdirSync(path.join(workDir, 'bin'));
  const shim = path.join(workDir, 'bin', 'nap');
  writeFileSync(shim, `#!/bin/sh\nexec ${shellQuote(process.execPath)} ${shellQuote(path.join(REPO_ROOT, 'cli/bin/nap.js'))} "$@"\n`);
  chmodSync(shim, 0o755);

  ({ nap, url } = await startStandaloneAsDocumented(dataDir, password));
}, 120_000);

afterAll(async () => {
  await nap?.stop();
  for (const sim of sims) await sim.stop();
  await netconf?.stop();
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
});

/** What the platform answered to each request, from its debug request log, in order. */
function requests(): { status: number; route: string; method: string }[] {
  return nap
    .output()
    .split('\n')
    .filter((line) => line.includes('"msg":"request"'))
    .map((line) => JSON.parse(line) as { status: number; route: string; method: string });
}

/** A block as the test runs it: the reader's values replaced by the test's, the address by the platform's. */
function scriptOf(block: ShellBlock): string {
  const header = `echo "### ${GUIDE_FILE} line ${block.line}"`;
  if (block.marker?.kind === 'set by the test') {
    return [header, ...assignedNames(block.text).map((name) => `${name}=${shellQuote(supplied[name] ?? '')}`)].join('\n');
  }
  return `${header}\n${block.text.replaceAll('http://127.0.0.1:3000', url)}`;
}

/** The environment of the examples: the test's `nap` first on the PATH, no NAP or ipctl settings of the machine. */
function examplesEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^(NAP|IPCTL)_/.test(key)) env[key] = value;
  return {
    ...env,
    PATH: `${path.join(workDir, 'bin')}:${process.env.PATH ?? ''}`,
    HOME: workDir,
    XDG_CACHE_HOME: path.join(workDir, '.cache'),
    XDG_CONFIG_HOME: path.join(workDir, '.config'),
    NO_COLOR: '1',
  };
}

describe('docs/devices.md', () => {
  it('marks the blocks it does not run, and the test has a value for every variable the reader sets', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(15);
    expect(blocks.filter((b) => b.marker?.kind === 'not run').map((b) => b.marker?.why)).toEqual([
      'it starts the platform, which the test does with the same NAP_ADMIN_PASSWORD',
    ]);
    const readerSets = blocks.filter((b) => b.marker?.kind === 'set by the test').flatMap((b) => assignedNames(b.text));
    expect(readerSets.sort()).toEqual(Object.keys(supplied).sort());
    // no example relies on a tool the guide does not name
    for (const b of blocks) expect(b.text).not.toMatch(/\b(uuidgen|python3?|wget)\b/);
  });

  it('runs every example as written, in order, against simulated IOS devices and a NETCONF agent', async () => {
    const script = blocks.filter((b) => b.marker?.kind !== 'not run').map(scriptOf);
    const run = await runBash(script.join('\n'), { cwd: workDir, env: examplesEnv(), timeoutMs: 90_000 });
    if (run.code !== 0) throw new Error(`The guide's examples failed (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);

    // every output the guide shows is printed, in the order shown
    const shown = shownOutputs(blocks.filter((b) => b.marker === undefined));
    expect(shown.length).toBeGreaterThanOrEqual(25);
    const missing = firstMissingOutput(shown, run.stdout);
    if (missing !== undefined) {
      throw new Error(`${GUIDE_FILE} (block at line ${missing.block}) shows\n  ${missing.line}\nbut the examples printed:\n${run.stdout}`);
    }

    const [sim1, sim2] = sims as [CliSimulator, CliSimulator];
    // the output came from the device: the simulated hostname, which the guide never names
    expect(run.stdout).toContain(`${sim1.hostname()} uptime is`);
    // the NETCONF agent's running datastore
    expect(run.stdout).toContain('urn:ietf:params:xml:ns:yang:ietf-netconf-acm');
    // the configuration change reached edge-1 through HTTP, its typo refused by the device, and
    // edge-2 (which failed the check for the lack of it) through `nap devices configure`
    for (const sim of [sim1, sim2]) {
      expect(sim.runningConfig()).toMatch(/interface GigabitEthernet0\/1\n(?: .*\n)* description uplink to core-2\n/);
      expect(sim.runningConfig()).not.toContain('descripton');
    }
    expect(sim2.commandLog()).toContain('description uplink to core-2');
    // gw_become: the sessions entered privileged mode with the enable secret
    expect(sim1.commandLog()).toContain('enable');
    // the failing transaction sent nothing after the refused command
    const log = sim1.commandLog();
    expect(log).toContain('show bogus');
    expect(log[log.indexOf('show bogus') + 1]).not.toBe('show version');
    // no secret was ever answered
    for (const secret of [DEVICE_PASSWORD, ENABLE_SECRET, netconf.sshd.password]) {
      expect(run.stdout).not.toContain(secret);
      expect(run.stderr).not.toContain(secret);
    }

    // every request succeeded but the refusals the guide shows; the last is the read of the deleted device
    const answered = await eventually('the request log of every example', () => {
      const all = requests();
      return all.some((r) => r.status === 404 && r.route === '/gw/getInventoryDevice') ? all : undefined;
    });
    expect(answered.length).toBeGreaterThan(20);
    expect(answered.filter((r) => r.status >= 400).map((r) => `${r.status} ${r.route}`)).toEqual(SHOWN_REFUSALS);
  }, 120_000);
});
