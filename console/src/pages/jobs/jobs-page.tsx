import { useEffect, useMemo, useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { isCancelable, isTicking, toJobSummary } from '../../api/job-data';
import type { JobSummary } from '../../api/job-data';
import { plainName } from '../../api/names';
import { nap } from '../../api/nap';
import { useWorkQueue } from '../../api/work-queue';
import type { CancelResult } from '../../api/nap';
import { Dialog } from '../../components/dialog';
import { ErrorMessage } from '../../components/error-message';
import { FormActions } from '../../components/form-actions';
import { Pager } from '../../components/pager';
import frame from '../../components/list-frame.module.css';
import { useNow } from '../../hooks/use-now';
import { usePageClamp } from '../../hooks/use-page-clamp';
import { maySee } from '../../session/permissions';
import { usePermissions } from '../../session/session';
import { JobFilters } from './job-filters';
import { PAGE_SIZES, emptyRange, readParams, toJobQuery, writeParams } from './job-list-params';
import type { JobListParams, SortColumn } from './job-list-params';
import { JobTable } from './job-table';
import styles from './jobs-page.module.css';
import { useUrlSearch } from '../../hooks/use-url-search';

/** Confirms a bulk cancel of running and paused jobs, naming them, then says per job what happened. */
function CancelJobsDialog({ jobs, onClose }: { jobs: readonly JobSummary[]; onClose: (done: boolean) => void }) {
  const client = useQueryClient();
  const jobIds = jobs.map((job) => job._id);
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
          <ul className={styles.cancelList}>
            {jobs.map((job) => (
              <li key={job._id}>
                {plainName(job.name) || job._id} <span className="mono muted">…{job._id.slice(-6)}</span>{' '}
                <span className="muted">({job.status})</span>
              </li>
            ))}
          </ul>
          <p>Canceled jobs stop where they are: tasks in flight are abandoned and the job cannot be resumed.</p>
          <ErrorMessage error={cancel.error} />
          <FormActions
            action={jobIds.length === 1 ? 'Cancel job' : 'Cancel jobs'}
            pending={cancel.isPending}
            tone="danger"
            onAction={() => cancel.mutate()}
            cancel="Keep running"
            onCancel={() => onClose(false)}
          />
        </>
      )}
    </Dialog>
  );
}

/**
 * What an empty list means and what to do: no job can match, none matches the filters, or none
 * was started yet (a job is a run of a workflow: where to start one, for a caller who may).
 */
function EmptyList({ params }: { params: JobListParams }) {
  const { may, whoami } = usePermissions();
  if (emptyRange(params)) return <p className={styles.empty}>No job can match: “Started after” is later than “Started before”.</p>;
  if (params.status || params.workflow || params.trigger || params.after || params.before)
    return <p className={styles.empty}>No job matches these filters. Change them, or Clear filters to list every job.</p>;
  const mayStart = may('workflow.startJob');
  return (
    <div className={styles.empty}>
      <p>No job yet. A job is one run of a workflow; each run appears here, live, as it starts.</p>
      {mayStart && maySee(whoami, 'studio.getWorkflows') ? (
        <p>
          To start one, open <Link to="/workflows">Workflows</Link>, press <strong>Run</strong> beside a workflow and fill in its inputs
          {maySee(whoami, 'workflow.getAutomations') ? (
            <>
              , or run an automation from its form in <Link to="/automations">Automations</Link>
            </>
          ) : null}
          .
        </p>
      ) : (
        <p>Jobs appear here once someone runs a workflow.</p>
      )}
    </div>
  );
}

/**
 * `/console/jobs`: every job the caller may see, filtered, sorted and paged by the platform, kept
 * live by the job event stream (a started job appears, a status changes in place).
 */
export function JobsPage() {
  const [search, editSearch] = useUrlSearch();
  const params = useMemo(() => readParams(search), [search]);
  // a change starts from the URL as it is now, which a render may not have drawn yet
  const setParams = (changes: Partial<JobListParams>, options?: { replace: true }) =>
    editSearch((now) => writeParams({ ...readParams(now), ...changes }), options);
  const query = useMemo(() => toJobQuery(params), [params]);
  const { may } = usePermissions();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  // the jobs the dialog asks about, as they were when it opened (their rows change as they are canceled)
  const [confirming, setConfirming] = useState<readonly JobSummary[] | undefined>(undefined);

  const jobs = useQuery({
    queryKey: ['jobs', query],
    queryFn: ({ signal }) => nap.jobs(query, signal),
    placeholderData: keepPreviousData,
  });
  const rows = useMemo(() => (jobs.data?.items ?? []).map(toJobSummary), [jobs.data]);
  const queue = useWorkQueue();
  // each job with a task waiting for a person, and that task (its badge opens the job at it)
  const waiting = useMemo(
    () => new Map((queue.data?.data ?? []).map((task) => [task.job?._id ?? '', task.id ?? ''] as const).reverse()),
    [queue.data],
  );
  // a running or paused job's duration counts up
  const now = useNow(rows.some((row) => isTicking(row.status)));
  // the jobs to cancel: those selected that are still running or paused (a selected job may have finished since)
  const chosen = useMemo(() => rows.filter((row) => selected.has(row._id) && isCancelable(row.status)), [rows, selected]);
  // bulk cancel: offered while the page shows a job that can be canceled (none, on an empty list)
  const mayCancel = may('workflow.cancelJobs') && rows.some((row) => isCancelable(row.status));

  // an address the list cannot show as written goes to one it can: a status the platform does not
  // have is dropped (the Status field shows "all", and so does the list), a page past the end is the last page
  useEffect(() => {
    const status = search.get('status');
    if (status !== null && status !== params.status) editSearch((now) => writeParams(readParams(now)), { replace: true });
  }, [params, search, editSearch]);
  usePageClamp(
    params.page,
    jobs.data && !jobs.isPlaceholderData
      ? { total: jobs.data.total, limit: params.limit, count: jobs.data.items.length, exact: jobs.data.totalExact !== false }
      : undefined,
    (last) => setParams({ page: last }, { replace: true }),
  );

  const update = (changes: Partial<JobListParams>) => {
    setSelected(new Set());
    setParams(changes);
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
              {chosen.length > 0 ? `${chosen.length} selected` : 'Select running or paused jobs to cancel several at once'}
            </span>
            <button type="button" className="button button-danger" disabled={chosen.length === 0} onClick={() => setConfirming(chosen)}>
              {chosen.length === 1 ? 'Cancel selected job' : 'Cancel selected jobs'}
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
        {jobs.isSuccess && rows.length === 0 ? <EmptyList params={params} /> : null}
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
                hasNext: shown.nextPageSkip != null,
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
          jobs={confirming}
          onClose={(done) => {
            setConfirming(undefined);
            if (done) setSelected(new Set());
          }}
        />
      ) : null}
    </div>
  );
}
