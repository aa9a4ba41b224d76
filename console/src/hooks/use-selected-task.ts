import { useCallback } from 'react';
import { useSearchParams } from 'react-router';

/**
 * The task selected on a graph, kept in the URL (`?task=`) so that a link or a reload shows it:
 * selecting the selected task again, or none, clears it. The URL is replaced, not pushed: Back
 * leaves the page rather than walking through the tasks looked at.
 */
export function useSelectedTask(): [selected: string | undefined, select: (taskId: string | undefined) => void] {
  const [search, setSearch] = useSearchParams();
  const selected = search.get('task') ?? undefined;
  const select = useCallback(
    (taskId: string | undefined) => {
      const next = new URLSearchParams(search);
      if (taskId === undefined || taskId === selected) next.delete('task');
      else next.set('task', taskId);
      setSearch(next, { replace: true });
    },
    [search, selected, setSearch],
  );
  return [selected, select];
}
