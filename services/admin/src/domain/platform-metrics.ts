import { ADAPTER_STATES } from '@nap/contracts';
import type { Store } from '@nap/store';
import { gaugeOnce } from '@nap/telemetry';
import type { Registry } from '@nap/telemetry';

/**
 * The admin service's part of `/exporter_metrics`, read from its store at scrape time: sessions
 * (the original platform's `iap_active_sessions` and `iap_unique_sessions`, prefixed `nap_`),
 * adapters by state and integrations. Every admin replica reads the same store, so these aggregate
 * by `max`, not `sum`.
 */
export function registerAdminMetrics(registry: Registry, store: Store, sessionIdleMinutes: () => number | undefined): void {
  const sessions = store.collection('sessions');
  const adapters = store.collection('adapters');
  const integrations = store.collection('integrations');
  /** Sessions that would still be accepted: not revoked, not expired, used within the idle limit. */
  const activeFilter = () => {
    const now = Date.now();
    const idle = sessionIdleMinutes();
    return { revoked: false, expiresAt: { $gt: now }, ...(idle !== undefined ? { lastUsed: { $gte: now - idle * 60_000 } } : {}) };
  };
  gaugeOnce(registry, {
    name: 'nap_active_sessions',
    help: 'Number of active sessions (not revoked, not expired, not idle beyond the limit)',
    aggregator: 'max',
    async collect() {
      this.set(await sessions.countDocuments(activeFilter()));
    },
  });
  gaugeOnce(registry, {
    name: 'nap_unique_sessions',
    help: 'Number of accounts with at least one active session',
    aggregator: 'max',
    async collect() {
      const active = await sessions.find(activeFilter(), { projection: { accountId: 1 } });
      this.set(new Set(active.map((s) => s.accountId)).size);
    },
  });
  gaugeOnce(registry, {
    name: 'nap_adapters',
    help: 'Adapters by lifecycle state',
    labelNames: ['state'],
    aggregator: 'max',
    async collect() {
      const counts = await Promise.all(
        ADAPTER_STATES.filter((s) => s !== 'DELETED').map(async (state) => [state, await adapters.countDocuments({ state })] as const),
      );
      for (const [state, count] of counts) this.set({ state }, count);
    },
  });
  gaugeOnce(registry, {
    name: 'nap_integrations',
    help: 'Integrations configured (an integration has no lifecycle of its own: it is ready while its model exists)',
    aggregator: 'max',
    async collect() {
      this.set(await integrations.countDocuments({}));
    },
  });
}
