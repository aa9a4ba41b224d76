import { useNow } from '../../hooks/use-now';
import { AdaptersSection } from './adapters-section';
import { ApplicationsSection } from './applications-section';
import { IntegrationsSection } from './integrations-section';
import { PlatformSummary } from './platform-summary';
import { summaryOf } from './platform-status';
import { useAdapters, useIntegrations, useServer, useServices } from './queries';
import { RefreshFailure, RefreshLine } from './refresh';
import { ServerSection } from './server-section';
import styles from './platform.module.css';

/**
 * `/console/platform`: whether the platform and everything it talks to is healthy, problems first:
 * a summary line, then the adapters, the applications (one row a service), the integrations and the
 * server, each refreshed every 10 s; start, stop and restart where the state allows.
 */
export function PlatformPage() {
  const services = useServices();
  const adapters = useAdapters();
  const integrations = useIntegrations();
  const server = useServer();
  const now = useNow(true);
  const queries = [services, adapters, integrations, server] as const;
  const unreadable = [
    services.data === undefined && services.isError ? 'applications' : undefined,
    adapters.data === undefined && adapters.isError ? 'adapters' : undefined,
    server.data === undefined && server.isError ? 'server' : undefined,
  ].filter((what): what is string => what !== undefined);
  const loading = [services, adapters, server].some((q) => q.isPending && !q.isError);
  const summary = loading ? undefined : summaryOf(services.data ?? [], adapters.data?.rows ?? [], server.data?.infra ?? [], unreadable);
  return (
    <div className="page">
      <div className="page-header">
        <h1>Platform</h1>
        <RefreshLine queries={queries} />
      </div>
      <RefreshFailure queries={queries} />
      <PlatformSummary summary={summary} />
      <AdaptersSection
        rows={adapters.data?.rows}
        records={adapters.data?.records}
        total={adapters.data?.total ?? 0}
        pending={adapters.isPending}
        error={adapters.error}
        now={now}
      />
      <ApplicationsSection rows={services.data} pending={services.isPending} error={services.error} now={now} />
      <div className={styles.columns}>
        <IntegrationsSection
          rows={integrations.data?.rows}
          total={integrations.data?.total ?? 0}
          pending={integrations.isPending}
          error={integrations.error}
        />
        <ServerSection data={server.data} pending={server.isPending} error={server.error} />
      </div>
    </div>
  );
}
