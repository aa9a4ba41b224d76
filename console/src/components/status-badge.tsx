import { StatusIcon } from './status-icon';
import styles from './status-badge.module.css';

const KNOWN = new Set(['running', 'paused', 'complete', 'error', 'canceled', 'incomplete', 'pending', 'waiting']);

/** A status as people read it: the platform's word (what the API, the filters and the accessible names use), its shape and colour. */
export function StatusBadge({ status, label }: { status: string; label?: string }) {
  const known = KNOWN.has(status) ? status : 'incomplete';
  return (
    <span className={`${styles.badge} ${styles[known] ?? ''}`} data-status={status}>
      <StatusIcon status={known} className={styles.icon} />
      {label ?? status}
    </span>
  );
}
