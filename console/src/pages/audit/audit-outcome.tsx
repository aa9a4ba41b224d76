import type { AuditRecord } from '../../api/nap';
import styles from './audit-outcome.module.css';

/** How a recorded request ended: a shape, the status and, for a failure, its error code; in words for a screen reader. */
export function AuditOutcome({ outcome }: { outcome: AuditRecord['outcome'] }) {
  const failed = outcome.status >= 400;
  return (
    <span className={failed ? styles.failure : styles.success}>
      <span className="nowrap">
        <span aria-hidden="true">{failed ? '✕' : '✓'}</span> {outcome.status}
      </span>
      {outcome.code ? <span className={styles.code}> {outcome.code}</span> : null}
      <span className="visually-hidden">{failed ? ' (refused or failed)' : ' (succeeded)'}</span>
    </span>
  );
}
