import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import {
  ancestorIds,
  formatDuration,
  formatTime,
  isFinalStatus,
  isRetryable,
  isTicking,
  isWaitingForPerson,
  jobDurationMs,
  jobTriggerOf,
  taskErrorText,
  toJobSummary,
  unsuccessfulFinish,
} from '../../api/job-data';
import { triggerKind } from '@nap/contracts/dist/trigger-kinds';
import { plainName } from '../../api/names';
import { nap } from '../../api/nap';
import type { JobDocument } from '../../api/nap';
import { Dialog } from '../../components/dialog';
import { ErrorMessage } from '../../components/error-message';
import { FormActions } from '../../components/form-actions';
import { WorkflowGraph } from '../../components/graph/workflow-graph';
import { JsonView } from '../../components/json-view';
import { StatusBadge } from '../../components/status-badge';
import { UnavailablePage } from '../../components/unavailable-page';
import { WorkflowName, useProjectNames } from '../../components/workflow-name';
import { useNow } from '../../hooks/use-now';
import { useSelectedTask } from '../../hooks/use-selected-task';
import { useJobStream } from '../../live/use-job-stream';
import { maySee } from '../../session/permissions';
import { usePermissions } from '../../session/session';
import { ChildJobs } from './child-jobs';
import type { ChildJob } from './child-jobs';
import { RetryTaskDialog } from './retry-task-dialog';
import { TaskPanel } from './task-panel';
import styles from './job-page.module.css';

/** The job that started this one, when a `childJob` task did. */
function parentOf(job: JobDocument): string | undefined {
  const parent: unknown = job.parent;
  if (parent === null || typeof parent !== 'object') return undefined;
  const id: unknown = (parent as Record<string, unknown>).job;
  return typeof id === 'string' ? id : undefined;
}

/** The names of a job's ancestors, from one list request (the breadcrumbs and the Parent job fact share it). */
function useAncestorNames(job: JobDocument): ReadonlyMap<string, string> {
  const ids = ancestorIds(job);
  const names = useQuery({
    queryKey: ['job-names', ids],
    queryFn: () => nap.jobs({ in: { _id: ids.join(',') }, include: '_id,name,status', limit: ids.length }),
    enabled: ids.length > 0,
    staleTime: 60_000,
  });
  return new Map((names.data?.items ?? []).map((item) => [String(item._id), toJobSummary(item).name]));
}

/** Jobs → root job → … → this job. */
function Breadcrumbs({ job }: { job: JobDocument }) {
  const ids = ancestorIds(job);
  const names = useAncestorNames(job);
  return (
    <nav aria-label="Breadcrumb" className={styles.breadcrumbs}>
      <ol>
        <li>
          <Link to="/jobs">Jobs</Link>
        </li>
        {ids.map((id) => (
          <li key={id}>
            <Link to={`/jobs/${encodeURIComponent(id)}`}>{plainName(names.get(id) ?? id)}</Link>
          </li>
        ))}
        <li>
          <span aria-current="page">{plainName(job.name)}</span>
        </li>
      </ol>
    </nav>
  );
}

/** Whether the job panel is hidden: the person's choice holds for every job they open until the page reloads. */
let jobPanelHidden = false;

/** The job that started this one, by its name and the end of its id (as the jobs list names a job), the whole id in its title. */
function ParentJob({ job, parent }: { job: JobDocument; parent: string }) {
  const name = plainName(useAncestorNames(job).get(parent) ?? '');
  return (
    <Link to={`/jobs/${encodeURIComponent(parent)}`} title={parent}>
      {name ? (
        <>
          {name} <span className="mono">…{parent.slice(-6)}</span>
        </>
      ) : (
        <span className="mono">{parent}</span>
      )}
    </Link>
  );
}

/**
 * Beside the graph while no task is selected: the job's variables (and the jobs it started), in
 * view with the graph at once rather than under it. Selecting a task shows the task's panel in its
 * place; closing that brings it back.
 */
function JobPanel({ job, childJobs, onHide }: { job: JobDocument; childJobs: readonly ChildJob[]; onHide: () => void }) {
  return (
    <aside id="job-panel" className={`${styles.panel} ${styles.jobPanel}`} aria-label="Job details">
      <div className={styles.panelHeader}>
        <h2 id="job-variables-title">Job variables</h2>
        <button
          type="button"
          id="job-panel-hide"
          className="button"
          onClick={onHide}
          aria-controls="job-panel"
          aria-expanded="true"
          aria-label="Hide the job details"
          title="Hide the job details: the graph takes the whole width"
        >
          ×
        </button>
      </div>
      <JsonView value={job.variables ?? {}} label="Job variables" />
      {childJobs.length > 0 ? <ChildJobs childJobs={childJobs} titleId="child-jobs-title" /> : null}
    </aside>
  );
}

/** How a screen reader hears a job's new status. */
const STATUS_NEWS: Readonly<Record<string, string>> = {
  running: 'is running',
  paused: 'is paused',
  complete: 'is complete',
  error: 'stopped in error: its Errors say where and why',
  canceled: 'is canceled',
};

/**
 * Says how the job's status changed while its page is open ("Job Interface check is complete."):
 * the badge changes for the eyes, and a job ending, pausing or running again is heard too.
 */
function JobStatusNews({ name, status }: { name: string; status: string }) {
  const [seen, setSeen] = useState(status);
  const [said, setSaid] = useState('');
  if (status !== seen) {
    setSeen(status);
    setSaid(`Job ${plainName(name)} ${STATUS_NEWS[status] ?? `is ${status}`}.`);
  }
  return (
    <p role="status" className="visually-hidden">
      {said}
    </p>
  );
}

/** Cancel, pause and resume, as the job's state and the caller's roles allow. */
function JobActions({ job }: { job: JobDocument }) {
  const client = useQueryClient();
  const { may } = usePermissions();
  const [confirming, setConfirming] = useState(false);
  // Pause job and Resume job take each other's place: the focus goes to the one that came, not to the page's body
  const focusNext = useRef<'pause' | 'resume'>(undefined);
  const takeFocus = (which: 'pause' | 'resume') => (button: HTMLButtonElement | null) => {
    if (button === null || focusNext.current !== which) return;
    focusNext.current = undefined;
    button.focus();
  };
  const done = (updated?: JobDocument) => {
    if (updated) client.setQueryData(['job', job._id], updated);
    void client.invalidateQueries({ queryKey: ['job', job._id] });
    void client.invalidateQueries({ queryKey: ['jobs'] });
  };
  // refused: the button stays, and a later change of the job's status (someone else's) takes no focus
  const forgetFocus = () => {
    focusNext.current = undefined;
  };
  const pause = useMutation({ mutationFn: () => nap.pauseJob(job._id), onSuccess: done, onError: forgetFocus });
  const resume = useMutation({ mutationFn: () => nap.resumeJob(job._id), onSuccess: done, onError: forgetFocus });
  const cancel = useMutation({
    mutationFn: async () => {
      const { results } = await nap.cancelJobs([job._id]);
      const mine = results.find((r) => r.jobId === job._id);
      if (mine && !mine.success) throw new Error(mine.message);
    },
    onSuccess: () => {
      setConfirming(false);
      done();
    },
  });
  const active = !isFinalStatus(job.status);
  return (
    <div className="stack">
      <div className="row">
        {active && job.status === 'running' && may('workflow.pauseJob') ? (
          <button
            type="button"
            className="button"
            ref={takeFocus('pause')}
            onClick={() => {
              focusNext.current = 'resume';
              pause.mutate();
            }}
            disabled={pause.isPending}
          >
            Pause job
          </button>
        ) : null}
        {job.status === 'paused' && may('workflow.resumeJob') ? (
          <button
            type="button"
            className="button button-primary"
            ref={takeFocus('resume')}
            onClick={() => {
              focusNext.current = 'pause';
              resume.mutate();
            }}
            disabled={resume.isPending}
          >
            Resume job
          </button>
        ) : null}
        {active && may('workflow.cancelJobs') ? (
          <button type="button" className="button button-danger" onClick={() => setConfirming(true)}>
            Cancel job
          </button>
        ) : null}
      </div>
      <ErrorMessage error={pause.error ?? resume.error} />
      {confirming ? (
        <Dialog title={`Cancel job ${plainName(job.name)}?`} onClose={() => setConfirming(false)}>
          <p>The job stops where it is: tasks in flight are abandoned and it cannot be resumed.</p>
          <ErrorMessage error={cancel.error} title="The job was not canceled" />
          <FormActions
            action="Cancel job"
            pending={cancel.isPending}
            tone="danger"
            onAction={() => cancel.mutate()}
            cancel="Keep running"
            onCancel={() => setConfirming(false)}
          />
        </Dialog>
      ) : null}
    </div>
  );
}

/**
 * Where and why the job stopped, task by task: the task's name opens its panel, and a task that
 * may run again has Retry task beside its error, so that the person need not look for it in the
 * graph (a phone draws the panel below it).
 */
function JobErrors({ job, onSelect }: { job: JobDocument; onSelect: (taskId: string) => void }) {
  const { may } = usePermissions();
  const [retrying, setRetrying] = useState<string>();
  const errors = job.error ?? [];
  if (errors.length === 0) return null;
  const mayRetry = may('workflow.retryTask');
  const retryTask = retrying === undefined ? undefined : job.tasks[retrying];
  return (
    <section aria-labelledby="job-errors-title" className={styles.errors}>
      <h2 id="job-errors-title">Errors</h2>
      <ul>
        {errors.map((e, i) => {
          const task = job.tasks[e.task];
          // the engine's message says where the job stopped; the task's own error (or its finish) says why,
          // unless the engine's message is that error already (a childJob naming no workflow): said once
          const own = taskErrorText(task);
          const finish = own === undefined ? unsuccessfulFinish(task) : undefined;
          // once a task, on its first error: a task may have stopped the job more than once
          const retry = mayRetry && isRetryable(job, task) && errors.findIndex((other) => other.task === e.task) === i;
          const label = task?.summary ?? e.task;
          return (
            <li key={`${e.task}-${e.timestamp}`}>
              <button type="button" className={styles.linkButton} onClick={() => onSelect(e.task)}>
                {label}
              </button>{' '}
              <span className="muted nowrap">{formatTime(e.timestamp)}</span>: {e.message}
              {own !== undefined && own !== e.message ? (
                <p className={styles.taskError}>
                  <span className={styles.cause}>Task error:</span> {own}
                </p>
              ) : finish !== undefined ? (
                <p className={styles.taskError}>
                  <span className={styles.cause}>The task finished as {finish}</span>, and the workflow has no path from it for that.
                </p>
              ) : null}
              {retry ? (
                <button
                  type="button"
                  className={`button ${styles.errorAction}`}
                  aria-haspopup="dialog"
                  aria-label={`Retry task ${label}`}
                  onClick={() => setRetrying(e.task)}
                >
                  Retry task
                </button>
              ) : null}
            </li>
          );
        })}
      </ul>
      {retrying !== undefined && retryTask ? (
        <RetryTaskDialog job={job} taskId={retrying} task={retryTask} onClose={() => setRetrying(undefined)} />
      ) : null}
    </section>
  );
}

/**
 * `/console/jobs/<id>`: one job, its errors, its graph live and beside it the selected task's
 * panel, or the job's variables while no task is selected (the person may hide them).
 */
export function JobPage({ onUnauthenticated }: { onUnauthenticated: () => void }) {
  const { jobId = '' } = useParams();
  const [selected, select] = useSelectedTask();
  // the task a link opened the page with: its panel does not scroll the page (see TaskPanel)
  const linkedTask = useRef(selected);
  const job = useQuery({ queryKey: ['job', jobId], queryFn: () => nap.job(jobId) });
  const projects = useProjectNames(job.data ? [job.data.name] : []);
  useJobStream(jobId, job.data?.status, onUnauthenticated);
  // a running or paused job's duration counts up (the list says the same)
  const now = useNow(isTicking(job.data?.status));
  const { whoami } = usePermissions();
  const mayAudit = maySee(whoami, 'admin.getAudit');

  const data = job.data;
  const isWaiting = useCallback((id: string) => (data ? isWaitingForPerson(data, data.tasks[id]) : false), [data]);
  const childJobs = useMemo(() => Object.values(data?.tasks ?? {}).flatMap((t) => t.childJobs ?? []), [data]);
  const [panelHidden, setPanelHidden] = useState(jobPanelHidden);
  // the button pressed goes with what it hid or showed: the focus moves to the one that undoes it
  const toggled = useRef(false);
  const hidePanel = (hidden: boolean) => {
    jobPanelHidden = hidden;
    toggled.current = true;
    setPanelHidden(hidden);
  };
  // a task picked in the Errors: the focus goes to its panel's heading (the person lands on what they
  // chose, not back at the list), once the panel shows that task (the address changes first)
  const focusPanelOf = useRef<string>(undefined);
  const [panelFocusRequests, requestPanelFocus] = useState(0);
  const selectFromErrors = useCallback(
    (taskId: string) => {
      focusPanelOf.current = taskId;
      select(taskId);
      requestPanelFocus((n) => n + 1);
    },
    [select],
  );
  useEffect(() => {
    const heading = document.getElementById('task-panel-title');
    if (focusPanelOf.current === undefined || focusPanelOf.current !== selected || heading === null) return;
    focusPanelOf.current = undefined;
    heading.focus();
  }, [selected, panelFocusRequests, data]);
  useEffect(() => {
    if (!toggled.current) return;
    toggled.current = false;
    document.getElementById(panelHidden ? 'job-panel-show' : 'job-panel-hide')?.focus();
  }, [panelHidden]);

  if (job.isPending) return <p className="page muted">Loading the job…</p>;
  if (job.isError) return <UnavailablePage subject={`Job ${jobId}`} error={job.error} back={{ to: '/jobs', label: 'Back to the jobs' }} />;
  const doc = job.data;
  const parent = parentOf(doc);
  const trigger = jobTriggerOf(doc);
  const waitingTasks = Object.entries(doc.tasks).filter(([, t]) => isWaitingForPerson(doc, t));
  const description = typeof doc.description === 'string' ? doc.description.trim() : '';
  const taskShown = selected !== undefined && doc.tasks[selected] !== undefined;
  const jobPanelShown = !taskShown && !panelHidden;
  return (
    <div className={`page ${styles.page}`}>
      <Breadcrumbs job={doc} />
      <div className={styles.summary}>
        <div className="stack">
          <div className="row">
            <h1>
              <WorkflowName name={doc.name} projects={projects} />
            </h1>
            <StatusBadge status={doc.status} />
            <JobStatusNews key={doc._id} name={doc.name} status={doc.status} />
            {waitingTasks.length > 0 ? (
              // opens the (first) waiting task: in a large graph it may be anywhere
              <button
                type="button"
                className={styles.badgeButton}
                onClick={() => select(waitingTasks.find(([id]) => id !== selected)?.[0] ?? waitingTasks[0]?.[0])}
                title="Show the task that waits"
              >
                <StatusBadge
                  status="waiting"
                  label={`${waitingTasks.length} task${waitingTasks.length > 1 ? 's' : ''} waiting for a person`}
                />
              </button>
            ) : null}
          </div>
          <dl className={styles.facts}>
            {description ? (
              <div className={styles.description}>
                <dt>Description</dt>
                <dd>{description}</dd>
              </div>
            ) : null}
            <div>
              <dt>Started by</dt>
              <dd>{doc.created_by ?? '—'}</dd>
            </div>
            {trigger ? (
              <div>
                <dt>Trigger</dt>
                <dd>
                  <Link to={`/jobs?${new URLSearchParams({ trigger: trigger.id }).toString()}`} title="Every job of this trigger">
                    {trigger.name}
                  </Link>{' '}
                  <span className="muted">
                    {triggerKind(trigger.type)}
                    {trigger.due !== undefined ? `, due ${formatTime(trigger.due)}` : ''}
                  </span>
                </dd>
              </div>
            ) : null}
            <div>
              <dt>Started</dt>
              <dd>{formatTime(doc.metrics?.start_time)}</dd>
            </div>
            <div>
              <dt>Duration</dt>
              <dd>
                {formatDuration(
                  jobDurationMs({ status: doc.status, startTime: doc.metrics?.start_time, endTime: doc.metrics?.end_time }, now),
                )}
              </dd>
            </div>
            <div>
              <dt>Parent job</dt>
              <dd>{parent ? <ParentJob job={doc} parent={parent} /> : 'none'}</dd>
            </div>
            <div>
              <dt>Job id</dt>
              <dd className="mono">{doc._id}</dd>
            </div>
            {mayAudit ? (
              <div>
                <dt>Audit trail</dt>
                <dd>
                  <Link to={`/audit?${new URLSearchParams({ target: doc._id }).toString()}`}>Who started and changed it</Link>
                </dd>
              </div>
            ) : null}
          </dl>
        </div>
        <div className={styles.actions}>
          <JobActions job={doc} />
          {!taskShown && panelHidden ? (
            <button
              type="button"
              id="job-panel-show"
              className="button"
              aria-controls="job-panel"
              aria-expanded="false"
              onClick={() => hidePanel(false)}
            >
              Show job details
            </button>
          ) : null}
        </div>
      </div>
      <JobErrors job={doc} onSelect={selectFromErrors} />
      <div className={`${styles.workspace} ${taskShown || jobPanelShown ? styles.withPanel : ''}`}>
        <WorkflowGraph
          label={`Graph of job ${doc.name}`}
          tasks={doc.tasks}
          transitions={doc.transitions ?? {}}
          selectedId={selected}
          onSelect={select}
          withStatus
          isWaiting={isWaiting}
        />
        {taskShown && selected ? (
          <TaskPanel job={doc} taskId={selected} now={now} onClose={() => select(undefined)} linkedTask={linkedTask} />
        ) : null}
        {jobPanelShown ? <JobPanel job={doc} childJobs={childJobs} onHide={() => hidePanel(true)} /> : null}
      </div>
    </div>
  );
}
