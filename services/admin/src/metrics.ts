import { ADAPTER_STATES } from '@nap/contracts';
import { gaugeOnce } from '@nap/telemetry';
import type { DiskSpace } from '@nap/store';
import type { Registry } from '@nap/telemetry';
import type { AdapterRepository } from './store/adapters';
import type { IntegrationRepository } from './store/integrations';
import type { SessionRepository } from './store/sessions';

/** What the admin gauges read at scrape time. */
export interface AdminMetricSources {
  sessions: SessionRepository;
  adapters: AdapterRepository;
  integrations: IntegrationRepository;
  /** The disk under the admin service's store, where the store reads it (embedded). */
  storeDisk: () => Promise<DiskSpace | undefined>;
}

/**
 * The admin service's part of `/exporter_metrics`, read from its store at scrape time: sessions
 * (the original platform's `iap_active_sessions` and `iap_unique_sessions`, prefixed `nap_`),
 * adapters by state and integrations. Every admin replica reads the same store, so these aggregate
 * by `max`, not `sum`. A session counts while it would still be accepted: not revoked, not
 * expired, used within the idle limit (`sessionIdleMinutes`, read at each scrape).
 */
export function registerAdminMetrics(registry: Registry, sources: AdminMetricSources, sessionIdleMinutes: () => number | undefined): void {
  const { sessions, adapters, integrations } = sources;
  gaugeOnce(registry, {
    name: 'nap_active_sessions',
    help: 'Number of active sessions (not revoked, not expired, not idle beyond the limit)',
    aggregator: 'max',
    async collect() {
      this.set(await sessions.countActive(Date.now(), sessionIdleMinutes()));
    },
  });
  gaugeOnce(registry, {
    name: 'nap_unique_sessions',
    help: 'Number of accounts with at least one active session',
    aggregator: 'max',
    async collect() {
      this.set(await sessions.countActiveAccounts(Date.now(), sessionIdleMinutes()));
    },
  });
  gaugeOnce(registry, {
    name: 'nap_adapters',
    help: 'Adapters by lifecycle state',
    labelNames: ['state'],
    aggregator: 'max',
    async collect() {
      const counts = await Promise.all(
        ADAPTER_STATES.filter((s) => s !== 'DELETED').map(async (state) => [state, await adapters.countInState(state)] as const),
      );
      for (const [state, count] of counts) this.set({ state }, count);
    },
  });
  // the disk under an embedded store (none on MongoDB, whose server owns its disk): the lowest of the replicas counts
  const disk = (read: (space: DiskSpace) => number) =>
    async function collect(this: { reset(): void; set(labels: { store: string }, value: number): void }) {
      const space = await sources.storeDisk();
      this.reset();
      if (space !== undefined) this.set({ store: 'embedded' }, read(space));
    };
  gaugeOnce(registry, {
    name: 'nap_store_disk_free_bytes',
    help: 'Free space on the disk under the embedded store; writes are refused (STORE_FULL) under nap_store_disk_min_free_bytes',
    labelNames: ['store'],
    aggregator: 'min',
    collect: disk((space) => space.freeBytes),
  });
  gaugeOnce(registry, {
    name: 'nap_store_disk_min_free_bytes',
    help: 'Free space the embedded store keeps on its disk (NAP_DATA_MIN_FREE_MB)',
    labelNames: ['store'],
    aggregator: 'min',
    collect: disk((space) => space.minFreeBytes),
  });
  gaugeOnce(registry, {
    name: 'nap_integrations',
    help: 'Integrations configured (an integration has no lifecycle of its own: it is ready while its model exists)',
    aggregator: 'max',
    async collect() {
      this.set(await integrations.count());
    },
  });
}
