import type { DiskSpace } from '@nap/store';

/** What `/health/status` looks at: the bus, this service's store and every application. */
export interface PlatformFacts {
  busKind: string;
  busConnected: boolean;
  storeKind: string;
  storeUp: boolean;
  /** The disk under the store, where the store reads it (embedded). */
  storeDisk?: DiskSpace;
  /** Empty when the bus is down: nothing can be asked then. */
  applications: { name: string; state: string }[];
  /** Epoch ms. */
  now: number;
}

/** Free space under which the store is said to be low on space: this many times what it keeps. */
export const LOW_ON_SPACE_FACTOR = 4;

/**
 * The store's status: `stopped` when it does not answer; `full` when its disk has less free space
 * than it keeps (its writes are refused); `low on space` under {@link LOW_ON_SPACE_FACTOR} times
 * that; `running` otherwise.
 */
function storeStatus(facts: PlatformFacts): 'running' | 'low on space' | 'full' | 'stopped' {
  if (!facts.storeUp) return 'stopped';
  const disk = facts.storeDisk;
  if (disk === undefined || disk.minFreeBytes <= 0) return 'running';
  if (disk.freeBytes < disk.minFreeBytes) return 'full';
  return disk.freeBytes < LOW_ON_SPACE_FACTOR * disk.minFreeBytes ? 'low on space' : 'running';
}

/** `/health/status`: `running` when the bus, the store (with room to write) and every application answer, `degraded` otherwise. */
export function healthStatus(facts: PlatformFacts) {
  const { applications } = facts;
  const appsRunning = applications.length > 0 && applications.every((a) => a.state === 'RUNNING');
  const store = storeStatus(facts);
  const running = facts.busConnected && (store === 'running' || store === 'low on space') && appsRunning;
  return {
    status: running ? ('running' as const) : ('degraded' as const),
    timestamp: facts.now,
    services: [
      { service: `bus (${facts.busKind})`, status: facts.busConnected ? 'running' : 'stopped' },
      { service: `store (${facts.storeKind})`, status: store, ...(facts.storeDisk !== undefined ? { disk: facts.storeDisk } : {}) },
    ],
    apps: appsRunning ? 'running' : 'degraded',
    applications: applications.map((a) => ({ name: a.name, state: a.state })),
  };
}
