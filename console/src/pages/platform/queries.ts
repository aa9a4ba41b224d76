import { useQuery } from '@tanstack/react-query';
import { platform } from '../../api/platform';
import { adapterRows, infraRows, integrationRows, isChanging, serviceRows } from './platform-status';

/**
 * The Platform pages' reads, each refreshed on its own every {@link REFRESH_MS} (every second
 * while something is starting or stopping, until it settles). What one read answered stays on the
 * page when a later refresh fails.
 */

/** Every query of the Platform pages starts with this key: an action refreshes them all. */
export const PLATFORM_KEY = ['platform'] as const;

/** How often the pages read the platform again, ms. */
export const REFRESH_MS = 10_000;
/** How often while a state is changing (STARTING, STOPPING, replicas being brought in line), ms. */
const SETTLING_MS = 1_000;

/** At most this many audit records of adapters are read to say who stopped a STOPPED adapter, and when. */
const AUDIT_LIMIT = 100;

/** The applications, one row a service (`GET /applications` and `GET /health/applications`). */
export function useServices() {
  return useQuery({
    queryKey: [...PLATFORM_KEY, 'applications'],
    queryFn: async () => {
      const [list, health] = await Promise.all([platform.applications(), platform.applicationsHealth()]);
      return serviceRows(list.results, health.results);
    },
    refetchInterval: (query) => (query.state.data?.some((row) => row.tone === 'changing') ? SETTLING_MS : REFRESH_MS),
  });
}

/**
 * The adapters (`GET /health/adapters` and `GET /adapters`), and, when one is STOPPED, the audit
 * trail's latest adapter records: who stopped it and when (the adapter's own record does not say).
 */
export function useAdapters() {
  return useQuery({
    queryKey: [...PLATFORM_KEY, 'adapters'],
    queryFn: async () => {
      const [answer, list] = await Promise.all([platform.adaptersHealth(), platform.adapters()]);
      const readAt = Date.now();
      const health = answer.results ?? [];
      // who stopped it is a detail: the list stands without it
      const audit = health.some((h) => h.state === 'STOPPED')
        ? await platform.auditOfKind('adapter', AUDIT_LIMIT).then(
            (page) => page.results,
            () => [],
          )
        : [];
      return {
        rows: adapterRows(health, list.results, audit, readAt),
        records: new Map(list.results.map((record) => [record.data.name, record])),
        /** The adapters the platform has, beyond the largest page it answers. */
        total: list.total,
      };
    },
    refetchInterval: (query) => (query.state.data?.rows.some((row) => isChanging(row.state)) ? SETTLING_MS : REFRESH_MS),
  });
}

/** The integrations (`GET /integrations`). */
export function useIntegrations() {
  return useQuery({
    queryKey: [...PLATFORM_KEY, 'integrations'],
    queryFn: async () => {
      const list = await platform.integrations();
      return { rows: integrationRows(list.results), total: list.total };
    },
    refetchInterval: REFRESH_MS,
  });
}

/** The server: the admin replica that answered and its host, the bus and the store. */
export function useServer() {
  return useQuery({
    queryKey: [...PLATFORM_KEY, 'server'],
    queryFn: async () => {
      const [server, status, system] = await Promise.all([platform.server(), platform.status(), platform.system()]);
      return { server, status, system, infra: infraRows(status), readAt: Date.now() };
    },
    refetchInterval: REFRESH_MS,
  });
}

/** One adapter: its document and its health. */
export function useAdapter(name: string) {
  return useQuery({
    queryKey: [...PLATFORM_KEY, 'adapter', name],
    queryFn: async () => {
      const [record, health] = await Promise.all([platform.adapter(name), platform.adapterHealth(name)]);
      return { record, health, readAt: Date.now() };
    },
    refetchInterval: (query) => (isChanging(query.state.data?.health.state ?? '') ? SETTLING_MS : REFRESH_MS),
  });
}
