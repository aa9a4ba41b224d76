import { useEffect, useRef } from 'react';

/** What a list's answer says of its pages: the rows that match, per page, and those on this page. */
export interface PageAnswer {
  total: number;
  limit: number;
  count: number;
  /** False when the total is a lower bound (the platform stopped counting): the last page is then unknown. */
  exact?: boolean;
}

/**
 * A page past the end of a list (a stale link, `?page=99`, a list that shrank) goes to the last
 * page, in place of the address: never an empty page with "nothing matches" while rows do.
 * `answer` is the answer to the page asked for (not a previous one kept on screen).
 */
export function usePageClamp(page: number, answer: PageAnswer | undefined, goTo: (page: number) => void): void {
  const latest = useRef(goTo);
  useEffect(() => {
    latest.current = goTo;
  });
  const total = answer?.total ?? 0;
  const limit = answer?.limit ?? 0;
  const count = answer?.count ?? 0;
  const known = answer !== undefined && answer.exact !== false;
  useEffect(() => {
    if (!known || count > 0 || page <= 1 || total <= 0 || limit <= 0) return;
    const last = Math.max(1, Math.ceil(total / limit));
    if (page > last) latest.current(last);
  }, [known, count, page, total, limit]);
}
