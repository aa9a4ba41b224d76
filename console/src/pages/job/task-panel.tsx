import { useEffect, useRef, useState } from 'react';
import {
  durationMs,
  formatDuration,
  formatTime,
  isRetryable,
  isWaitingForPerson,
  manualAnswerText,
  retryHistory,
  taskErrorText,
  taskLabel,
} from '../../api/job-data';
import { templateOutcome } from '@nap/contracts/dist/template-results';
import type { JobDocument } from '../../api/nap';
import { TaskVariables } from '../../components/task-variables';
import { StatusBadge } from '../../components/status-badge';
import { usePermissions } from '../../session/session';
import { ChildJobs } from './child-jobs';
import { ManualTask } from './manual-task';
import { ResultsView } from './mop-result-view';
import { RetryTaskDialog } from './retry-task-dialog';
import styles from './job-page.module.css';

/** A task's automatic retries as people read them (retries by hand are listed apart, see RetryHistory). */
function retriesOf(settings: { autoRetry?: boolean; limit?: number; count?: number; state?: string[] }): string {
  const done = settings.count ?? 0;
  const limit = settings.limit ?? 0;
  const auto = settings.autoRetry ? `automatic on ${(settings.state ?? []).join(', ') || 'error'}` : 'manual';
  return `${done} of ${limit} (${auto})`;
}

/**
 * The answer a person gave a manual task, once finished: the choice as the workflow named it
 * ("Approve", "Reject"), who gave it and when (see manualAnswerText).
 */
function ManualAnswer({ task }: { task: NonNullable<JobDocument['tasks'][string]> }) {
  const text = manualAnswerText(task);
  return text === undefined ? null : <p className={styles.answer}>{text}</p>;
}

/** The task's retries by hand (Retry task), oldest first: who, when, how it had failed, what they changed. */
function RetryHistory({ task }: { task: NonNullable<JobDocument['tasks'][string]> }) {
  const { lines, earlier } = retryHistory(task);
  if (lines.length === 0) return null;
  return (
    <section aria-labelledby="task-retries-title">
      <h3 id="task-retries-title">Retried by hand</h3>
      {earlier > 0 ? (
        <p className="muted">{earlier === 1 ? '1 earlier retry is' : `${earlier} earlier retries are`} no longer kept.</p>
      ) : null}
      {/* numbered as the platform counts them: the first kept may be a later one */}
      <ol className={styles.retries} start={earlier + 1}>
        {lines.map((line, i) => (
          <li key={`${i}-${line}`}>{line}</li>
        ))}
      </ol>
    </section>
  );
}

/**
 * The selected task: its status and timings, what it received and returned (masked as the platform
 * masks them), its error and retries, its child jobs, and what the caller may do with it.
 */
export function TaskPanel({
  job,
  taskId,
  now,
  onClose,
  linkedTask,
}: {
  job: JobDocument;
  taskId: string;
  now: number;
  onClose: () => void;
  /** The task the page was opened with (`?task=`), held by the page: the panel mounts anew for each task chosen after it. */
  linkedTask: { current: string | undefined };
}) {
  const task = job.tasks[taskId];
  const { may } = usePermissions();
  const [retrying, setRetrying] = useState(false);
  const panel = useRef<HTMLElement>(null);
  // the panel a link opened the page with (its heading is where the keyboard lands), for as long as it shows
  const [arrival] = useState(() => taskId === linkedTask.current);
  // on a narrow window the panel is under the graph: a task chosen there (or in the Errors) is
  // brought into view, the first chosen too (not the one a link opened the page with: the page starts at its top)
  useEffect(() => {
    if (taskId !== linkedTask.current && window.matchMedia('(max-width: 900px)').matches) panel.current?.scrollIntoView({ block: 'start' });
    linkedTask.current = undefined;
  }, [taskId, linkedTask]);
  if (!task) return null;
  const label = taskLabel(task, taskId);
  const metrics = task.metrics ?? {};
  const childJobs = task.childJobs ?? [];
  const waiting = isWaitingForPerson(job, task);
  const taskError = taskErrorText(task);
  // where the job stopped at this task, unless the engine's message is the task's own error, said above it
  const errors = (job.error ?? []).filter((e) => e.task === taskId && e.message !== taskError);
  // a command template's run among what the task returned (MOP's RunCommandTemplate): drawn device by device
  const checks = Object.entries(task.variables?.outgoing ?? {}).flatMap(([name, value]) => {
    const results = templateOutcome(value);
    return results === undefined ? [] : [[name, results] as const];
  });
  return (
    <aside ref={panel} className={styles.panel} aria-labelledby="task-panel-title">
      <div className={styles.panelHeader}>
        <div>
          {/* a link that opened the job at this task (the Tasks page, a badge): the keyboard lands here, not on the job's name */}
          <h2 id="task-panel-title" tabIndex={-1} data-arrival={arrival ? '' : undefined}>
            {label}
          </h2>
          <p className="muted mono">{[task.app, task.name].filter(Boolean).join(' · ') || taskId}</p>
        </div>
        <button type="button" className="button" onClick={onClose} aria-label="Close the task panel">
          ×
        </button>
      </div>
      <div className="row">
        <StatusBadge status={waiting ? 'waiting' : (task.status ?? 'incomplete')} label={task.status ?? 'incomplete'} />
        {metrics.finish_state ? (
          <span className="muted">
            finished as {metrics.finish_state}
            {metrics.user ? ` by ${metrics.user}` : ''}
          </span>
        ) : null}
      </div>
      {waiting ? <ManualTask job={job} taskId={taskId} task={task} mayFinish={may('workflow.finishTask')} /> : <ManualAnswer task={task} />}
      {isRetryable(job, task) && may('workflow.retryTask') ? (
        <div className="row">
          <button type="button" className="button button-primary" onClick={() => setRetrying(true)}>
            Retry task
          </button>
        </div>
      ) : null}
      {taskError !== undefined || errors.length > 0 ? (
        <section aria-labelledby="task-error-title">
          <h3 id="task-error-title">Error</h3>
          {taskError !== undefined ? <p className="error-message">{taskError}</p> : null}
          {errors.map((e) => (
            <p key={`${e.timestamp}-${e.message}`} className="error-message">
              {formatTime(e.timestamp)}: {e.message}
            </p>
          ))}
        </section>
      ) : null}
      <RetryHistory task={task} />
      <dl className="definition-list">
        <dt>Task id</dt>
        <dd className="mono">{taskId}</dd>
        <dt>Type</dt>
        <dd>{task.type ?? '—'}</dd>
        <dt>Started</dt>
        <dd>{formatTime(metrics.start_time)}</dd>
        <dt>Finished</dt>
        <dd>{formatTime(metrics.end_time)}</dd>
        <dt>Duration</dt>
        <dd>{formatDuration(metrics.run_time ?? durationMs(metrics.start_time, metrics.end_time, now))}</dd>
        {task.retrySettings ? (
          <>
            <dt>Automatic retries</dt>
            <dd>{retriesOf(task.retrySettings)}</dd>
          </>
        ) : null}
      </dl>
      {childJobs.length > 0 ? <ChildJobs childJobs={childJobs} titleId="task-children-title" /> : null}
      {checks.map(([name, results]) => (
        <section key={name} aria-labelledby={`task-check-${name}`}>
          <h3 id={`task-check-${name}`}>{checks.length === 1 ? 'Check results' : `Check results (${name})`}</h3>
          <ResultsView results={results} />
        </section>
      ))}
      <TaskVariables variables={task.variables} />
      {retrying ? <RetryTaskDialog job={job} taskId={taskId} task={task} onClose={() => setRetrying(false)} /> : null}
    </aside>
  );
}
