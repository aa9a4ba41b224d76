import { Fragment } from 'react';
import { formatDuration } from '../../api/job-data';
import type { HealthStatus, ServerHealth, SystemHealth } from '../../api/platform';
import { ErrorMessage } from '../../components/error-message';
import { StatusBadge } from '../../components/status-badge';
import { TONE_BADGE, formatBytes } from './platform-status';
import type { InfraRow } from './platform-status';
import styles from './platform.module.css';

/** The disk under the embedded store: free of total, and what the store keeps free (it refuses writes below). */
function diskText(disk: { freeBytes: number; totalBytes: number; minFreeBytes: number } | undefined): string | undefined {
  if (disk === undefined) return undefined;
  return `${formatBytes(disk.freeBytes)} free of ${formatBytes(disk.totalBytes)}; writes are refused under ${formatBytes(disk.minFreeBytes)}`;
}

/**
 * The server as `/health/server`, `/health/status` and `/health/system` answer: the release, the
 * bus and the store, and the admin replica that answered (its process and host).
 */
export function ServerSection({
  data,
  pending,
  error,
}: {
  data: { server: ServerHealth; status: HealthStatus; system: SystemHealth; infra: InfraRow[] } | undefined;
  pending: boolean;
  error: unknown;
}) {
  const server = data?.server;
  const system = data?.system;
  const store = data?.status.services.find((s) => s.service.startsWith('store'));
  const memory = server?.memory;
  return (
    <section aria-labelledby="server-title" className={`card ${styles.section}`}>
      <div className={styles.sectionHeader}>
        <h2 id="server-title">Server</h2>
        {server ? (
          <span className="muted">
            the admin replica that answered{server.hostname ? ` on ${server.hostname}` : ''}
            {server.pid !== undefined ? `, process ${server.pid}` : ''}
          </span>
        ) : null}
      </div>
      {data === undefined ? (
        error ? (
          <ErrorMessage error={error} title="The server’s health cannot be read" />
        ) : pending ? (
          <p className="muted">Reading the server’s health…</p>
        ) : null
      ) : (
        <dl className={`definition-list ${styles.facts}`}>
          <dt>Release</dt>
          <dd className="mono">{server?.release ?? server?.version ?? '—'}</dd>
          {data.infra.map((row) => (
            <Fragment key={row.name}>
              <dt>{row.label}</dt>
              <dd>
                <StatusBadge status={TONE_BADGE[row.tone]} label={row.status} />
                {row.kind ? <span className="muted"> {row.kind}</span> : null}
                {row.label === 'Store' && diskText(store?.disk) ? <span className={styles.sub}>disk: {diskText(store?.disk)}</span> : null}
              </dd>
            </Fragment>
          ))}
          <dt>Uptime</dt>
          <dd>{server?.uptime !== undefined ? formatDuration(server.uptime * 1000) : '—'}</dd>
          <dt>Node.js</dt>
          <dd className="mono">{server?.node ?? '—'}</dd>
          <dt>Memory</dt>
          <dd>
            {memory?.rss !== undefined ? `${formatBytes(memory.rss)} resident` : '—'}
            {memory?.heapUsed !== undefined && memory.heapTotal !== undefined
              ? `, heap ${formatBytes(memory.heapUsed)} of ${formatBytes(memory.heapTotal)}`
              : ''}
          </dd>
          <dt>Host</dt>
          <dd>
            {[
              system?.hostname,
              system?.platform && `${system.platform} ${system.arch ?? ''}`.trim(),
              system?.cpus && `${system.cpus.length} CPUs`,
            ]
              .filter(Boolean)
              .join(', ') || '—'}
            {system?.loadavg ? (
              <span className={styles.sub}>load {system.loadavg.map((n) => n.toFixed(2)).join(' ')} (1, 5, 15 min)</span>
            ) : null}
            {system?.freemem !== undefined && system.totalmem !== undefined ? (
              <span className={styles.sub}>
                memory {formatBytes(system.freemem)} free of {formatBytes(system.totalmem)}
              </span>
            ) : null}
          </dd>
        </dl>
      )}
    </section>
  );
}
