import { triggerKind } from '@nap/contracts/dist/trigger-kinds';
import { Link } from 'react-router';
import { formatDuration, formatTime, isCancelable, jobDurationMs } from '../../api/job-data';
import type { JobSummary } from '../../api/job-data';
import { StatusBadge } from '../../components/status-badge';
import { WorkflowName, useProjectNames } from '../../components/workflow-name';
import { plainName } from '../../api/names';
import type { JobListParams, SortColumn } from './job-list-params';
import { useRowContext } from './use-row-context';
import styles from './jobs-page.module.css';

interface JobTableProps {
  jobs: readonly JobSummary[];
  params: JobListParams;
  now: number;
  onSort: (column: SortColumn) => void;
  /** Jobs with a manual task waiting for a person, and the id of that task (of one of them). */
  waiting: ReadonlyMap<string, string>;
  /** Row selection for bulk cancel (running and paused jobs only); absent for a caller who may not cancel. */
  selection?: { selected: ReadonlySet<string>; toggle: (id: string) => void; setAll: (ids: string[] | []) => void };
}

const COLUMNS: readonly { column: SortColumn; label: string }[] = [
  { column: 'name', label: 'Name' },
  { column: 'status', label: 'Status' },
  { column: 'started', label: 'Started' },
  { column: 'duration', label: 'Duration' },
  { column: 'startedBy', label: 'Started by' },
];

/** A column header that sorts by its column: a button inside the header cell, the order told by `aria-sort`. */
function SortHeader({
  column,
  label,
  params,
  onSort,
}: {
  column: SortColumn;
  label: string;
  params: JobListParams;
  onSort: JobTableProps['onSort'];
}) {
  const active = params.sort === column;
  const direction = params.order === 'asc' ? 'ascending' : 'descending';
  return (
    <th scope="col" aria-sort={active ? direction : 'none'} className={column === 'name' ? styles.name : undefined}>
      <button type="button" className={styles.sort} onClick={() => onSort(column)}>
        {label}
        <span aria-hidden="true" className={active ? styles.sortActive : styles.sortIdle}>
          {active ? (params.order === 'asc' ? '▲' : '▼') : '↕'}
        </span>
      </button>
    </th>
  );
}

/** The jobs of one page: a real table, the name linking to the job's page. */
export function JobTable({ jobs, params, now, onSort, waiting, selection }: JobTableProps) {
  // only a running or paused job can be canceled: the others have no box to tick
  const cancelable = jobs.filter((job) => isCancelable(job.status));
  const allSelected = selection !== undefined && cancelable.length > 0 && cancelable.every((job) => selection.selected.has(job._id));
  const projects = useProjectNames(jobs.map((job) => job.name));
  const { reasons, parents } = useRowContext(jobs);
  return (
    <table className="table">
      <caption className="visually-hidden">Jobs</caption>
      <thead>
        <tr>
          {selection ? (
            <th scope="col" className={styles.check}>
              <input
                type="checkbox"
                aria-label="Select every running or paused job on this page"
                title={cancelable.length === 0 ? 'No job on this page is running or paused' : undefined}
                checked={allSelected}
                disabled={cancelable.length === 0}
                onChange={() => selection.setAll(allSelected ? [] : cancelable.map((job) => job._id))}
              />
            </th>
          ) : null}
          {COLUMNS.map((c) => (
            <SortHeader key={c.column} column={c.column} label={c.label} params={params} onSort={onSort} />
          ))}
        </tr>
      </thead>
      <tbody>
        {jobs.map((job) => {
          const selected = (selection?.selected.has(job._id) ?? false) && isCancelable(job.status);
          return (
            <tr key={job._id} data-selected={selected ? 'true' : undefined}>
              {selection ? (
                <td className={styles.check}>
                  {isCancelable(job.status) ? (
                    <input
                      type="checkbox"
                      aria-label={`Select ${job.name} (${job._id})`}
                      checked={selected}
                      onChange={() => selection.toggle(job._id)}
                    />
                  ) : null}
                </td>
              ) : null}
              <td className={styles.name}>
                {job.name ? (
                  <WorkflowName name={job.name} projects={projects}>
                    {(plain) => <Link to={`/jobs/${encodeURIComponent(job._id)}`}>{plain}</Link>}
                  </WorkflowName>
                ) : (
                  <Link to={`/jobs/${encodeURIComponent(job._id)}`}>{job._id}</Link>
                )}
                <span className={`${styles.id} mono`} title={job._id}>
                  …{job._id.slice(-6)}
                </span>
                {job.description ? (
                  <div className={`${styles.description} cell-text`} title={job.description}>
                    {job.description}
                  </div>
                ) : null}
                {job.parentId !== undefined ? (
                  <div className={styles.parent}>
                    child of{' '}
                    <Link to={`/jobs/${encodeURIComponent(job.parentId)}`} title={job.parentId}>
                      {plainName(parents.get(job.parentId) ?? '') || 'a job'} …{job.parentId.slice(-6)}
                    </Link>
                  </div>
                ) : null}
              </td>
              <td>
                <span className={styles.statusCell}>
                  <StatusBadge status={job.status} />
                  {waiting.has(job._id) && job.status !== 'canceled' ? (
                    <Link
                      to={`/jobs/${encodeURIComponent(job._id)}?${new URLSearchParams({ task: waiting.get(job._id) ?? '' }).toString()}`}
                      className={styles.waitingLink}
                      title="Open the task that waits"
                    >
                      <StatusBadge status="waiting" label="waiting for a person" />
                    </Link>
                  ) : null}
                </span>
                {reasons.has(job._id) ? (
                  <div className={`${styles.reason} cell-text`} title={reasons.get(job._id)}>
                    {reasons.get(job._id)}
                  </div>
                ) : null}
              </td>
              <td className={styles.time}>{formatTime(job.startTime)}</td>
              <td className={styles.time}>{formatDuration(jobDurationMs(job, now))}</td>
              <td>
                {job.createdBy || '—'}
                {job.trigger ? (
                  <div className="muted">
                    by {triggerKind(job.trigger.type)}{' '}
                    <Link to={`/jobs?${new URLSearchParams({ trigger: job.trigger.id }).toString()}`}>{job.trigger.name}</Link>
                  </div>
                ) : null}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
