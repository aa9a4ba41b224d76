import { useCallback } from 'react';
import { useUrlSearch } from './use-url-search';

/**
 * The task selected on a graph, kept in the URL (`?task=`) so that a link or a reload shows it:
 * selecting the selected task again, or none, clears it. The URL is replaced, not pushed: Back
 * leaves the page rather than walking through the tasks looked at.
 */
export function useSelectedTask(): [selected: string | undefined, select: (taskId: string | undefined) => void] {
  const [search, editSearch] = useUrlSearch();
  const selected = search.get('task') ?? undefined;
  const select = useCallback(
    (taskId: string | undefined) => {
      editSearch(
        (next) => {
          if (taskId === undefined || taskId === next.get('task')) next.delete('task');
          else next.set('task', taskId);
        },
        { replace: true },
      );
    },
    [editSearch],
  );
  return [selected, select];
}
