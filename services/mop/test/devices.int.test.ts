import { createBusClient } from '@nap/bus';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import type { CommandResult, TemplateRunResult } from '@nap/contracts';
import { startCliSimulator, startSshd } from '@nap/lab';
import type { CliSimulator, SimulatedDeviceType } from '@nap/lab';
import { fixtureTemplates } from './fixtures';
import { addSimulator } from './lab-devices';

let platform: TestPlatform;
let token: string;
const sims: CliSimulator[] = [];
const DEVICES: [string, SimulatedDeviceType][] = [
  ['ios-1', 'cisco_ios'],
  ['ios-2', 'cisco_ios'],
  ['eos-1', 'arista_eos'],
  ['nxos-1', 'cisco_nxos'],
  ['junos-1', 'juniper_junos'],
];

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
  for (const [name, deviceType] of DEVICES) {
    const sim = await startCliSimulator({
      deviceType,
      hostname: name.replace('-', ''),
      startPrivileged: true,
      commands: { 'show vlan 10': '10   users   active    Gi0/1', 'show vlan 20': '20   voice   active    Gi0/2' },
    });
    sims.push(sim);
    await addSimulator(platform, token, name, sim);
  }
}, 60_000);

afterAll(async () => {
  for (const sim of sims) await sim.stop();
  await platform?.stop();
});

const http = (method: string, route: string, body?: unknown) =>
  platform.http(method, route, { token, ...(body !== undefined ? { body } : {}) });

describe('commands on lab devices', () => {
  it('RunCommand runs one command with variables; a missing variable is 422 naming it', async () => {
    const res = await http('POST', '/mop/RunCommand', { command: 'show <!what!>', variables: { what: 'version' }, device: 'ios-1' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      raw: 'show <!what!>',
      evaluated: 'show version',
      device: 'ios-1',
      response: expect.stringContaining('Cisco IOS Software'),
      parameters: { what: 'version' },
    });
    const missing = await http('POST', '/mop/RunCommand', { command: 'show <!what!>', device: 'ios-1' });
    expect(missing).toMatchObject({ status: 422, body: { code: 'MOP_VARIABLE_MISSING', message: expect.stringContaining('"what"') } });
    const unknown = await http('POST', '/mop/RunCommand', { command: 'show version', device: 'no-such-device' });
    expect(unknown.status).toBe(404);
  });

  it('RunCommandDevices runs on every device in parallel and reports a failing device in its entry', async () => {
    const res = await http('POST', '/mop/RunCommandDevices', {
      command: 'show version',
      devices: ['ios-1', 'eos-1', 'nxos-1', 'missing-1'],
    });
    expect(res.status).toBe(200);
    const entries = res.body as { device: string; response: string; error?: string }[];
    expect(entries.map((e) => e.device)).toEqual(['ios-1', 'eos-1', 'nxos-1', 'missing-1']);
    expect(entries[1]?.response).toContain('Arista');
    expect(entries[2]?.response).toContain('NX-OS');
    expect(entries[3]?.error).toMatch(/missing-1/);
  });

  it('passThru sends the command as is and GetBootFlash reads the boot image', async () => {
    expect(await http('POST', '/mop/passThru/ios-2', { command: 'show clock' })).toMatchObject({
      status: 200,
      body: { device: 'ios-2', command: 'show clock', response: expect.stringMatching(/UTC/) },
    });
    expect(await http('POST', '/mop/GetBootFlash', { device: 'ios-1' })).toMatchObject({
      status: 200,
      body: { device: 'ios-1', image: 'flash0:/vios-adventerprisek9-m' },
    });
  });

  it('shows why a command failed on a linux device: its standard error follows its output, for the run and its rules', async () => {
    const sshd = await startSshd();
    try {
      const created = await http('POST', '/gw/createInventoryDevice', {
        name: 'lab-linux',
        variables: { gw_host: sshd.host, gw_port: sshd.port, gw_network_os: 'linux', gw_user: sshd.username, gw_password: sshd.password },
      });
      expect(created.status).toBe(200);
      // each command in an exec channel of its own: bash writes why it failed apart from the output
      const res = await http('POST', '/mop/RunCommand', {
        command: 'echo half; <!cmd!>',
        variables: { cmd: 'show version' },
        device: 'lab-linux',
      });
      expect(res.status).toBe(200);
      expect((res.body as { response: string }).response).toMatch(/^half\n.*show: command not found$/);
      const ok = await http('POST', '/mop/RunCommand', { command: 'echo up', device: 'lab-linux' });
      expect((ok.body as { response: string }).response).toBe('up');
    } finally {
      await http('DELETE', '/gw/deleteInventoryDevice', { name: 'lab-linux' });
      await sshd.stop();
    }
  }, 120_000);

  it('filters inventory devices by name', async () => {
    const byName = await http('GET', '/mop/devices/ios');
    expect((byName.body as { name: string }[]).map((d) => d.name)).toEqual(['ios-1', 'ios-2']);
    expect(await http('GET', '/mop/devices/detailed/OS')).toMatchObject({ body: { total: 5, returned: 5 } });
    const windowed = await http('POST', '/mop/deviceObjects', { substring: '-1', options: { start: 1, limit: 2 } });
    expect((windowed.body as { name: string }[]).map((d) => d.name)).toEqual(['ios-1', 'junos-1']);
  });

  it('names body.options.filter, where the caller wrote it, when a device filter is refused', async () => {
    const res = await http('POST', '/mop/deviceObjects', { options: { filter: { gw_password: 'guess' } } });
    expect(res).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED', details: [{ member: 'body.options.filter' }] },
    });
    expect((res.body as { message: string }).message).toContain('gw_password');
    const byOs = await http('POST', '/mop/deviceObjects', { options: { filter: { gw_network_os: 'cisco_ios' } } });
    expect(byOs.status).toBe(200);
  });
});

describe('templates on lab devices', () => {
  const template = {
    name: 'lab-checks',
    passRule: true,
    ignoreWarnings: false,
    commands: [
      {
        command: 'show version',
        passRule: true,
        rules: [
          { rule: 'Version <!version!>', eval: 'contains', severity: 'error' },
          { rule: 'uptime is (\\d+) days', eval: 'RegEx', severity: 'error' },
        ],
      },
      { command: 'show vlan <!vlan!>', passRule: true, rules: [{ rule: 'active', eval: 'contains1', severity: 'error' }] },
      {
        command: 'show memory statistics',
        passRule: true,
        rules: [
          {
            rule: '/Processor\\s+\\S+\\s+(\\d+)/',
            ruleB: '/Processor\\s+\\S+\\s+\\S+\\s+(\\d+)/',
            eval: '#comparison',
            evaluator: '%',
            percentage: 90,
            severity: 'warning',
          },
        ],
      },
      { command: 'dir <!image!>', passRule: true, rules: [{ rule: 'No such file', eval: '!contains' }] },
    ],
  };

  it('RunCommandTemplate answers the exact result shape, one entry per command per device per element, and keeps the run', async () => {
    expect((await http('POST', '/mop/createTemplate', { mop: template })).status).toBe(200);
    const res = await http('POST', '/mop/RunCommandTemplate', {
      template: 'lab-checks',
      variables: { version: '15.9', vlan: [10, 20] },
      devices: ['ios-1', 'ios-2'],
    });
    expect(res.status).toBe(200);
    const out = res.body as TemplateRunResult & { runId: string };
    expect(Object.keys(out).sort()).toEqual(['all_pass_flag', 'commands_results', 'name', 'result', 'runId']);
    expect(out.commands_results.map((r) => `${r.device}|${r.evaluated}`)).toEqual([
      'ios-1|show version',
      'ios-1|show vlan 10',
      'ios-1|show vlan 20',
      'ios-1|show memory statistics',
      'ios-1|dir <!image!>',
      'ios-2|show version',
      'ios-2|show vlan 10',
      'ios-2|show vlan 20',
      'ios-2|show memory statistics',
      'ios-2|dir <!image!>',
    ]);
    for (const entry of out.commands_results) {
      expect(
        Object.keys(entry)
          .filter((k) => !['skipped', 'message'].includes(k))
          .sort(),
      ).toEqual(['all_pass_flag', 'device', 'evaluated', 'parameters', 'raw', 'response', 'result', 'rules'].sort());
      for (const rule of entry.rules) expect(Object.keys(rule)).toEqual(expect.arrayContaining(['rule', 'eval', 'severity', 'result']));
    }
    const [version, vlan10, , memory, dir] = out.commands_results as CommandResult[];
    expect(version).toMatchObject({ result: true, parameters: {}, rules: [{ rule: 'Version 15.9', result: true }, { result: true }] });
    expect(vlan10).toMatchObject({
      raw: 'show vlan <!vlan!>',
      parameters: { vlan: 10 },
      result: true,
      response: expect.stringContaining('users'),
    });
    expect(memory).toMatchObject({ result: true, rules: [{ eval: '#comparison', severity: 'warning', result: true }] });
    expect(dir).toMatchObject({ skipped: true, result: false, message: expect.stringContaining('"image"') });
    expect(out).toMatchObject({ name: 'lab-checks', all_pass_flag: true, result: false });

    const kept = await http('GET', `/mop/runs/${out.runId}`);
    expect(kept.body).toMatchObject({
      kind: 'command',
      template: 'lab-checks',
      devices: ['ios-1', 'ios-2'],
      result: false,
      output: { commands_results: expect.any(Array) },
    });
    const history = await http('GET', '/mop/runs?device=ios-2&template=lab-checks');
    expect((history.body as { items: { _id: string }[] }).items.map((i) => i._id)).toContain(out.runId);
  });

  it('RunCommandTemplateSingleCommand runs one command by index, by id or name', async () => {
    const [stored] = (await http('GET', '/mop/listATemplate/lab-checks')).body as { _id: string }[];
    const res = await http('POST', '/mop/RunCommandTemplateSingleCommand', {
      templateId: stored?._id,
      commandIndex: 0,
      variables: { version: '15.9' },
      devices: ['ios-1', 'eos-1'],
    });
    expect(res.status).toBe(200);
    const out = res.body as TemplateRunResult;
    expect(out.commands_results.map((r) => `${r.device}|${r.evaluated}|${r.result}`)).toEqual([
      'ios-1|show version|true',
      'eos-1|show version|false',
    ]);
    expect(out.result).toBe(false);
    const byName = await http('POST', '/mop/RunCommandTemplateSingleCommand', {
      templateId: 'lab-checks',
      commandIndex: 9,
      devices: ['ios-1'],
    });
    expect(byName).toMatchObject({ status: 422, body: { code: 'MOP_COMMAND_INDEX_OUT_OF_RANGE' } });
  });

  it('compares runs before and after a configuration change with an analytic template', async () => {
    const checks = {
      name: 'hostname-checks',
      passRule: true,
      commands: [{ command: 'show running-config', passRule: true, rules: [{ rule: 'hostname', eval: 'contains' }] }],
    };
    expect((await http('POST', '/mop/createTemplate', { mop: checks })).status).toBe(200);
    const analytic = {
      name: 'hostname-compare',
      passRule: true,
      prepostCommands: [
        {
          preRawCommand: 'show running-config',
          postRawCommand: 'show running-config',
          passRule: true,
          rules: [
            { type: 'regex', preRegex: 'hostname (\\S+)', postRegex: 'hostname (\\S+)', evaluation: '!=' },
            { type: 'matches', rule: 'interface \\S+' },
          ],
        },
      ],
    };
    expect((await http('POST', '/mop/createAnalyticTemplate', { template: analytic })).status).toBe(200);
    const pre = (await http('POST', '/mop/RunCommandTemplate', { template: 'hostname-checks', devices: ['ios-2'] })).body;
    expect(pre).toMatchObject({ result: true });
    // the change itself, through the device gateway's bus-only setConfig
    const client = createBusClient({ bus: platform.bus });
    const caller = { id: 'test', username: 'admin', roles: ['admin' as const], groups: [] };
    const change = await client.call(
      'gateway-devices.setConfig',
      { body: { name: 'ios-2', config: ['hostname ios2-changed'] } },
      { caller },
    );
    expect(change.status).toBe(200);
    const post = (await http('POST', '/mop/RunCommandTemplate', { template: 'hostname-checks', devices: ['ios-2'] })).body;
    const compared = await http('POST', '/mop/runAnalyticsTemplate', { analytic_template_name: 'hostname-compare', pre, post });
    expect(compared.status).toBe(200);
    expect(compared.body).toMatchObject({
      name: 'hostname-compare',
      result: true,
      commands_results: [
        {
          device: 'ios-2',
          result: true,
          rules: [
            { type: 'regex', result: true, preValue: 'ios2', postValue: 'ios2-changed' },
            { type: 'matches', result: true },
          ],
        },
      ],
    });
    const direct = await http('POST', '/mop/runAnalyticsTemplateDevices', {
      analytic_template_name: 'hostname-compare',
      devices: ['ios-1'],
    });
    expect(direct.status).toBe(200);
    // the same device before and after: the hostname did not change, so != fails
    expect(direct.body).toMatchObject({
      result: false,
      commands_results: [
        {
          device: 'ios-1',
          rules: [
            { type: 'regex', result: false },
            { type: 'matches', result: true },
          ],
        },
      ],
    });
  });
});

describe('the fixture command templates on simulators of their os', () => {
  /** The simulator each fixture project's templates run on (ASA and Panorama have none: the IOS-like CLI stands in). */
  const DEVICE_OF: Record<string, string> = {
    Arista_EOS_Projects_Arista_EOS: 'eos-1',
    Cisco_ASA_Projects_Cisco_ASA: 'ios-2',
    Cisco_IOS_Projects_Cisco_IOS: 'ios-1',
    'Cisco_NX-OS_Projects_Cisco_NX-OS': 'nxos-1',
    Kentik_Projects_Kentik: 'ios-1',
    Palo_Alto_Panorama_Projects_Palo_Alto_Panorama: 'ios-2',
  };
  /** Commands that reload, install, copy images or enter configuration: they wait on device prompts the lab does not give. */
  const INTERACTIVE = /^(reload|install all|copy |configure\b)/;
  const VARIABLES = {
    version: '15.9',
    targetVersion: '15.9',
    flashMemory: 'flash0:',
    disk: 'disk0:',
    image: 'vios-adventerprisek9-m',
    type: 'GigabitEthernet',
    id: '0/1',
    interface: '0/1',
    subInterface: '100',
    vlan: 10,
    name: 'users',
    fileName: 'image.bin',
    md5: '0123456789abcdef0123456789abcdef',
    address: '192.0.2.1',
    repeat: 2,
    filename: 'backup.cfg',
  };

  it('creates and runs every fixture template that does not reload, install, copy or configure, each command reaching its device', async () => {
    const { templates, missing } = fixtureTemplates();
    if (missing !== undefined) {
      process.stderr.write(`\n*** CONFORMANCE NOT RUN: ${missing}; the fixture templates were not run on simulators ***\n\n`);
      expect(missing).toBe('present: the fixtures must be beside the repository for this conformance test');
      return;
    }
    let ran = 0;
    const outcomes = new Map<string, TemplateRunResult>();
    for (const [index, t] of templates.entries()) {
      const device = DEVICE_OF[t.project];
      expect({ project: t.project, device }).toEqual({ project: t.project, device: expect.any(String) });
      if (t.document.commands.some((c) => INTERACTIVE.test(c.command))) continue;
      const name = `fixture ${index} ${t.document.name}`;
      expect((await http('POST', '/mop/createTemplate', { mop: { ...t.document, name } })).status).toBe(200);
      const res = await http('POST', '/mop/RunCommandTemplate', { template: name, variables: VARIABLES, devices: [device] });
      expect({ name, status: res.status }).toEqual({ name, status: 200 });
      const out = res.body as TemplateRunResult;
      expect(out.commands_results.length).toBeGreaterThanOrEqual(t.document.commands.length);
      for (const entry of out.commands_results) {
        expect({
          name,
          command: entry.evaluated,
          failedOnDevice: /failed on device/.test(String(entry.message ?? '')),
          skipped: entry.skipped === true,
        }).toEqual({
          name,
          command: entry.evaluated,
          failedOnDevice: false,
          skipped: false,
        });
        expect(entry.rules).toHaveLength(t.document.commands.find((c) => c.command === entry.raw)?.rules.length ?? -1);
      }
      ran += 1;
      outcomes.set(`${t.project}/${t.document.name}`, out);
    }
    // rules as users wrote them, evaluated against what the simulators print
    expect(outcomes.get('Cisco_IOS_Projects_Cisco_IOS/Show Version')?.result).toBe(true);
    expect(outcomes.get('Arista_EOS_Projects_Arista_EOS/Show Version')?.result).toBe(true);
    const memory = outcomes
      .get('Cisco_IOS_Projects_Cisco_IOS/Software Upgrade Checks')
      ?.commands_results.find((r) => r.evaluated === 'show memory statistics');
    expect(memory?.rules.map((r) => [r.eval, r.severity, r.result])).toEqual([
      ['#comparison', 'error', true],
      ['#comparison', 'warning', true],
      ['#comparison', 'info', true],
    ]);
    const register = outcomes
      .get('Cisco_IOS_Projects_Cisco_IOS/Software Upgrade Checks')
      ?.commands_results.find((r) => r.evaluated === 'show ver');
    expect(register?.rules[0]).toMatchObject({ rule: 'Configuration register is 0x2102', result: false });
    expect(ran).toBeGreaterThanOrEqual(18);
  }, 120_000);
});
