import { useMemo, useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { toJobSummary } from '../../api/job-data';
import { nap } from '../../api/nap';
import { useWorkQueue } from '../../api/work-queue';
import type { CancelResult } from '../../api/nap';
import { Dialog } from '../../components/dialog';
import { ErrorMessage } from '../../components/error-message';
import { Pager } from '../../components/pager';
import frame from '../../components/list-frame.module.css';
import { useNow } from '../../hooks/use-now';
import { usePermissions } from '../../session/session';
import { JobFilters } from './job-filters';
import { PAGE_SIZES, readParams, toJobQuery, writeParams } from './job-list-params';
import type { JobListParams, SortColumn } from './job-list-params';
import { JobTable } from './job-table';
import styles from './jobs-page.module.css';

/** Confirms a bulk cancel, then says per job what happened. */
function CancelJobsDialog({ jobIds, onClose }: { jobIds: string[]; onClose: (done: boolean) => void }) {
  const client = useQueryClient();
  const cancel = useMutation({
    mutationFn: () => nap.cancelJobs(jobIds),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['jobs'] }),
  });
  const failed = (cancel.data?.results ?? []).filter((r: CancelResult['results'][number]) => !r.success);
  return (
    <Dialog title={`Cancel ${jobIds.length === 1 ? 'this job' : `these ${jobIds.length} jobs`}?`} onClose={() => onClose(cancel.isSuccess)}>
      {cancel.isSuccess ? (
        <>
          <p role="status">
            {jobIds.length - failed.length} of {jobIds.length} canceled.
          </p>
          {failed.length > 0 ? (
            <ul>
              {failed.map((r) => (
                <li key={r.jobId}>
                  <span className="mono">{r.jobId}</span>: {r.message}
                </li>
              ))}
            </ul>
          ) : null}
          <div className="row">
            <button type="button" className="button" onClick={() => onClose(true)}>
              Done
            </button>
          </div>
        </>
      ) : (
        <>
          <p>Canceled jobs stop where they are: tasks in flight are abandoned and the job cannot be resumed.</p>
          <ErrorMessage error={cancel.error} />
          <div className="row">
            <button type="button" className="button button-danger-solid" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
              {jobIds.length === 1 ? 'Cancel job' : 'Cancel jobs'}
            </button>
            <button type="button" className="button" onClick={() => onClose(false)}>
              Keep running
            </button>
          </div>
        </>
      )}
    </Dialog>
  );
}

/**
 * `/console/jobs`: every job the caller may see, filtered, sorted and paged by the platform, kept
 * live by the job event stream (a started job appears, a status changes in place).
 */
export function JobsPage() {
  const [search, setSearch] = useSearchParams();
  const params = useMemo(() => readParams(search), [search]);
  const query = useMemo(() => toJobQuery(params), [params]);
  const { may } = usePermissions();
  const mayCancel = may('workflow.cancelJobs');
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [confirming, setConfirming] = useState(false);

  const jobs = useQuery({
    queryKey: ['jobs', query],
    queryFn: ({ signal }) => nap.jobs(query, signal),
    placeholderData: keepPreviousData,
  });
  const rows = useMemo(() => (jobs.data?.items ?? []).map(toJobSummary), [jobs.data]);
  const queue = useWorkQueue();
  const waiting = useMemo(() => new Set((queue.data?.data ?? []).map((task) => task.job?._id ?? '')), [queue.data]);
  const now = useNow(rows.some((row) => row.status === 'running'));

  const update = (changes: Partial<JobListParams>) => {
    setSelected(new Set());
    setSearch(writeParams({ ...params, ...changes }));
  };
  const sortBy = (column: SortColumn) =>
    update({ sort: column, order: params.sort === column && params.order === 'desc' ? 'asc' : 'desc', page: 1 });

  // the pager describes the rows on screen: while another page, sort or filter loads, the previous
  // answer stays shown (keepPreviousData); past JOB_COUNT_LIMIT matches the platform stops counting
  const shown = jobs.data;
  const loading = jobs.isPlaceholderData;

  return (
    <div className="page">
      <div className="page-header">
        <h1>Jobs</h1>
        {mayCancel ? (
          <div className="row">
            <span className="muted" aria-live="polite">
              {selected.size > 0 ? `${selected.size} selected` : 'Select jobs to act on several at once'}
            </span>
            <button type="button" className="button button-danger" disabled={selected.size === 0} onClick={() => setConfirming(true)}>
              {selected.size === 1 ? 'Cancel selected job' : 'Cancel selected jobs'}
            </button>
          </div>
        ) : null}
      </div>
      <JobFilters params={params} onChange={update} triggerName={rows.find((row) => row.trigger?.id === params.trigger)?.trigger?.name} />
      <ErrorMessage error={jobs.error} title="The jobs cannot be listed" />
      <div className={frame.tableWrap} aria-busy={jobs.isFetching}>
        <JobTable
          jobs={rows}
          params={params}
          now={now}
          onSort={sortBy}
          waiting={waiting}
          {...(mayCancel
            ? {
                selection: {
                  selected,
                  toggle: (id: string) =>
                    setSelected((current) => {
                      const next = new Set(current);
                      if (next.has(id)) next.delete(id);
                      else next.add(id);
                      return next;
                    }),
                  setAll: (ids: string[]) => setSelected(new Set(ids)),
                },
              }
            : {})}
        />
        {jobs.isSuccess && rows.length === 0 ? <p className={styles.empty}>No job matches these filters.</p> : null}
        {jobs.isPending ? <p className={styles.empty}>Loading jobs…</p> : null}
      </div>
      <Pager
        label="Pages of jobs"
        noun={['job', 'jobs']}
        shown={
          shown === undefined
            ? undefined
            : {
                skip: shown.skip ?? 0,
                limit: shown.limit ?? params.limit,
                count: rows.length,
                total: shown.total ?? 0,
                exact: shown.totalExact !== false,
                hasNext: shown.nextPageSkip !== null,
              }
        }
        page={params.page}
        limit={params.limit}
        sizes={PAGE_SIZES}
        loading={loading}
        onChange={update}
      />
      {confirming ? (
        <CancelJobsDialog
          jobIds={[...selected]}
          onClose={(done) => {
            setConfirming(false);
            if (done) setSelected(new Set());
          }}
        />
      ) : null}
    </div>
  );
}
