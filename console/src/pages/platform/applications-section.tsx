import { useEffect, useRef, useState } from 'react';
import { formatDuration } from '../../api/job-data';
import { platform } from '../../api/platform';
import type { ApplicationLifecycle } from '../../api/platform';
import { StatusBadge } from '../../components/status-badge';
import { DONE, LifecycleActions, VERB } from './lifecycle-actions';
import { OutcomeLine, RowsNotRead } from './outcome';
import type { Outcome } from './outcome';
import { TONE_BADGE, serviceActions, serviceText } from './platform-status';
import type { LifecycleAction, ServiceRow } from './platform-status';
import styles from './platform.module.css';

const NUMBER = new Intl.NumberFormat();

function replicasText(row: ServiceRow): string {
  const count = row.running + row.paused;
  if (count === 0) return 'none answers';
  return `${row.running} of ${count} running${row.paused > 0 ? ` (${row.paused} paused)` : ''}`;
}

/** Why a service is not healthy, in a sentence. */
function reasonText(row: ServiceRow): string | undefined {
  if (row.state === 'DEAD') return `No replica of the ${row.service} service answers: its routes fail until a process of it starts again.`;
  if (row.state === 'STOPPED')
    return 'Stopped by an operator: its routes answer 503 SERVICE_UNAVAILABLE until it is started; replicas that start meanwhile start stopped.';
  if (!row.inSync) return 'Its replicas are being brought in line with the state, log level and settings operators set.';
  return undefined;
}

/** What the change does to the service and the applications that share it, said before it is done (docs/administration.md). */
function ConfirmText({ row, action }: { row: ServiceRow; action: LifecycleAction }) {
  const count = row.running + row.paused;
  const replicas = `${count} replica${count === 1 ? '' : 's'}`;
  const others = row.applications.filter((name) => name !== row.actionName);
  return (
    <>
      {action === 'stop' ? (
        <p>
          Every replica of the <strong>{row.service}</strong> service ({replicas}) stops taking new requests: it finishes those it holds and
          stays registered, paused. Its routes answer <code>503 SERVICE_UNAVAILABLE</code> until someone starts it; a replica that starts
          meanwhile starts stopped.
        </p>
      ) : (
        <p>
          Every replica of the <strong>{row.service}</strong> service ({replicas}) finishes the requests it holds, then takes requests again
          at once, at the log level and with the live settings operators set. Its processes are not restarted: a setting read at start (
          <code>NAP_*</code>) needs a restart of the process.
        </p>
      )}
      {others.length > 0 ? (
        <p>
          {others.join(', ')} {others.length === 1 ? 'shares' : 'share'} the service with {row.actionName}:{' '}
          {action === 'stop' ? 'they stop with it.' : 'they restart with it.'}
        </p>
      ) : null}
    </>
  );
}

/** Start of a stopped service at once; stop and restart after a confirmation that says what they do. */
function ServiceActions({ row, onOutcome }: { row: ServiceRow; onOutcome: (outcome: Outcome) => void }) {
  return (
    <LifecycleActions
      actions={row.isProtected ? [] : serviceActions(row)}
      none={row.isProtected ? <span className={styles.protectedNote}>Serves log-in: it cannot be stopped.</span> : null}
      change={(action) => platform.changeApplication(row.actionName, action)}
      doneText={(answer: ApplicationLifecycle, action) =>
        `${answer.applications.join(', ')} ${DONE[action]}: ${answer.state} (${answer.replicas} replica${answer.replicas === 1 ? '' : 's'} of ${answer.service}).`
      }
      onOutcome={onOutcome}
      buttonName={(action) => `${VERB[action]} ${row.name}`}
      primary={(action) => action === 'start'}
      title={(action) => `${VERB[action]} ${serviceText(row)}?`}
      explain={(action) => (
        <>
          <ConfirmText row={row} action={action} />
          <p className="muted">The change is recorded in the audit trail and in the application’s changelog.</p>
        </>
      )}
      confirm={(action) => `${VERB[action]} ${row.applications.length === 1 ? row.actionName : `${row.applications.length} applications`}`}
      failedTitle={(action) => `${serviceText(row)} not ${DONE[action]}`}
    />
  );
}

/**
 * The platform's applications, one row a service (its applications start and stop together):
 * state from discovery, replicas running, versions, requests and errors, and the actions its state allows.
 */
export function ApplicationsSection({
  rows,
  pending,
  error,
  now,
}: {
  rows: ServiceRow[] | undefined;
  pending: boolean;
  error: unknown;
  now: number;
}) {
  const [outcome, setOutcome] = useState<Outcome>();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    // the button that was used may be gone with the state it acted on: the focus goes to the section, which says what happened
    if (outcome !== undefined) heading.current?.focus();
  }, [outcome]);
  const applications = rows?.reduce((sum, row) => sum + row.applications.length, 0) ?? 0;
  return (
    <section aria-labelledby="applications-title" className={`card ${styles.section}`}>
      <div className={styles.sectionHeader}>
        <h2 id="applications-title" ref={heading} tabIndex={-1}>
          Applications
        </h2>
        {rows ? (
          <span className="muted">
            {applications} applications served by {rows.length} services; the applications of a service start and stop together
          </span>
        ) : null}
      </div>
      <OutcomeLine outcome={outcome} />
      {rows === undefined ? (
        <RowsNotRead what="applications" error={error} pending={pending} />
      ) : (
        <div className={styles.tableWrap}>
          <table className="table">
            <caption className="visually-hidden">Applications</caption>
            <thead>
              <tr>
                <th scope="col">Applications</th>
                <th scope="col">State</th>
                <th scope="col">Replicas</th>
                <th scope="col">Version</th>
                <th scope="col">Requests</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => {
                const reason = reasonText(row);
                return (
                  <tr key={row.service} data-tone={row.tone}>
                    <th scope="row" className={styles.applications}>
                      <span className={styles.name}>{row.name}</span>
                      <span className={styles.sub}>service {row.service}</span>
                    </th>
                    <td>
                      <StatusBadge status={TONE_BADGE[row.tone]} label={row.state} />
                      {row.state === 'RUNNING' && row.upSince !== undefined ? (
                        <span className={styles.sub}>for {formatDuration(Math.max(0, now - row.upSince))}</span>
                      ) : null}
                      {reason ? <span className={styles.reason}>{reason}</span> : null}
                    </td>
                    <td>{replicasText(row)}</td>
                    <td className={`mono ${styles.versions}`}>{row.versions.length > 0 ? row.versions.join(', ') : '—'}</td>
                    <td>
                      {row.requests === undefined ? '—' : NUMBER.format(row.requests)}
                      {row.errors ? <span className={styles.errors}> · {NUMBER.format(row.errors)} errors</span> : null}
                    </td>
                    <td className={styles.actionsCell}>
                      <ServiceActions row={row} onOutcome={setOutcome} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
