import { healthStatus } from '../src/domain/health';

const MIB = 1024 * 1024;
const facts = (storeDisk?: { freeBytes: number; totalBytes: number; minFreeBytes: number }, storeUp = true) => ({
  busKind: 'memory',
  busConnected: true,
  storeKind: 'embedded',
  storeUp,
  ...(storeDisk !== undefined ? { storeDisk } : {}),
  applications: [{ name: 'WorkFlowEngine', state: 'RUNNING' }],
  now: 1,
});
const store = (health: ReturnType<typeof healthStatus>) => health.services.find((s) => s.service === 'store (embedded)');

describe('/health/status and the disk under the store', () => {
  it('says running with room, low on space under four times what the store keeps, full (and the platform degraded) under it', () => {
    const disk = (freeMib: number, keepMib = 128) => ({ freeBytes: freeMib * MIB, totalBytes: 1024 * MIB, minFreeBytes: keepMib * MIB });
    expect([store(healthStatus(facts(disk(600)))), healthStatus(facts(disk(600))).status]).toEqual([
      { service: 'store (embedded)', status: 'running', disk: disk(600) },
      'running',
    ]);
    expect([store(healthStatus(facts(disk(511))))?.status, healthStatus(facts(disk(511))).status]).toEqual(['low on space', 'running']);
    expect([store(healthStatus(facts(disk(127))))?.status, healthStatus(facts(disk(127))).status]).toEqual(['full', 'degraded']);
    // a store that keeps nothing, or whose disk cannot be read (MongoDB), is judged by its answer alone
    expect(store(healthStatus(facts(disk(0, 0))))?.status).toBe('running');
    expect(store(healthStatus(facts()))).toEqual({ service: 'store (embedded)', status: 'running' });
    expect(store(healthStatus(facts(disk(600), false)))?.status).toBe('stopped');
  });
});
