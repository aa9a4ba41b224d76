import { useCallback } from 'react';
import { useSearchParams } from 'react-router';
import type { NavigateOptions } from 'react-router';

/** Changes the page's query: `next` is the query as the browser holds it now, to edit or replace. */
export type EditSearch = (change: (next: URLSearchParams) => URLSearchParams | void, options?: NavigateOptions) => void;

/**
 * The page's URL query, and a way to change it that never undoes a change made a moment before.
 * The router draws a new URL in a transition, so a render (and whatever it hands out, such as a
 * filter's settled text) can still hold the query from before the last change: Clear filters, then
 * a filter typed before the cleared list was drawn, put the cleared filters back. An edit therefore
 * starts from the browser's URL, which the router writes at once, not from the render's query.
 */
export function useUrlSearch(): [search: URLSearchParams, edit: EditSearch] {
  const [search, setSearch] = useSearchParams();
  const edit = useCallback<EditSearch>(
    (change, options) => {
      const next = new URLSearchParams(window.location.search);
      setSearch(change(next) ?? next, options);
    },
    [setSearch],
  );
  return [search, edit];
}
