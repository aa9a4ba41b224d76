import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { SECRET_MASK, addSecretTexts, noSecrets, secretMask } from '@nap/contracts';
import { startCliSimulator } from '@nap/lab';
import type { CliSimulator } from '@nap/lab';
import { createNetconfSession, withNetconfSession } from '../src/clients/netconf-client';
import { createSshSession, withSshSession } from '../src/clients/ssh-session';
import type { SshSession } from '../src/clients/ssh-session';
import { createMemoryKnownHostsStore } from '../src/store/known-hosts-repository';
import { expectAppError, simulatorTarget } from './helpers';

describe('SSH session against a cisco_ios simulator', () => {
  let sim: CliSimulator;
  let session: SshSession;

  beforeAll(async () => {
    sim = await startCliSimulator({ deviceType: 'cisco_ios', hostname: 'edge1', enableSecret: 'en-secret' });
    session = createSshSession(simulatorTarget(sim, { secret: 'en-secret' }));
    await session.connect();
  });

  afterAll(async () => {
    await session.close();
    await sim.stop();
  });

  it('logs in, disables paging and enters privileged mode with the secret', () => {
    expect(session.prompt()).toBe('edge1#');
    expect(sim.commandLog().slice(0, 3)).toEqual(['terminal length 0', 'terminal width 511', 'enable']);
    expect(session.hostKeyFingerprint()).toBe(sim.hostKeyFingerprint);
  });

  it('returns command output without echo or prompt', async () => {
    const result = await session.sendCommand('show version');
    expect(result.output.split('\n')[0]).toMatch(/^Cisco IOS Software/);
    expect(result.output).not.toContain('show version');
    expect(result.output).not.toMatch(/edge1#\s*$/);
    expect(result).toMatchObject({ errorLines: [], failed: false });
  });

  it('keeps echo and prompt when strip_command and strip_prompt are false', async () => {
    const result = await session.sendCommand('show clock', { strip_command: false, strip_prompt: false });
    expect(result.output.split('\n')[0]).toBe('show clock');
    expect(result.output.split('\n').pop()).toBe('edge1#');
  });

  it('reads a long output whole once paging is off (no --More--)', async () => {
    const result = await session.sendCommand('show interfaces');
    expect(result.output).not.toContain('More');
    expect(result.output.split('\n').length).toBeGreaterThan(60);
    expect(result.output).toContain('GigabitEthernet0/2 is up, line protocol is up');
  });

  it('accepts abbreviations and output pipes', async () => {
    const result = await session.sendCommand('sh run | i ^hostname');
    expect(result.output).toBe('hostname edge1');
  });

  it('reports the device error lines of an unknown command instead of hiding them', async () => {
    const result = await session.sendCommand('show frobnicate');
    expect(result.failed).toBe(true);
    expect(result.errorLines).toEqual(["% Invalid input detected at '^' marker."]);
    // The caret points at the offending word, as on the device.
    expect(result.output.split('\n')[0]).toBe(`${' '.repeat('edge1#show '.length)}^`);
  });

  it('stops at expect_string instead of the prompt', async () => {
    const result = await session.sendCommand('copy running-config startup-config', { expect_string: 'Destination filename' });
    expect(result.output).toContain('Destination filename [startup-config]?');
    const confirm = await session.sendCommand('', { cmd_verify: false });
    expect(confirm.output).toContain('[OK]');
  });

  it('enters and leaves configuration mode and really changes the running config', async () => {
    const result = await session.sendConfigSet([
      'interface Loopback99',
      'description nap round trip',
      'ip address 10.99.0.1 255.255.255.255',
    ]);
    expect(result.failed).toBe(false);
    expect(result.output).toContain('edge1(config)#');
    expect(result.output).toContain('edge1(config-if)#');
    expect(session.prompt()).toBe('edge1#');
    expect(sim.runningConfig()).toContain('interface Loopback99\n description nap round trip\n ip address 10.99.0.1 255.255.255.255\n!');
    const show = await session.sendCommand('show running-config interface Loopback99');
    expect(show.output).toContain(' ip address 10.99.0.1 255.255.255.255');
    const brief = await session.sendCommand('show ip interface brief');
    expect(brief.output).toMatch(/^Loopback99\s+10\.99\.0\.1\s+YES NVRAM\s+up\s+up$/m);
  });

  it('reports configuration error lines per command, and throws DEVICE_COMMAND_FAILED with error_pattern', async () => {
    const reported = await session.sendConfigSet(['frobnicate everything', 'interface']);
    expect(reported.failed).toBe(true);
    expect(reported.errors).toEqual([
      { command: 'frobnicate everything', line: "% Invalid input detected at '^' marker." },
      { command: 'interface', line: '% Incomplete command.' },
    ]);
    expect(session.prompt()).toBe('edge1#');

    const err = await expectAppError(
      session.sendConfigSet(['ip domain name lab.example', 'frobnicate'], { error_pattern: '% Invalid' }),
      'DEVICE_COMMAND_FAILED',
    );
    expect(err.message).toContain('"frobnicate"');
    expect(err.details).toMatchObject({ command: 'frobnicate', errorLines: ["% Invalid input detected at '^' marker."] });
    // Configuration mode was left even though the set failed.
    expect(session.prompt()).toBe('edge1#');
  });

  it('follows a hostname change made by a configuration set', async () => {
    await session.sendConfigSet(['hostname edge2']);
    expect(session.prompt()).toBe('edge2#');
    const result = await session.sendCommand('show clock');
    expect(result.failed).toBe(false);
    await session.sendConfigSet(['hostname edge1']);
    expect(session.prompt()).toBe('edge1#');
  });
});

describe('SSH session paging', () => {
  it('pages through --More-- when the paging-disable commands are not sent', async () => {
    const sim = await startCliSimulator({ deviceType: 'cisco_ios', startPrivileged: true });
    try {
      const paged = await withSshSession(simulatorTarget(sim, { disablePaging: false }), (s) => s.sendCommand('show interfaces'));
      const whole = await withSshSession(simulatorTarget(sim), (s) => s.sendCommand('show interfaces'));
      expect(paged.output).not.toContain('More');
      expect(paged.output).toBe(whole.output);
      expect(sim.commandLog().filter((c) => c === 'terminal length 0')).toHaveLength(1);
    } finally {
      await sim.stop();
    }
  });
});

describe('SSH session against an arista_eos simulator', () => {
  let sim: CliSimulator;

  beforeAll(async () => {
    sim = await startCliSimulator({ deviceType: 'arista_eos', hostname: 'leaf1' });
  });

  afterAll(async () => {
    await sim.stop();
  });

  it('runs show commands after enable without a secret', async () => {
    await withSshSession(simulatorTarget(sim, { become: true }), async (s) => {
      expect(s.prompt()).toBe('leaf1#');
      const result = await s.sendCommand('show version');
      expect(result.output).toContain('Software image version: 4.30.1F');
    });
    expect(sim.commandLog().slice(0, 2)).toEqual(['terminal length 0', 'terminal width 511']);
  });

  it('configures an interface through its sub-mode and reads it back', async () => {
    await withSshSession(simulatorTarget(sim), async (s) => {
      const result = await s.sendConfigSet(['interface Ethernet3', 'description to-spine', 'no switchport', 'ip address 203.0.113.1/31']);
      expect(result.output).toContain('leaf1(config-if-Et3)#');
      expect(result.failed).toBe(false);
      const run = await s.sendCommand('show running-config | section Ethernet3');
      expect(run.output).toBe('interface Ethernet3\n   description to-spine\n   no switchport\n   ip address 203.0.113.1/31');
    });
  });

  it('reports % Invalid input from the device', async () => {
    await withSshSession(simulatorTarget(sim), async (s) => {
      const result = await s.sendCommand('show nonsense');
      expect(result.errorLines).toEqual(['% Invalid input']);
      const config = await s.sendConfigSet(['nonsense command']);
      expect(config.errors).toEqual([{ command: 'nonsense command', line: '% Invalid input' }]);
    });
  });
});

describe('SSH session against a juniper_junos simulator', () => {
  let sim: CliSimulator;

  beforeAll(async () => {
    sim = await startCliSimulator({ deviceType: 'juniper_junos', hostname: 'core1', username: 'netops' });
  });

  afterAll(async () => {
    await sim.stop();
  });

  it('uses the operational prompt and the Junos paging commands', async () => {
    await withSshSession(simulatorTarget(sim), async (s) => {
      expect(s.prompt()).toBe('netops@core1> ');
      const result = await s.sendCommand('show version');
      expect(result.output.split('\n')[0]).toBe('Hostname: core1');
      expect(result.output).not.toMatch(/\n$/);
    });
    expect(sim.commandLog().slice(0, 3)).toEqual(['set cli screen-length 0', 'set cli screen-width 511', 'set cli complete-on-space off']);
  });

  it('configures, commits and reads the change back', async () => {
    await withSshSession(simulatorTarget(sim), async (s) => {
      const result = await s.sendConfigSet(
        ['set interfaces ge-0/0/2 description "nap round trip"', 'set interfaces ge-0/0/2 unit 0 family inet address 203.0.113.9/31'],
        { commit: true },
      );
      expect(result.failed).toBe(false);
      expect(result.output).toContain('commit complete');
      expect(s.prompt()).toBe('netops@core1> ');
      const show = await s.sendCommand('show configuration interfaces ge-0/0/2 | display set');
      expect(show.output.split('\n')).toEqual([
        'set interfaces ge-0/0/2 description "nap round trip"',
        'set interfaces ge-0/0/2 unit 0 family inet address 203.0.113.9/31',
      ]);
    });
    expect(sim.runningConfig()).toContain('    ge-0/0/2 {\n        description "nap round trip";');
  });

  it('leaves configuration mode without committing when not asked to commit', async () => {
    await withSshSession(simulatorTarget(sim), async (s) => {
      const result = await s.sendConfigSet(['set system location building-7']);
      expect(result.output).toContain('Exit with uncommitted changes?');
      expect(s.prompt()).toBe('netops@core1> ');
      await s.commit();
    });
    expect(sim.runningConfig()).toContain('location building-7;');
  });

  it('reports syntax errors of the device', async () => {
    await withSshSession(simulatorTarget(sim), async (s) => {
      const op = await s.sendCommand('show frobnicate');
      expect(op.errorLines).toEqual(['syntax error, expecting <command>.']);
      const unknown = await s.sendCommand('frobnicate');
      expect(unknown.errorLines).toEqual(['unknown command.']);
      const config = await s.sendConfigSet(['set frobnicate 1'], { error_pattern: 'syntax error' }).catch((e: unknown) => e);
      expect(config).toMatchObject({ code: 'DEVICE_COMMAND_FAILED' });
    });
  });
});

describe('SSH session against other simulated types', () => {
  it('starts the Junos CLI when root lands at the shell', async () => {
    const sim = await startCliSimulator({ deviceType: 'juniper_junos', username: 'root', hostname: 'edge-re0' });
    try {
      await withSshSession(simulatorTarget(sim), async (s) => {
        expect(s.prompt()).toBe('root@edge-re0> ');
        expect((await s.sendCommand('show system uptime')).output).toMatch(/^Current time: /);
      });
      expect(sim.commandLog()[0]).toBe('cli');
    } finally {
      await sim.stop();
    }
  });

  it.each([
    ['cisco_nxos', 'Ethernet1/3', 'ip address 203.0.113.5/31', 'NX-OS'],
    ['cisco_xe', 'GigabitEthernet0/3', 'ip address 203.0.113.5 255.255.255.254', 'Cisco IOS Software'],
  ] as const)('drives a %s simulator: show, configure, read back', async (deviceType, ifName, address, versionText) => {
    const sim = await startCliSimulator({ deviceType, hostname: 'sw9' });
    try {
      await withSshSession(simulatorTarget(sim), async (s) => {
        expect(s.prompt()).toBe(deviceType === 'cisco_nxos' ? 'sw9#' : 'sw9>');
        expect((await s.sendCommand('show version')).output).toContain(versionText);
        const result = await s.sendConfigSet([`interface ${ifName}`, 'description nap', address, 'no shutdown']);
        expect(result.failed).toBe(false);
        expect(s.prompt()).toBe('sw9#');
        const run = await s.sendCommand(`show running-config interface ${ifName}`);
        expect(run.output).toContain(address);
      });
    } finally {
      await sim.stop();
    }
  });
});

describe('SSH session failures', () => {
  it('turns a command that never returns into DEVICE_TIMEOUT within read_timeout, and closes the session', async () => {
    const sim = await startCliSimulator({ deviceType: 'cisco_ios', startPrivileged: true, hangOn: 'show tech-support' });
    const session = createSshSession(simulatorTarget(sim));
    try {
      await session.connect();
      const err = await expectAppError(session.sendCommand('show tech-support', { read_timeout: 0.5 }), 'DEVICE_TIMEOUT');
      expect(err.message).toContain('"show tech-support"');
      expect(err.message).toContain('user "admin"');
      expect(await session.isAlive()).toBe(false);
      await expectAppError(session.sendCommand('show clock'), 'DEVICE_TIMEOUT');
    } finally {
      await session.close();
      await sim.stop();
    }
  });

  it("masks a secret on the device's screen before an error quotes the end of its last line", async () => {
    const community = 'snmp-Community-0f5e9c2a77';
    // a prompt that shows the secret, not the one the session expects: the error quotes the prompt's
    // last 80 characters, and the secret straddles the 80th from the end, so a cut first keeps its end
    const after = `-${'x'.repeat(70)}`;
    const sim = await startCliSimulator({ deviceType: 'cisco_ios', hostname: `edge-${community}${after}` });
    const mask = secretMask(addSecretTexts(noSecrets(), community));
    try {
      const err = await expectAppError(
        withSshSession(simulatorTarget(sim, { deviceType: 'juniper_junos', promptTimeoutMs: 600, mask }), () => Promise.resolve()),
        'DEVICE_PROMPT_NOT_DETECTED',
      );
      const { lastLine } = err.details as { lastLine: string };
      expect(lastLine).toMatch(/x>$/);
      expect(lastLine).not.toContain(community.slice(-4));
      expect(lastLine).toBe(`edge-${SECRET_MASK}${after}>`.slice(-80));
    } finally {
      await sim.stop();
    }
  });

  it('waits for a slow device within read_timeout', async () => {
    const sim = await startCliSimulator({ deviceType: 'cisco_ios', startPrivileged: true, slowMs: 50 });
    try {
      const result = await withSshSession(simulatorTarget(sim), (s) => s.sendCommand('show clock', { read_timeout: 10 }));
      expect(result.output).toMatch(/UTC/);
    } finally {
      await sim.stop();
    }
  });

  it('maps a refused login to DEVICE_SSH_AUTH_FAILED without the password in the message', async () => {
    const sim = await startCliSimulator({ deviceType: 'cisco_ios', password: 'right-password' });
    try {
      const err = await expectAppError(
        withSshSession(simulatorTarget(sim, { password: 'wrong-password' }), () => Promise.resolve()),
        'DEVICE_SSH_AUTH_FAILED',
      );
      expect(err.message).toBe(`device "sim-cisco_ios" (127.0.0.1:${sim.port}) refused the SSH login for user "admin"`);
      expect(err.message).not.toContain('password"');
    } finally {
      await sim.stop();
    }
  });

  it('maps rejectAuth to DEVICE_SSH_AUTH_FAILED', async () => {
    const sim = await startCliSimulator({ deviceType: 'arista_eos', rejectAuth: true });
    try {
      await expectAppError(
        withSshSession(simulatorTarget(sim), () => Promise.resolve()),
        'DEVICE_SSH_AUTH_FAILED',
      );
    } finally {
      await sim.stop();
    }
  });

  it('maps a wrong enable secret to DEVICE_SSH_AUTH_FAILED', async () => {
    const sim = await startCliSimulator({ deviceType: 'cisco_ios', enableSecret: 'right' });
    try {
      const err = await expectAppError(
        withSshSession(simulatorTarget(sim, { secret: 'wrong' }), () => Promise.resolve()),
        'DEVICE_SSH_AUTH_FAILED',
      );
      expect(err.message).toContain('privileged mode');
      expect(err.message).not.toContain('wrong');
    } finally {
      await sim.stop();
    }
  });

  it('maps a closed port to DEVICE_UNREACHABLE', async () => {
    const sim = await startCliSimulator({ deviceType: 'cisco_ios' });
    const port = sim.port;
    await sim.stop();
    const err = await expectAppError(
      withSshSession({ ...simulatorTarget(sim), port }, () => Promise.resolve()),
      'DEVICE_UNREACHABLE',
    );
    expect(err.message).toContain('refused the connection');
  });

  it('maps an unresolvable name to DEVICE_UNREACHABLE', async () => {
    const sim = await startCliSimulator({ deviceType: 'cisco_ios' });
    await sim.stop();
    await expectAppError(
      withSshSession({ ...simulatorTarget(sim), host: 'no-such-device.invalid' }, () => Promise.resolve()),
      'DEVICE_UNREACHABLE',
    );
  });

  it('maps a device without a recognisable prompt to DEVICE_PROMPT_NOT_DETECTED', async () => {
    const sim = await startCliSimulator({ deviceType: 'cisco_ios', noPrompt: true });
    try {
      const err = await expectAppError(
        withSshSession(simulatorTarget(sim, { promptTimeoutMs: 600 }), () => Promise.resolve()),
        'DEVICE_PROMPT_NOT_DETECTED',
      );
      expect(err.message).toContain('cisco_ios');
    } finally {
      await sim.stop();
    }
    expect(sim.sessions()).toBe(0);
  });

  it('bounds a device that accepts TCP but never speaks SSH with DEVICE_TIMEOUT (readyTimeout)', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const err = await expectAppError(
        withSshSession(
          {
            host: '127.0.0.1',
            port,
            username: 'admin',
            password: 'x',
            deviceType: 'cisco_ios',
            knownHosts: createMemoryKnownHostsStore(),
            readyTimeoutMs: 300,
          },
          () => Promise.resolve(),
        ),
        'DEVICE_TIMEOUT',
      );
      expect(err.message).toContain('within 300 ms');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('maps a device without a NETCONF subsystem to DEVICE_UNREACHABLE', async () => {
    const sim = await startCliSimulator({ deviceType: 'juniper_junos' });
    try {
      const target = {
        host: sim.host,
        port: sim.port,
        username: sim.username,
        password: sim.password,
        knownHosts: createMemoryKnownHostsStore(),
      };
      const err = await expectAppError(
        withNetconfSession(target, () => Promise.resolve()),
        'DEVICE_UNREACHABLE',
      );
      expect(err.message).toContain('offers no NETCONF subsystem');
      // A session object that failed to connect can still be closed.
      const session = createNetconfSession(target);
      await session.connect().catch(() => undefined);
      await session.close();
    } finally {
      await sim.stop();
    }
  });
});
