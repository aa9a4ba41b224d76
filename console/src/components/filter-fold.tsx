import { useEffect, useId, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import styles from './filter-fold.module.css';

/** Below this width a filter bar is folded (filter-fold.module.css says the same). */
const NARROW = '(max-width: 639.98px)';

/** How many of a list's filters are set: the values of the URL that narrow it, one each when not empty. */
export function setCount(values: readonly (string | undefined)[]): number {
  return values.filter((value) => value !== undefined && value !== '').length;
}

/**
 * A list's filter bar, folded on a phone behind a `Filters` button that says how many filters are
 * set (`Filters (2)`: those of the URL, a link's included) and opens the bar in place, under it; on
 * a wider page the button is not shown and the bar is laid out as before. The bar stays mounted
 * while folded, so what is typed in it and not yet sent is kept. The button is a disclosure
 * (`aria-expanded`): focus stays on it as it opens, and Tab goes on into the bar, which follows it.
 * When the page narrows while focus is in the bar, the bar stays open rather than hiding the field in use.
 */
export function FilterFold({ count, children }: { count: number; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  // the bar is hidden by a class set here, not by the media query alone: narrowing the page shows
  // the button first, and the bar folds only once it is known that the focus is not in it
  const [narrow, setNarrow] = useState(() => window.matchMedia(NARROW).matches);
  const id = useId();
  const body = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const query = window.matchMedia(NARROW);
    const follow = () => {
      if (query.matches && body.current?.contains(document.activeElement)) setOpen(true);
      setNarrow(query.matches);
    };
    query.addEventListener('change', follow);
    return () => query.removeEventListener('change', follow);
  }, []);
  const folded = narrow && !open;
  return (
    <div className={`${styles.fold} ${open ? styles.open : ''} ${folded ? styles.folded : ''}`}>
      <button
        type="button"
        className={`button ${styles.toggle} ${count > 0 ? styles.set : ''}`}
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen((was) => !was)}
      >
        <span className={styles.chevron} aria-hidden="true">
          ▶
        </span>
        {count > 0 ? `Filters (${count})` : 'Filters'}
      </button>
      <div id={id} ref={body} className={styles.body}>
        {children}
      </div>
    </div>
  );
}
