import { useQueryClient } from '@tanstack/react-query';
import type { UseQueryResult } from '@tanstack/react-query';
import { formatTime } from '../../api/job-data';
import { ErrorMessage } from '../../components/error-message';
import { PLATFORM_KEY, REFRESH_MS } from './queries';
import styles from './platform.module.css';

/** When the page last heard the platform (the oldest of its reads), and `Refresh now`. */
export function RefreshLine({ queries }: { queries: readonly UseQueryResult[] }) {
  const client = useQueryClient();
  const read = queries.filter((q) => q.dataUpdatedAt > 0);
  const oldest = read.length > 0 ? Math.min(...read.map((q) => q.dataUpdatedAt)) : undefined;
  const fetching = queries.some((q) => q.isFetching);
  return (
    <div className={styles.refresh}>
      <span className="muted">
        {oldest === undefined ? 'Not read yet' : `Updated ${formatTime(oldest)}`} · refreshes every {REFRESH_MS / 1000} s
      </span>
      <button
        type="button"
        className="button"
        disabled={fetching}
        onClick={() => void client.invalidateQueries({ queryKey: PLATFORM_KEY })}
      >
        Refresh now
      </button>
    </div>
  );
}

/** A refresh that failed after an earlier one succeeded: what the page shows stays, said to be as old as it is, while the page keeps asking. */
export function RefreshFailure({ queries }: { queries: readonly UseQueryResult[] }) {
  const failed = queries.find((q) => q.isError && q.data !== undefined);
  if (failed === undefined) return null;
  return (
    <div className="stack">
      <ErrorMessage error={failed.error} title="Refreshing failed" />
      <p className={styles.note}>
        The last refresh failed at {formatTime(failed.errorUpdatedAt)}. The page shows what the platform answered at{' '}
        {formatTime(failed.dataUpdatedAt)} and keeps asking every {REFRESH_MS / 1000} s.
      </p>
    </div>
  );
}
