import { SECRET_MASK } from '@nap/contracts';
import { startCliSimulator } from '@nap/lab';
import type { CliSimulator } from '@nap/lab';
import { startGatewayPlatform } from './platform';
import type { GatewayPlatform } from './platform';

let gw: GatewayPlatform;
let ios: CliSimulator;
let junos: CliSimulator;
let eos: CliSimulator;

const IOS_PASSWORD = 'ios-Pa55word-never-shown';
const ENABLE = 'ios-enable-secret-never-shown';
// a device that repeats its own credentials, as a login banner or a failed login may
const ECHO = (password: string, enable: string) => `% Access denied for admin with ${password}; enable is ${enable}`;

beforeAll(async () => {
  gw = await startGatewayPlatform();
  ios = await startCliSimulator({
    deviceType: 'cisco_ios',
    hostname: 'edge1',
    password: IOS_PASSWORD,
    enableSecret: ENABLE,
    commands: { 'show nap-login': ECHO(IOS_PASSWORD, ENABLE) },
  });
  junos = await startCliSimulator({ deviceType: 'juniper_junos', hostname: 'core1', username: 'netops' });
  eos = await startCliSimulator({ deviceType: 'arista_eos', hostname: 'leaf1' });
  const devices: [string, CliSimulator, Record<string, unknown>][] = [
    ['edge1', ios, { gw_become: true, gw_become_pass: ENABLE }],
    ['core1', junos, {}],
    ['leaf1', eos, { gw_become: true }],
  ];
  for (const [name, sim, extra] of devices) {
    const res = await gw.http('POST', '/gw/createInventoryDevice', {
      name,
      variables: {
        gw_host: sim.host,
        gw_port: sim.port,
        gw_user: sim.username,
        gw_password: sim.password,
        gw_network_os: sim.deviceType,
        ...extra,
      },
    });
    expect(res.status).toBe(200);
  }
});

afterAll(async () => {
  await gw?.stop();
  await Promise.all([ios?.stop(), junos?.stop(), eos?.stop()]);
});

function send(host: string, commands: string[], connection_options: Record<string, unknown>) {
  return gw.http('POST', '/gw/ssh/send_command', { sshSendCommandParameters: { host, commands, connection_options } });
}

describe('POST /gw/ssh/send_command', () => {
  it('runs the commands on an address with the given credentials: { status, code, result[{ command, output }] }', async () => {
    const res = await send('127.0.0.1', ['show clock', 'show version'], {
      device_type: 'arista_eos',
      username: eos.username,
      password: eos.password,
      port: eos.port,
    });
    expect(res.status).toBe(200);
    const body = res.body as { status: string; code: number; result: { command: string; output: string }[] };
    expect(body.status).toBe('success');
    expect(body.code).toBe(200);
    expect(body.result.map((r) => r.command)).toEqual(['show clock', 'show version']);
    expect(body.result[1]?.output).toContain('Software image version: 4.30.1F');
    expect(Object.keys(body.result[0] ?? {})).toEqual(['command', 'output']);
  });

  it('fills address, port and credentials from an inventory device named as host', async () => {
    const res = await send('edge1', ['show run | i ^hostname'], { device_type: 'cisco_ios' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success', code: 200, result: [{ command: 'show run | i ^hostname', output: 'hostname edge1' }] });
    // Privileged mode came from the inventory's gw_become / gw_become_pass.
    expect(ios.commandLog()).toContain('enable');
    expect(JSON.stringify(res.body)).not.toContain(IOS_PASSWORD);
  });

  it('reports the device error lines in the output, not hidden', async () => {
    const res = await send('leaf1', ['show nonsense'], { device_type: 'arista_eos' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      result: [{ command: 'show nonsense', output: expect.stringContaining('% Invalid input') as unknown }],
    });
  });

  it('persists the host key it trusted on first use in the store', async () => {
    const entry = await gw.store.collection('known_hosts').findOne({ _id: `127.0.0.1:${ios.port}` });
    expect(entry).toMatchObject({ fingerprint: ios.hostKeyFingerprint });
    const details = await gw.call('getDeviceDetailsRaw', { name: 'edge1' });
    expect(details).toMatchObject({ hostKeyFingerprint: ios.hostKeyFingerprint });
  });
});

describe('netmiko wrappers', () => {
  it('sshSendCommandExec takes send_command parameters and runs several commands in one session', async () => {
    const one = await gw.http('POST', '/gw/sshSendCommandExec', { host: 'leaf1', command_string: 'show clock', strip_prompt: false });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ status: 'success', code: 200, result: [{ command: 'show clock', failed: false }] });
    expect((one.body as { result: { output: string }[] }).result[0]?.output).toMatch(/leaf1#$/);
    const several = await gw.http('POST', '/gw/sshSendCommandExec', { host: 'core1', commands: ['show version', 'show system uptime'] });
    expect((several.body as { result: { output: string }[] }).result.map((r) => r.output.split('\n')[0])).toEqual([
      'Hostname: core1',
      expect.stringMatching(/^Current time:/),
    ]);
  });

  it('sshSendCommandExec stops at the first command the device refuses, with 502 DEVICE_COMMAND_FAILED', async () => {
    const res = await gw.http('POST', '/gw/sshSendCommandExec', {
      host: 'edge1',
      commands: ['show clock', 'show frobnicate', 'show version'],
    });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({
      code: 'DEVICE_COMMAND_FAILED',
      details: { command: 'show frobnicate', errorLines: ["% Invalid input detected at '^' marker."] },
    });
    expect((res.body as { details: { results: unknown[] } }).details.results).toHaveLength(2);
  });

  it('sshSendConfigSet configures the device and reports error lines per command', async () => {
    const res = await gw.http('POST', '/gw/sshSendConfigSet', {
      host: 'edge1',
      config_commands: ['interface Loopback42', 'description set by nap'],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'success', code: 200, result: { failed: false, errors: [] } });
    expect(ios.runningConfig()).toContain('interface Loopback42\n description set by nap');
    const bad = await gw.http('POST', '/gw/sshSendConfigSet', { host: 'edge1', config_commands: ['frobnicate'] });
    expect(bad.body).toMatchObject({
      status: 'error',
      result: { failed: true, errors: [{ command: 'frobnicate', line: "% Invalid input detected at '^' marker." }] },
    });
    const stopped = await gw.http('POST', '/gw/sshSendConfigSet', {
      host: 'edge1',
      config_commands: ['frobnicate'],
      error_pattern: '% Invalid',
    });
    expect(stopped.status).toBe(502);
    expect(stopped.body).toMatchObject({ code: 'DEVICE_COMMAND_FAILED' });
  });

  it("runs a caller's patterns in linear time and refuses those that need backtracking or do not compile", async () => {
    // with backtracking, `^(a+)+$` against 40 a's and a b takes 2^40 steps in the process's event loop
    const redos = await gw.http('POST', '/gw/sshSendConfigSet', {
      host: 'edge1',
      config_commands: [`${'a'.repeat(40)}b`],
      bypass_commands: '^(a+)+$',
      error_pattern: '^(\\s*%+)+ Invalid$',
    });
    expect(redos.status).toBe(200);
    expect(redos.body).toMatchObject({ result: { failed: true, errors: [{ line: "% Invalid input detected at '^' marker." }] } });
    const lookaround = await gw.http('POST', '/gw/sshSendConfigSet', {
      host: 'edge1',
      config_commands: ['interface Loopback43'],
      error_pattern: '(?<=%) Invalid',
    });
    expect(lookaround.status).toBe(400);
    expect(lookaround.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('error_pattern "(?<=%) Invalid" needs backtracking') as unknown,
      details: [{ member: 'error_pattern' }],
    });
    const broken = await gw.http('POST', '/gw/sshSendCommandExec', { host: 'edge1', commands: ['show clock'], expect_string: '(' });
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'expect_string' }] });
  });
});

describe('device operations (bus)', () => {
  it('runCommand answers the raw output as the string member response', async () => {
    const res = await gw.call('runCommand', { device: 'edge1', command: 'show ip interface brief' });
    expect(res).toMatchObject({ status: 'success', device: 'edge1', command: 'show ip interface brief', failed: false, errorLines: [] });
    expect((res as { response: string }).response).toMatch(/^Interface\s+IP-Address/);
    const bad = await gw.call('runCommand', { device: 'edge1', command: 'show bogus' });
    expect(bad).toMatchObject({ status: 'error', failed: true, errorLines: ["% Invalid input detected at '^' marker."] });
    expect(await gw.callError('runCommand', { device: 'nope', command: 'show clock' })).toMatchObject({
      code: 'DEVICE_NOT_FOUND',
      status: 404,
    });
  });

  it('getConfig, setConfig, loadConfig, restoreConfig and timestamped backups per device', async () => {
    const got = await gw.call<{ config: string; backupId: string }>('getConfig', { name: 'edge1', backup: true });
    expect(got.config).toContain('hostname edge1');
    expect(got.backupId).toEqual(expect.any(String));

    const set = await gw.call<{ status: string; backupId: string }>('setConfig', {
      name: 'edge1',
      config: ['ip domain name changed.example'],
    });
    expect(set).toMatchObject({ status: 'success', failed: false, errors: [] });
    expect(ios.runningConfig()).toContain('ip domain name changed.example');

    const loaded = await gw.call('loadConfig', {
      name: 'edge1',
      config: '!\nbanner motd ^nap^\n!\ninterface Loopback77\n description loaded\n!\nend\n',
    });
    expect(loaded).toMatchObject({ status: 'success' });
    expect(ios.runningConfig()).toContain('interface Loopback77\n description loaded');

    const backups = await gw.call<{ results: { id: string; created: string; reason: string }[]; total: number }>('getConfigBackups', {
      name: 'edge1',
    });
    expect(backups.total).toBe(3);
    expect(backups.results.map((b) => b.reason)).toEqual(['loadConfig', 'setConfig', 'getConfig']);
    for (const b of backups.results) expect(Number.isNaN(Date.parse(b.created))).toBe(false);

    // Restore the backup taken by setConfig (before the domain change): the old domain name is merged back.
    const restored = await gw.call('restoreConfig', { name: 'edge1', backupId: set.backupId });
    expect(restored).toMatchObject({ status: 'success', name: 'edge1' });
    expect(ios.runningConfig()).toContain('ip domain name lab.example');
    expect(await gw.callError('restoreConfig', { name: 'edge1', backupId: 'no-such-backup' })).toMatchObject({
      code: 'DEVICE_BACKUP_NOT_FOUND',
      status: 404,
    });
  });

  it('setConfig on Junos commits', async () => {
    const res = await gw.call('setConfig', { name: 'core1', config: ['set system location lab-hall-3'] });
    expect(res).toMatchObject({ status: 'success' });
    expect(junos.runningConfig()).toContain('location lab-hall-3;');
    const cfg = await gw.call<{ config: string }>('getConfig', { name: 'core1' });
    expect(cfg.config).toContain('host-name core1;');
  });

  it('getDeviceHealth, getDeviceInfo, connectDevice, isAlive and getOperationalData use the per-type commands', async () => {
    const health = await gw.call('getDeviceHealth', { name: 'edge1' });
    expect(health).toMatchObject({
      name: 'edge1',
      cpu: { utilizationPercent: 3, oneMinutePercent: 2 },
      memory: { totalBytes: 399446576, usedBytes: 140010232 },
    });
    const junosHealth = await gw.call('getDeviceHealth', { name: 'core1' });
    expect(junosHealth).toMatchObject({ cpu: { utilizationPercent: 5 }, memory: { utilizationPercent: 50 } });
    expect(junos.commandLog()).toContain('show chassis routing-engine');

    const info = await gw.call('getDeviceInfo', { name: 'leaf1' });
    expect(info).toMatchObject({ name: 'leaf1', type: 'arista_eos' });
    expect((info as { macAddresses: string[] }).macAddresses).toContain('52:54:00:12:34:56');
    const iosInfo = await gw.call<{ macAddresses: string[] }>('getDeviceInfo', { name: 'edge1' });
    expect(iosInfo.macAddresses.length).toBeGreaterThan(0);

    expect(await gw.call('connectDevice', { name: 'core1' })).toMatchObject({
      name: 'core1',
      connected: true,
      prompt: 'netops@core1> ',
      hostKeyFingerprint: junos.hostKeyFingerprint,
    });
    expect(await gw.call('isAlive', { name: 'leaf1' })).toEqual({ name: 'leaf1', alive: true });

    const op = await gw.call<{ data: Record<string, string> }>('getOperationalData', { name: 'core1', filter: ['routes', 'arp'] });
    expect(Object.keys(op.data)).toEqual(['routes', 'arp']);
    expect(op.data.routes).toContain('inet.0');
    expect(op.data.arp).toContain('52:54:00:ab:cd:ef');
  });
});

describe('secrets', () => {
  it('never reach the log or an answer', async () => {
    const listed = await gw.http('POST', '/gw/getInventoryDevices', {});
    expect(JSON.stringify(listed.body)).not.toContain(IOS_PASSWORD);
    expect(JSON.stringify(listed.body)).not.toContain(ENABLE);
    const logs = gw.logs();
    expect(logs).toContain('Inventory device created');
    expect(logs).not.toContain(IOS_PASSWORD);
    expect(logs).not.toContain(ENABLE);
    expect(await gw.callError('getOperationalData', { name: 'edge1', filter: 'configure terminal' })).toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });

  it('the device repeating its own password or enable secret: masked in results, errors, answered backups and the log; a backup keeps them for a restore', async () => {
    const masked = ECHO(SECRET_MASK, SECRET_MASK);
    const ran = await gw.call<{ response: string; errorLines: string[] }>('runCommand', { device: 'edge1', command: 'show nap-login' });
    expect([ran.response, ran.errorLines]).toEqual([masked, [masked]]);
    const refused = await gw.http('POST', '/gw/sshSendCommandExec', { host: 'edge1', commands: ['show clock', 'show nap-login'] });
    expect(refused.status).toBe(502);
    expect(refused.body).toMatchObject({ code: 'DEVICE_COMMAND_FAILED', details: { command: 'show nap-login', errorLines: [masked] } });

    // the device's configuration holds its own password in clear (IOS `password 0`)
    const user = `username backup privilege 15 password 0 ${IOS_PASSWORD}`;
    const set = await gw.call<{ output: string }>('setConfig', { name: 'edge1', config: [user] });
    expect(set.output).toContain(`username backup privilege 15 password 0 ${SECRET_MASK}`);
    expect(ios.runningConfig()).toContain(user);
    const got = await gw.call<{ config: string; backupId: string }>('getConfig', { name: 'edge1', backup: true });
    expect(got.config).toContain(`username backup privilege 15 password 0 ${SECRET_MASK}`);
    const backups = await gw.call<{ results: { id: string; config: string }[] }>('getConfigBackups', { name: 'edge1', withConfig: true });
    expect(backups.results.find((b) => b.id === got.backupId)?.config).toContain(`password 0 ${SECRET_MASK}`);
    const sentBefore = ios.commandLog().filter((c) => c.includes(IOS_PASSWORD)).length;
    expect(await gw.call('restoreConfig', { name: 'edge1', backupId: got.backupId })).toMatchObject({ status: 'success' });
    expect(ios.commandLog().filter((c) => c.includes(IOS_PASSWORD)).length).toBe(sentBefore + 1);

    const seen = JSON.stringify([ran, refused.body, set, got, backups]) + gw.logs();
    expect(seen).not.toContain(IOS_PASSWORD);
    expect(seen).not.toContain(ENABLE);
  });
});
