import { StatusBadge } from '../../components/status-badge';
import { RowsNotRead } from './outcome';
import type { IntegrationRow } from './platform-status';
import styles from './platform.module.css';

/**
 * The integrations (instances of OpenAPI models): their model, server and authentication, and
 * whether the platform has them active. They have no lifecycle and no connection check: a call
 * that fails fails its task.
 */
export function IntegrationsSection({
  rows,
  total,
  pending,
  error,
}: {
  rows: IntegrationRow[] | undefined;
  total: number;
  pending: boolean;
  error: unknown;
}) {
  return (
    <section aria-labelledby="integrations-title" className={`card ${styles.section}`}>
      <div className={styles.sectionHeader}>
        <h2 id="integrations-title">Integrations</h2>
        {rows && rows.length > 0 ? (
          <span className="muted">
            {total} from OpenAPI models{total > rows.length ? ` (the first ${rows.length})` : ''}
          </span>
        ) : null}
      </div>
      {rows === undefined ? (
        <RowsNotRead what="integrations" error={error} pending={pending} />
      ) : rows.length === 0 ? (
        <p className={styles.note}>
          No integration yet. Import a model with <code>POST /integration-models</code>, then create an integration of it with{' '}
          <code>POST /integrations</code>: see <code>docs/integrations.md</code>.
        </p>
      ) : (
        <>
          <div className={styles.tableWrap}>
            <table className="table">
              <caption className="visually-hidden">Integrations</caption>
              <thead>
                <tr>
                  <th scope="col">Integration</th>
                  <th scope="col">Model</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.name} data-tone={row.active ? 'ok' : 'stopped'}>
                    <th scope="row">
                      <span className={styles.name}>{row.name}</span>
                      {row.server ? <span className={`${styles.sub} mono`}>{row.server}</span> : null}
                    </th>
                    <td>
                      <span className="mono">{row.model ?? '—'}</span>
                      {row.authentication ? <span className={styles.sub}>authentication: {row.authentication}</span> : null}
                    </td>
                    <td>
                      <StatusBadge status={row.active ? 'complete' : 'paused'} label={row.active ? 'ACTIVE' : 'INACTIVE'} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p className={styles.note}>
            The platform checks no connection of an integration: it calls the system when a task does, and a call that fails fails that
            task.
          </p>
        </>
      )}
    </section>
  );
}
