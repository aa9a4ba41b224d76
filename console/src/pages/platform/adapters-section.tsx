import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { formatDuration } from '../../api/job-data';
import type { AdapterRecord } from '../../api/platform';
import { StatusBadge } from '../../components/status-badge';
import { relativeTime } from '../automations/trigger-times';
import { AdapterActions } from './adapter-actions';
import { OutcomeLine, RowsNotRead } from './outcome';
import type { Outcome } from './outcome';
import { TONE_BADGE } from './platform-status';
import type { AdapterRow } from './platform-status';
import styles from './platform.module.css';

/** How long ago a moment was: `3 min 05 s ago`, `just now`. */
export function agoText(at: number, now: number): string {
  const text = relativeTime(Math.min(at, now), now);
  return text === 'now' ? 'just now' : text;
}

/** Since when an adapter is in its state, as far as the platform says: `for 4 min 02 s`, or who stopped it and when. */
export function SinceText({ row, now }: { row: Pick<AdapterRow, 'state' | 'since' | 'stoppedBy'>; now: number }) {
  if (row.since === undefined) return null;
  return (
    <span className={styles.sub}>
      {row.state === 'STOPPED'
        ? `by ${row.stoppedBy ?? 'an operator'}, ${agoText(row.since, now)}`
        : `for ${formatDuration(Math.max(0, now - row.since))}`}
    </span>
  );
}

/** The connection and, when it is not well, why, in the platform's words and what it means for the jobs that call it. */
export function ConnectionText({ row, now }: { row: AdapterRow; now: number }) {
  const failing = row.state === 'DEAD' || (row.state === 'RUNNING' && row.connection === 'OFFLINE');
  return (
    <>
      <span className={row.connection === 'OFFLINE' ? styles.offline : row.connection === 'ONLINE' ? styles.online : 'muted'}>
        {row.connection}
      </span>
      {row.lastCheck && (row.state === 'RUNNING' || row.state === 'STARTING') ? (
        <span className="muted"> · checked {agoText(Date.parse(row.lastCheck), now)}</span>
      ) : null}
      {failing && row.lastError ? <span className={styles.reason}>{row.lastError.message}</span> : null}
      {row.state === 'DEAD' ? (
        <span className={`${styles.reason} muted`}>
          Connection checks stopped. Tasks that call it fail with <code>ADAPTER_NOT_RUNNING</code> until it is restarted.
        </span>
      ) : null}
      {row.state === 'STOPPED' ? (
        <span className={`${styles.reason} muted`}>
          Not checked while stopped. Tasks that call it fail with <code>ADAPTER_NOT_RUNNING</code>.
        </span>
      ) : null}
    </>
  );
}

/**
 * The adapters, problems first: each one's type and model, state and since when, its connection and
 * the reason the platform gives, and the start, stop and restart its state allows. A name opens the adapter's page.
 */
export function AdaptersSection({
  rows,
  records,
  total,
  pending,
  error,
  now,
}: {
  rows: AdapterRow[] | undefined;
  records: ReadonlyMap<string, AdapterRecord> | undefined;
  total: number;
  pending: boolean;
  error: unknown;
  now: number;
}) {
  const [outcome, setOutcome] = useState<Outcome>();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    // the button that was used is gone with the state it acted on: the focus goes to the section, which says what happened
    if (outcome !== undefined) heading.current?.focus();
  }, [outcome]);
  const counts = new Map<string, number>();
  for (const row of rows ?? []) counts.set(row.state, (counts.get(row.state) ?? 0) + 1);
  return (
    <section aria-labelledby="adapters-title" className={`card ${styles.section}`}>
      <div className={styles.sectionHeader}>
        <h2 id="adapters-title" ref={heading} tabIndex={-1}>
          Adapters
        </h2>
        {rows && rows.length > 0 ? (
          <span className="muted">
            {[...counts].map(([state, count]) => `${count} ${state}`).join(', ')}
            {total > rows.length ? ` (the first ${rows.length} of ${total})` : ''}
          </span>
        ) : null}
      </div>
      <OutcomeLine outcome={outcome} />
      {rows === undefined ? (
        <RowsNotRead what="adapters" error={error} pending={pending} />
      ) : rows.length === 0 ? (
        <p className={styles.note}>
          No adapter yet. Create one with <code>nap create adapter</code> or <code>POST /adapters</code>: see{' '}
          <code>docs/integrations.md</code>, Adapters.
        </p>
      ) : (
        <div className={styles.tableWrap}>
          <table className="table">
            <caption className="visually-hidden">Adapters</caption>
            <thead>
              <tr>
                <th scope="col">Adapter</th>
                <th scope="col">Type</th>
                <th scope="col">State</th>
                <th scope="col">Connection</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.name} data-tone={row.tone}>
                  <th scope="row" className={styles.adapterName}>
                    <Link to={`adapters/${encodeURIComponent(row.name)}`} className={styles.name}>
                      {row.name}
                    </Link>
                    {row.model ? <span className={`${styles.sub} mono`}>{row.model}</span> : null}
                  </th>
                  <td>{row.type ?? '—'}</td>
                  <td className={styles.stateCell}>
                    <StatusBadge
                      status={TONE_BADGE[row.tone === 'problem' && row.state === 'RUNNING' ? 'ok' : row.tone]}
                      label={row.state}
                    />
                    <SinceText row={row} now={now} />
                  </td>
                  <td className={styles.connectionCell}>
                    <ConnectionText row={row} now={now} />
                  </td>
                  <td className={styles.actionsCell}>
                    <AdapterActions name={row.name} state={row.state} record={records?.get(row.name)} onOutcome={setOutcome} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
