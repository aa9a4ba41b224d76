import { startCliSimulator } from '../../../test/lab';
import { withSshSession } from '../src/clients';
import { createMemoryKnownHostsStore, knownHostsKey } from '../src/domain';
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
      const err = await expectAppError(withSshSession(simulatorTarget(replaced, {}, knownHosts), () => Promise.resolve()), 'DEVICE_HOST_KEY_CHANGED');
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
      const err = await expectAppError(withSshSession(simulatorTarget(sim, { hostKeyChecking: 'strict' }, empty), () => Promise.resolve()), 'DEVICE_HOST_KEY_UNKNOWN');
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
});
