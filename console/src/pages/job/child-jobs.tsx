import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { plainName } from '../../api/names';
import { nap } from '../../api/nap';
import type { JobDocument } from '../../api/nap';
import { StatusBadge } from '../../components/status-badge';
import styles from './job-page.module.css';

export type ChildJob = NonNullable<JobDocument['tasks'][string]['childJobs']>[number];

/** The most child jobs whose status the job's panel asks for at once (a loop may start hundreds). */
const CHILD_STATUS_LIMIT = 100;

/**
 * The jobs this one started, each with its status and the end of its id: a loop starts one job of
 * the same workflow per item, and which of them failed is what a person looks for. Their statuses
 * come from one list request under `jobs`, which the live stream keeps current.
 */
export function ChildJobs({ childJobs, titleId }: { childJobs: readonly ChildJob[]; titleId: string }) {
  const ids = childJobs.slice(0, CHILD_STATUS_LIMIT).map((child) => child._id);
  const statuses = useQuery({
    queryKey: ['jobs', 'children', ids],
    queryFn: () => nap.jobs({ in: { _id: ids.join(',') }, include: '_id,status', limit: ids.length }),
    staleTime: 10_000,
  });
  const statusOf = new Map((statuses.data?.items ?? []).map((item) => [String(item._id), String(item.status ?? '')]));
  return (
    <section aria-labelledby={titleId}>
      <h3 id={titleId}>Child jobs</h3>
      <ul className={styles.children}>
        {childJobs.map((child) => {
          const status = statusOf.get(child._id);
          return (
            <li key={child._id}>
              {/* the statuses first, in a column of their own: the one in error stands out down the list */}
              <span className={styles.childStatus}>{status ? <StatusBadge status={status} /> : null}</span>
              <span className={styles.childName}>
                <Link to={`/jobs/${encodeURIComponent(child._id)}`} title={child._id}>
                  {plainName(child.name ?? '') || child._id}
                </Link>{' '}
                <span className="mono muted nowrap">…{child._id.slice(-6)}</span>
                {child.iteration !== undefined ? <span className="muted nowrap"> item {child.iteration}</span> : null}
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
