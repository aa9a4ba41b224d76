import { useQuery } from '@tanstack/react-query';
import { jobStopReason } from '../../api/job-data';
import type { JobSummary } from '../../api/job-data';
import { nap } from '../../api/nap';

/** A task id the list may name in a projection (`tasks.<id>.summary`): no separator of the `include` parameter in it. */
const PLAIN_ID = /^[A-Za-z0-9_-]+$/;

export interface RowContext {
  /** Why each job in error on the page stopped: the task and its own error (see `jobStopReason`). */
  reasons: ReadonlyMap<string, string>;
  /** The name of each parent job of a child job on the page. */
  parents: ReadonlyMap<string, string>;
}

/**
 * What a row of the jobs list says beyond its own fields, read in one request for the whole page:
 * for a job in error, where and why it stopped (only the tasks it stopped at, not the whole
 * document); for a job a `childJob` task started, its parent's name.
 */
export function useRowContext(rows: readonly JobSummary[]): RowContext {
  const stopped = rows.filter((row) => row.status === 'error' && (row.errorTasks?.length ?? 0) > 0);
  const parentIds = [...new Set(rows.flatMap((row) => (row.parentId !== undefined ? [row.parentId] : [])))].sort();
  const taskIds = [...new Set(stopped.flatMap((row) => row.errorTasks ?? []))].filter((id) => PLAIN_ID.test(id)).sort();
  const ids = [...new Set([...stopped.map((row) => row._id), ...parentIds])].sort();
  const include = [
    '_id',
    'name',
    ...taskIds.flatMap((id) => [`tasks.${id}.summary`, `tasks.${id}.variables.error`, `tasks.${id}.metrics.finish_state`]),
  ];
  const context = useQuery({
    queryKey: ['job-row-context', ids, taskIds],
    queryFn: ({ signal }) => nap.jobs({ in: { _id: ids.join(',') }, include: include.join(','), limit: ids.length }, signal),
    enabled: ids.length > 0,
    staleTime: 60_000,
  });
  const byId = new Map((context.data?.items ?? []).map((item) => [String(item._id), item]));
  const reasons = new Map<string, string>();
  for (const row of stopped) {
    const reason = byId.has(row._id) ? jobStopReason(byId.get(row._id) ?? {}, row.errorTasks ?? []) : undefined;
    if (reason !== undefined) reasons.set(row._id, reason);
  }
  const parents = new Map<string, string>();
  for (const id of parentIds) {
    const name = byId.get(id)?.name;
    if (typeof name === 'string' && name !== '') parents.set(id, name);
  }
  return { reasons, parents };
}
