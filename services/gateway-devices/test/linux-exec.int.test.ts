import { startCliSimulator, startSshd } from '@nap/lab';
import type { LabSshd } from '@nap/lab';
import { createSshSession, withSshSession } from '../src/clients/ssh-session';
import type { SshSession, SshSessionOptions } from '../src/clients/ssh-session';
import { createMemoryKnownHostsStore } from '../src/store/known-hosts-repository';
import { expectAppError } from './helpers';

// Starting sshd may install openssh-server on a clean machine (apt-get), which takes longer than a test.
const SETUP_TIMEOUT_MS = 10 * 60_000;

describe('linux device type (exec channel) against a real OpenSSH sshd', () => {
  let sshd: LabSshd;
  let target: SshSessionOptions;
  let session: SshSession;

  beforeAll(async () => {
    sshd = await startSshd();
    target = {
      deviceName: 'lab-linux',
      host: sshd.host,
      port: sshd.port,
      username: sshd.username,
      password: sshd.password,
      deviceType: 'linux',
      knownHosts: createMemoryKnownHostsStore(),
      readyTimeoutMs: 10_000,
    };
    session = createSshSession(target);
    await session.connect();
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await session?.close();
    await sshd?.stop();
  });

  it('presents the host key sshd was given', () => {
    expect(session.hostKeyFingerprint()).toBe(sshd.hostKeyFingerprint);
  });

  it('runs uname -a and echo with exit status 0', async () => {
    const uname = await session.sendCommand('uname -a');
    expect(uname.output).toMatch(/^Linux \S+ /);
    expect(uname).toMatchObject({ exitCode: 0, failed: false, errorLines: [] });
    const echo = await session.sendCommand('echo "nap lab ok"');
    expect(echo.output).toBe('nap lab ok');
    const who = await session.sendCommand('id -un');
    expect(who.output).toBe(sshd.username);
  });

  it('reports a failing command with its exit status and stderr', async () => {
    const result = await session.sendCommand('ls /definitely/not/here');
    expect(result.failed).toBe(true);
    expect(result.exitCode).toBe(2);
    expect(result.errorLines.join('\n')).toContain('No such file or directory');
  });

  it('runs several commands of a session concurrently issued, one after the other', async () => {
    const results = await Promise.all(['echo one', 'echo two', 'echo three'].map((c) => session.sendCommand(c)));
    expect(results.map((r) => r.output)).toEqual(['one', 'two', 'three']);
  });

  it('runs a configuration set command by command and reports failures per command', async () => {
    const result = await session.sendConfigSet(['echo start', 'false', 'echo done']);
    expect(result.failed).toBe(true);
    expect(result.errors).toEqual([{ command: 'false', line: 'exit status 1' }]);
    expect(result.output).toContain('done');
    await expectAppError(session.sendConfigSet(['cat /no/such/file'], { error_pattern: 'No such file' }), 'DEVICE_COMMAND_FAILED');
  });

  it('answers isAlive and the device type commands', async () => {
    expect(await session.isAlive()).toBe(true);
    for (const command of session.profile.commands.getDeviceInfo) {
      const result = await session.sendCommand(command);
      expect(result.failed).toBe(false);
    }
  });

  it('bounds a command that does not finish with DEVICE_TIMEOUT', async () => {
    await expectAppError(session.sendCommand('sleep 3', { read_timeout: 0.5 }), 'DEVICE_TIMEOUT');
    // The connection itself is fine: exec channels are independent.
    expect((await session.sendCommand('echo still-here')).output).toBe('still-here');
  });

  it('maps a wrong password to DEVICE_SSH_AUTH_FAILED', async () => {
    const err = await expectAppError(
      withSshSession({ ...target, password: 'not-the-password' }, () => Promise.resolve()),
      'DEVICE_SSH_AUTH_FAILED',
    );
    expect(err.message).toContain(`user "${sshd.username}"`);
    expect(err.message).not.toContain('not-the-password');
  });
});

describe('exec channel of a simulator', () => {
  it('runs one command without prompts or paging', async () => {
    const sim = await startCliSimulator({ deviceType: 'cisco_ios' });
    try {
      const result = await withSshSession(
        {
          host: sim.host,
          port: sim.port,
          username: sim.username,
          password: sim.password,
          deviceType: 'linux',
          knownHosts: createMemoryKnownHostsStore(),
        },
        (s) => s.sendCommand('show interfaces'),
      );
      expect(result.exitCode).toBe(0);
      expect(result.output).not.toContain('More');
      expect(result.output).toContain('GigabitEthernet0/0 is up, line protocol is up');
    } finally {
      await sim.stop();
    }
  });
});
