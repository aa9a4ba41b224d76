import { useCallback, useMemo, useState } from 'react';
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
 *
 * Until the router has drawn them, the queries asked for are the ones returned: a select bound to
 * the query shows the option just chosen at once. Otherwise the render in between puts the old
 * option back, and the next arrow key (a person going down a Status list with the keyboard, the
 * key held) starts from there and lands on another option than the one they chose.
 */
export function useUrlSearch(): [search: URLSearchParams, edit: EditSearch] {
  const [routed, setSearch] = useSearchParams();
  // the queries asked for and not yet drawn by the router, oldest first
  const [asked, setAsked] = useState<readonly string[]>([]);
  const routedText = routed.toString();
  const [drawn, setDrawn] = useState(routedText);
  if (routedText !== drawn) {
    setDrawn(routedText);
    // drawn: that one and those before it are done; a query never asked for (Back, a link) ends them all
    const at = asked.indexOf(routedText);
    setAsked(at === -1 ? [] : asked.slice(at + 1));
  }
  const edit = useCallback<EditSearch>(
    (change, options) => {
      const now = new URLSearchParams(window.location.search);
      const next = change(now) ?? now;
      const text = next.toString();
      setAsked((before) => [...before, text]);
      setSearch(next, options);
    },
    [setSearch],
  );
  const latest = asked.at(-1);
  const search = useMemo(() => (latest === undefined ? routed : new URLSearchParams(latest)), [latest, routed]);
  return [search, edit];
}
