import { startCliSimulator } from '@nap/lab';
import type { CliSimulator } from '@nap/lab';
import { withSshSession } from '../src/clients/ssh-session';
import { createSessionLimiter } from '../src/domain/session-limiter';
import { createMemoryKnownHostsStore } from '../src/store/known-hosts-repository';
import { simulatorTarget } from './helpers';

describe('per-device session limit against a simulator', () => {
  let sim: CliSimulator;

  beforeAll(async () => {
    // The simulator drops logins beyond 2 open sessions, as a device out of vty lines would, so a
    // limiter that let a third one through makes a request fail.
    sim = await startCliSimulator({ deviceType: 'cisco_ios', startPrivileged: true, maxSessions: 2, slowMs: 5 });
  });

  afterAll(async () => {
    await sim.stop();
  });

  it('runs 20 concurrent requests to one device with limit 2: never more than 2 sessions, FIFO, none fails', async () => {
    const limiter = createSessionLimiter({ perDeviceLimit: 2, queueTimeoutMs: 60_000 });
    const knownHosts = createMemoryKnownHostsStore();
    const started: number[] = [];
    const finished: number[] = [];
    const peakSeen: number[] = [];
    const requests = Array.from({ length: 20 }, (_unused, i) =>
      limiter
        .run(
          'sim-cisco_ios',
          () => {
            // Called when the limiter grants the slot, so this records the grant order.
            started.push(i);
            return withSshSession(simulatorTarget(sim, {}, knownHosts), async (session) => {
              peakSeen.push(sim.sessions());
              const result = await session.sendCommand(`show clock`);
              return { i, output: result.output };
            });
          },
          { ordered: true },
        )
        .then((r) => {
          finished.push(r.i);
          return r;
        }),
    );
    const results = await Promise.all(requests);

    expect(results.map((r) => r.i)).toEqual(Array.from({ length: 20 }, (_unused, i) => i));
    for (const r of results) expect(r.output).toMatch(/UTC/);
    expect(started).toEqual(Array.from({ length: 20 }, (_unused, i) => i));
    expect(finished).toEqual(Array.from({ length: 20 }, (_unused, i) => i));
    expect(Math.max(...peakSeen)).toBeLessThanOrEqual(2);
    expect(sim.maxConcurrentSessions).toBeLessThanOrEqual(2);
    expect(sim.maxConcurrentSessions).toBeGreaterThanOrEqual(1);
    expect(sim.sessions()).toBe(0);
    expect(limiter.stats()).toEqual({ active: 0, queued: 0, devices: {} });
  });
});
