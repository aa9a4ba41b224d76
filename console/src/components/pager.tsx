import { useId } from 'react';
import styles from './pager.module.css';

const NUMBER = new Intl.NumberFormat();

/** The page a list shows: what the platform answered, kept on screen while the next page loads. */
export interface ShownPage {
  skip: number;
  limit: number;
  /** Rows on screen. */
  count: number;
  total: number;
  /** False when the platform stopped counting: the total is a lower bound ("more than"). */
  exact: boolean;
  /** Whether a page follows, when the total is not exact (the platform's `nextPageSkip`). */
  hasNext?: boolean;
}

/**
 * A list's pager, paged by the platform: the range of rows on screen and of how many, the rows per
 * page, Previous and Next. The range and page number describe the rows on screen (the previous
 * answer while another page loads), not the page asked for.
 */
export function Pager({
  label,
  noun,
  shown,
  page,
  limit,
  sizes,
  loading,
  onChange,
}: {
  /** The navigation's name, "Pages of jobs". */
  label: string;
  /** What the rows are, singular and plural: ['job', 'jobs']. */
  noun: readonly [string, string];
  shown: ShownPage | undefined;
  /** The page and rows per page asked for (the URL's). */
  page: number;
  limit: number;
  sizes: readonly number[];
  /** True while another page loads. */
  loading: boolean;
  onChange: (next: { page: number; limit?: number }) => void;
}) {
  const sizeId = useId();
  const skip = shown?.skip ?? 0;
  const perPage = shown?.limit || limit;
  const total = shown?.total ?? 0;
  const exact = shown?.exact !== false;
  const more = exact ? '' : 'more than ';
  const pages = Math.max(1, Math.ceil(total / perPage));
  const atEnd = exact ? page >= pages : shown?.hasNext === false;
  const first = skip + 1;
  const last = skip + (shown?.count ?? 0);
  return (
    <nav aria-label={label} className={styles.pager} aria-busy={loading}>
      <div className="row">
        <span aria-live="polite">
          {shown === undefined
            ? ''
            : shown.count === 0
              ? `${more}${NUMBER.format(total)} ${noun[1]}`
              : `${NUMBER.format(first)}–${NUMBER.format(last)} of ${more}${NUMBER.format(total)} ${total === 1 && exact ? noun[0] : noun[1]}`}
        </span>
        {loading ? (
          <span className="muted" role="status">
            Loading page {NUMBER.format(page)}…
          </span>
        ) : null}
      </div>
      <div className="row">
        <label htmlFor={sizeId} className={styles.inlineLabel}>
          Rows per page
        </label>
        <select id={sizeId} value={limit} onChange={(e) => onChange({ limit: Number(e.target.value), page: 1 })}>
          {sizes.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </select>
        <button type="button" className="button" disabled={page <= 1} onClick={() => onChange({ page: page - 1 })}>
          Previous page
        </button>
        <span>
          Page {NUMBER.format(Math.floor(skip / perPage) + 1)} of {more}
          {NUMBER.format(pages)}
        </span>
        <button type="button" className="button" disabled={atEnd} onClick={() => onChange({ page: page + 1 })}>
          Next page
        </button>
      </div>
    </nav>
  );
}
