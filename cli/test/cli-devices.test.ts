import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCliSimulator, startNetconfLab } from '@nap/lab';
import type { CliSimulator, NetconfLab } from '@nap/lab';
import type { NapHome } from './support/nap';
import { createHome, napInProcess } from './support/nap';
import type { Platform } from './support/platform';
import { startPlatform } from './support/platform';

// `nap devices …` against two simulated Cisco IOS devices (login at `>`, enable secret), a slow one,
// and a real NETCONF agent, through a platform started as a black box.
const USER = 'netops';
const PASSWORD = 'device-pass-1';
const ENABLE = 'enable-secret-1';

let platform: Platform;
let home: NapHome;
let work: string;
let token: string;
const sims: CliSimulator[] = [];
let netconf: NetconfLab;

const run = (args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}) =>
  napInProcess(args, { env: { ...home.env, ...opts.env }, ...(opts.input === undefined ? {} : { input: opts.input }), timeoutMs: 90_000 });

async function api(method: string, route: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${platform.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

async function addDevice(name: string, sim: CliSimulator, groups: string[]): Promise<void> {
  const res = await api('POST', '/gw/createInventoryDevice', {
    name,
    groups,
    variables: {
      gw_host: sim.host,
      gw_port: sim.port,
      gw_network_os: 'cisco_ios',
      gw_user: USER,
      gw_password: PASSWORD,
      gw_become: true,
      gw_become_pass: ENABLE,
    },
  });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  const started = await Promise.all([
    startPlatform('devices-cli-password'),
    ...['sim-edge1', 'sim-edge2'].map((hostname) =>
      startCliSimulator({
        deviceType: 'cisco_ios',
        hostname,
        username: USER,
        password: PASSWORD,
        enableSecret: ENABLE,
        startPrivileged: false,
      }),
    ),
    // every reply a little late: a command takes longer than a one-second profile timeout
    startCliSimulator({
      deviceType: 'cisco_ios',
      hostname: 'sim-slow',
      username: USER,
      password: PASSWORD,
      startPrivileged: true,
      slowMs: 400,
    }),
    startNetconfLab(),
  ]);
  platform = started[0] as Platform;
  sims.push(...(started.slice(1, 4) as CliSimulator[]));
  netconf = started[4] as NetconfLab;
  home = createHome();
  home.env.NAP_URL = platform.url;
  home.env.NAP_USERNAME = 'admin';
  home.env.NAP_PASSWORD = platform.password;
  home.env.NO_COLOR = '1';
  work = mkdtempSync(path.join(os.tmpdir(), 'nap-cli-devices-'));
  const login = await fetch(`${platform.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: { username: 'admin', password: platform.password } }),
  });
  token = await login.text();
  const [edge1, edge2, slow] = sims as [CliSimulator, CliSimulator, CliSimulator];
  await addDevice('edge-1', edge1, ['edge']);
  await addDevice('edge-2', edge2, ['edge']);
  await addDevice('slow-1', slow, ['lab']);
  const created = await api('POST', '/gw/createInventoryDevice', {
    name: 'core-1',
    variables: {
      gw_host: netconf.sshd.host,
      gw_netconf_port: netconf.sshd.port,
      gw_user: netconf.sshd.username,
      gw_password: netconf.sshd.password,
    },
  });
  expect(created.status).toBe(200);
  // the NETCONF agent's sshd is a Linux host too: each command in its own exec channel, standard error apart
  const host = await api('POST', '/gw/createInventoryDevice', {
    name: 'host-1',
    variables: {
      gw_host: netconf.sshd.host,
      gw_port: netconf.sshd.port,
      gw_network_os: 'linux',
      gw_user: netconf.sshd.username,
      gw_password: netconf.sshd.password,
    },
  });
  expect(host.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  await Promise.all(sims.map((s) => s.stop()));
  await netconf?.stop();
  if (home !== undefined) rmSync(home.home, { recursive: true, force: true });
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('nap devices command', () => {
  it("prints each command's output under the device's prompt, from the device itself", async () => {
    const r = await run(['devices', 'command', 'edge-1', 'show version', 'show ip interface brief']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(
      /^edge-1# show version\n[\s\S]*sim-edge1 uptime is [\s\S]*\nedge-1# show ip interface brief\nInterface\s+IP-Address/,
    );

    const json = await run(['devices', 'command', 'edge-2', 'show clock', '-o', 'json']);
    expect(json.code).toBe(0);
    expect(json.json()).toMatchObject({ status: 'success', result: [{ command: 'show clock', failed: false }] });
  });

  it('stops at the command the device refuses: the outputs so far, which command, what was not sent (exit 1)', async () => {
    const r = await run(['devices', 'command', 'edge-1', 'show clock', 'show bogus', 'show version', 'show users']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^edge-1# show clock\n.*UTC.*\n\nedge-1# show bogus\n[\s\S]*% Invalid input detected/);
    expect(r.stdout).not.toContain('show version');
    expect(r.stderr).toBe('nap: edge-1 refused "show bogus"; the 2 commands after it were not sent\n');
    const last = await run(['devices', 'command', 'edge-1', 'show bogus']);
    expect(last.stderr).toBe('nap: edge-1 refused "show bogus"\n');
  });

  it('shows why a linux device refused a command: its standard error under the output, and its exit status', async () => {
    const r = await run(['devices', 'command', 'host-1', 'echo up', 'echo half; echo no such interface >&2; exit 3', 'echo never']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('host-1# echo up\nup\n\nhost-1# echo half; echo no such interface >&2; exit 3\nhalf\nno such interface\n');
    expect(r.stderr).toBe(
      'nap: host-1 refused "echo half; echo no such interface >&2; exit 3" (exit status 3); the command after it was not sent\n',
    );
  });

  it("waits as long as the platform lets a device operation take, not only the profile's timeout", async () => {
    const r = await run(['devices', 'command', 'slow-1', 'show clock'], { env: { NAP_TIMEOUT: '1' } });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^slow-1# show clock\n.*UTC/);
    // any other call keeps the profile's timeout
    expect((await run(['get', 'devices'], { env: { NAP_TIMEOUT: '1' } })).code).toBe(0);
  });

  it("answers a device it cannot reach with the platform's code, and a usage error without commands", async () => {
    const gone = await startCliSimulator({ deviceType: 'cisco_ios', username: USER, password: PASSWORD, startPrivileged: true });
    await addDevice('gone-1', gone, []);
    await gone.stop();
    const r = await run(['devices', 'command', 'gone-1', 'show clock']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^nap: POST \/gw\/sshSendCommandExec failed: .*\(502 DEVICE_UNREACHABLE\)\n$/);
    expect(r.stdout).toBe('');

    const none = await run(['devices', 'command', 'edge-1']);
    expect(none.code).toBe(4);
    const badTimeout = await run(['devices', 'command', 'edge-1', 'show clock', '--read-timeout', 'soon']);
    expect(badTimeout).toMatchObject({ code: 4, stderr: 'nap: --read-timeout soon: expected a duration such as 30s, 5m, 1h or 2d\n' });
  });
});

describe('nap devices configure', () => {
  it('sends the lines in configuration mode and prints the session; the change is on the device', async () => {
    const r = await run(['devices', 'configure', 'edge-1', 'interface GigabitEthernet0/1', 'description uplink to core-2', 'no shutdown']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain('sim-edge1(config-if)#description uplink to core-2');
    const shown = await run(['devices', 'command', 'edge-1', 'show running-config interface GigabitEthernet0/1']);
    expect(shown.stdout).toMatch(/^ description uplink to core-2$/m);
    expect(shown.stdout).not.toMatch(/^ shutdown$/m);
  });

  it('reads the lines from stdin without comments, and names each line the device refused (exit 1)', async () => {
    const r = await run(['devices', 'configure', 'edge-2', '-f', '-'], {
      input: '! the uplink\ninterface GigabitEthernet0/2\n\n descripton typo here\n description to core-9\n',
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('% Invalid input detected');
    expect(r.stderr).toBe(
      "refused  descripton typo here: % Invalid input detected at '^' marker.\nnap: edge-2 refused 1 of 3 configuration lines; the others were sent\n",
    );
    const shown = await run(['devices', 'command', 'edge-2', 'show running-config interface GigabitEthernet0/2']);
    expect(shown.stdout).toMatch(/^ description to core-9$/m);

    const nothing = await run(['devices', 'configure', 'edge-2']);
    expect(nothing.code).toBe(4);
    // a file that is not there: nothing is sent
    expect(await run(['devices', 'configure', 'edge-2', '-f', path.join(work, 'no-such.cfg')])).toMatchObject({
      code: 4,
      stderr: `nap: cannot read ${path.join(work, 'no-such.cfg')}: no such file\n`,
    });
  });
});

describe('nap devices check', () => {
  const template = [
    'name: uplink-check',
    'os: cisco_ios',
    'passRule: true',
    'ignoreWarnings: false',
    'commands:',
    '  - command: show running-config interface <!intf!>',
    '    passRule: true',
    '    rules:',
    '      - {rule: "description <!desc!>", eval: contains, severity: error}',
    '      - {rule: "^ shutdown", eval: "!RegEx", flags: {multiline: true}, severity: warning}',
    '  - command: show version',
    '    passRule: true',
    '    rules:',
    '      - {rule: "Version \\\\d+\\\\.\\\\d+", eval: RegEx, severity: error}',
  ].join('\n');
  const vars = ['--var', 'intf=GigabitEthernet0/1', '--var', 'desc=uplink to core-2'];

  beforeAll(async () => {
    const file = path.join(work, 'uplink-check.yaml');
    writeFileSync(file, `${template}\n`);
    expect((await run(['create', 'command-template', '-f', file])).code).toBe(0);
    // edge-1 carries the uplink (and the test does not depend on the order of the configure tests)
    const configured = await run([
      'devices',
      'configure',
      'edge-1',
      'interface GigabitEthernet0/1',
      'description uplink to core-2',
      'no shutdown',
    ]);
    expect(configured.code).toBe(0);
  });

  it('passes on a device whose output holds every rule (exit 0)', async () => {
    const r = await run(['devices', 'check', 'uplink-check', 'edge-1', ...vars]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 4)).toEqual([
      'edge-1  passed',
      '  ✔ show running-config interface GigabitEthernet0/1',
      '  ✔ show version',
      'uplink-check passed on edge-1',
    ]);
    const runId = /^the run is kept: nap api get \/mop\/runs\/(\S+)$/.exec(lines[4] ?? '')?.[1];
    expect(runId).toBeDefined();
    expect(await api('GET', `/mop/runs/${runId}`)).toMatchObject({ status: 200, body: { template: 'uplink-check', result: true } });
  });

  it('reports a group device by device, with the rules a failed command did not pass (exit 1)', async () => {
    const r = await run(['devices', 'check', 'uplink-check', '--group', 'edge', ...vars]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n').slice(0, 9)).toEqual([
      'edge-1  passed',
      '  ✔ show running-config interface GigabitEthernet0/1',
      '  ✔ show version',
      'edge-2  FAILED',
      '  ✘ show running-config interface GigabitEthernet0/1',
      '      ✘ description uplink to core-2 (contains)',
      '      ✘ ^ shutdown (!RegEx, warning)',
      '  ✔ show version',
      'uplink-check failed on 1 of 2 devices',
    ]);

    const json = await run(['devices', 'check', 'uplink-check', 'edge-2', ...vars, '-o', 'json']);
    expect(json.code).toBe(1);
    expect(json.json()).toMatchObject({ name: 'uplink-check', result: false });
    expect(json.stderr).toBe('nap: the check uplink-check did not pass\n');
  });

  it('shows a command skipped for a variable without a value, with why', async () => {
    const r = await run(['devices', 'check', 'uplink-check', 'edge-1', '--var', 'desc=x']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^ {2}– show running-config interface <!intf!> \(.*"intf".*\)$/m);
  });

  it('refuses a check with no device, an empty group and an unknown template', async () => {
    expect(await run(['devices', 'check', 'uplink-check'])).toMatchObject({
      code: 4,
      stderr: 'nap: nap devices check uplink-check: name the devices, or a group with --group\n',
    });
    expect(await run(['devices', 'check', 'uplink-check', '--group', 'nowhere'])).toMatchObject({
      code: 1,
      stderr: 'nap: no device of the inventory is in group "nowhere"\n',
    });
    const unknown = await run(['devices', 'check', 'no-such-check', 'edge-1']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('(404 TEMPLATE_NOT_FOUND)');
  });
});

describe('nap devices checks', () => {
  it('lists the checks that ran on a device, newest first, each judged for that device alone', async () => {
    const r = await run(['devices', 'checks', 'edge-1']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const [header, ...rows] = r.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^STARTED\s+TEMPLATE\s+RESULT\s+DEVICES\s+BY\s+RUN$/);
    // the check with a variable missing, the group's (edge-2 failed it, edge-1 did not), the first
    expect(rows.map((row) => row.split(/\s+/).slice(1, 5))).toEqual([
      ['uplink-check', 'failed', '1', 'admin'],
      ['uplink-check', 'passed', '2', 'admin'],
      ['uplink-check', 'passed', '1', 'admin'],
    ]);
    const edge2 = await run(['devices', 'checks', 'edge-2', '--limit', '1', '-o', 'json']);
    const runs = edge2.json<{ template: string; result: boolean; devices: string[] }[]>();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ template: 'uplink-check', result: false });

    expect(await run(['devices', 'checks', 'edge-1', '--template', 'no-such-check'])).toMatchObject({
      code: 0,
      stdout: 'no command template has run on edge-1\n',
    });
    expect((await run(['devices', 'checks', 'edge-1', '--limit', '0'])).code).toBe(4);
  });
});

describe('nap devices get-config', () => {
  it('prints the running configuration read over NETCONF', async () => {
    const r = await run(['devices', 'get-config', 'core-1']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^<[a-z]/);
    expect(r.stdout).toContain('xmlns=');
    const json = await run(['devices', 'get-config', 'core-1', '--source', 'running', '-o', 'json']);
    expect(json.json()).toMatchObject({ status: 'success', host: 'core-1', source: 'running' });
  });

  it("answers a datastore the device has not with the platform's error", async () => {
    const r = await run(['devices', 'get-config', 'core-1', '--source', 'nonsense']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^nap: POST \/gw\/netconf\/get_config\/execute failed: .*\(400 /);
  });
});
