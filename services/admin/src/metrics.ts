import { ADAPTER_STATES } from '@nap/contracts';
import { gaugeOnce } from '@nap/telemetry';
import type { Registry } from '@nap/telemetry';
import type { AdapterRepository } from './store/adapters';
import type { IntegrationRepository } from './store/integrations';
import type { SessionRepository } from './store/sessions';

/** What the admin gauges read at scrape time. */
export interface AdminMetricSources {
  sessions: SessionRepository;
  adapters: AdapterRepository;
  integrations: IntegrationRepository;
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
  gaugeOnce(registry, {
    name: 'nap_integrations',
    help: 'Integrations configured (an integration has no lifecycle of its own: it is ready while its model exists)',
    aggregator: 'max',
    async collect() {
      this.set(await integrations.count());
    },
  });
}
