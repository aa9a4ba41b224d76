import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startCliSimulator } from '@nap/lab';
import { checkHostKey, scanHostKey } from '../src/clients/ssh-connection';
import { withSshSession } from '../src/clients/ssh-session';
import { hostKeyFingerprint, knownHostsKey, knownHostsLine } from '../src/domain/known-hosts';
import { createMemoryKnownHostsStore } from '../src/store/known-hosts-repository';
import { expectAppError, simulatorTarget } from './helpers';

describe('host key checking', () => {
  it('trusts on first use, then refuses a changed key with DEVICE_HOST_KEY_CHANGED', async () => {
    const knownHosts = createMemoryKnownHostsStore();
    const first = await startCliSimulator({ deviceType: 'cisco_ios' });
    const port = first.port;
    const hostPort = knownHostsKey(first.host, port);
    try {
      await withSshSession(simulatorTarget(first, {}, knownHosts), (s) => s.sendCommand('show clock'));
      expect(knownHosts.entries()).toEqual({ [hostPort]: first.hostKeyFingerprint });
      // Same key again: accepted.
      await withSshSession(simulatorTarget(first, {}, knownHosts), (s) => s.sendCommand('show clock'));
    } finally {
      await first.stop();
    }

    // The "device" is replaced: same address and port, new host key.
    const replaced = await startCliSimulator({ deviceType: 'cisco_ios', port });
    try {
      const err = await expectAppError(
        withSshSession(simulatorTarget(replaced, {}, knownHosts), () => Promise.resolve()),
        'DEVICE_HOST_KEY_CHANGED',
      );
      expect(err.message).toContain(replaced.hostKeyFingerprint);
      expect(err.message).toContain(first.hostKeyFingerprint);
      expect(err.details).toMatchObject({ hostPort, expected: first.hostKeyFingerprint, actual: replaced.hostKeyFingerprint });
      // The trusted key is not overwritten by a refused one.
      expect(knownHosts.entries()).toEqual({ [hostPort]: first.hostKeyFingerprint });
      expect(replaced.sessions()).toBe(0);
    } finally {
      await replaced.stop();
    }
  });

  it('in strict mode refuses an unknown key and accepts a known one', async () => {
    const sim = await startCliSimulator({ deviceType: 'arista_eos' });
    try {
      const empty = createMemoryKnownHostsStore();
      const err = await expectAppError(
        withSshSession(simulatorTarget(sim, { hostKeyChecking: 'strict' }, empty), () => Promise.resolve()),
        'DEVICE_HOST_KEY_UNKNOWN',
      );
      expect(err.message).toContain('not trusted');
      expect(empty.entries()).toEqual({});

      const known = createMemoryKnownHostsStore({ [knownHostsKey(sim.host, sim.port)]: sim.hostKeyFingerprint });
      const result = await withSshSession(simulatorTarget(sim, { hostKeyChecking: 'strict' }, known), (s) => s.sendCommand('show version'));
      expect(result.failed).toBe(false);
    } finally {
      await sim.stop();
    }
  });

  it('accepts any key and records nothing when checking is off', async () => {
    const sim = await startCliSimulator({ deviceType: 'juniper_junos' });
    try {
      const store = createMemoryKnownHostsStore({ [knownHostsKey(sim.host, sim.port)]: 'SHA256:someone-else' });
      await withSshSession(simulatorTarget(sim, { hostKeyChecking: 'off' }, store), (s) => s.sendCommand('show version'));
      expect(store.entries()).toEqual({ [knownHostsKey(sim.host, sim.port)]: 'SHA256:someone-else' });
    } finally {
      await sim.stop();
    }
  });

  it('reads a key without logging in, records it with its blob, and writes a known_hosts line that OpenSSH trusts (what Ansible runs use)', async () => {
    const sim = await startCliSimulator({ deviceType: 'cisco_ios' });
    const dir = await mkdtemp(path.join(os.tmpdir(), 'nap-known-hosts-'));
    try {
      const key = await scanHostKey(sim.host, sim.port, 5_000);
      expect(key).toBeDefined();
      if (key === undefined) return;
      expect(hostKeyFingerprint(key)).toBe(sim.hostKeyFingerprint);
      expect(sim.sessions()).toBe(0);
      const store = createMemoryKnownHostsStore();
      const hostPort = knownHostsKey(sim.host, sim.port);
      expect(await checkHostKey(store, hostPort, key, 'tofu')).toBeUndefined();
      expect(await store.get(hostPort)).toBe(sim.hostKeyFingerprint);
      expect(await store.keyOf?.(hostPort)).toEqual(key);
      // a changed key is refused and does not replace the trusted one
      const other = createMemoryKnownHostsStore({ [hostPort]: 'SHA256:someone-else' });
      expect(await checkHostKey(other, hostPort, key, 'tofu')).toMatchObject({ kind: 'changed' });
      expect(await checkHostKey(createMemoryKnownHostsStore(), hostPort, key, 'strict')).toMatchObject({ kind: 'unknown' });

      // OpenSSH with strict checking: the written line gets past host verification (to the login),
      // an empty file stops it at "Host key verification failed"
      const trusted = path.join(dir, 'trusted');
      const empty = path.join(dir, 'empty');
      await writeFile(trusted, `${knownHostsLine(sim.host, sim.port, key)}\n`);
      await writeFile(empty, '');
      const sshWith = (file: string) =>
        new Promise<string>((resolve) => {
          execFile(
            'ssh',
            [
              '-o',
              `UserKnownHostsFile=${file}`,
              '-o',
              'GlobalKnownHostsFile=/dev/null',
              '-o',
              'StrictHostKeyChecking=yes',
              '-o',
              'BatchMode=yes',
              '-o',
              'PreferredAuthentications=none,publickey',
              '-p',
              String(sim.port),
              `nobody@${sim.host}`,
              'true',
            ],
            { timeout: 15_000 },
            (_err, _stdout, stderr) => resolve(stderr),
          );
        });
      expect(await sshWith(empty)).toContain('Host key verification failed');
      const accepted = await sshWith(trusted);
      expect(accepted).not.toContain('Host key verification failed');
      expect(accepted).toMatch(/Permission denied|Authentication|no more authentication methods/i);
    } finally {
      await rm(dir, { recursive: true, force: true });
      await sim.stop();
    }
  });
});
