import { Link } from 'react-router';
import { durationMs, formatDuration, formatTime } from '../../api/job-data';
import { taskTexts, useJobDescriptions, useWorkQueue } from '../../api/work-queue';
import { ErrorMessage } from '../../components/error-message';
import { StatusBadge } from '../../components/status-badge';
import { WorkflowName, useProjectNames } from '../../components/workflow-name';
import { useNow } from '../../hooks/use-now';
import styles from './tasks-page.module.css';

/**
 * `/console/tasks`: every manual task waiting for a person that the caller may see, with the job it
 * waits in as the jobs list names it (the workflow's name, the end of its id). The queue holds only
 * tasks of running or paused jobs: a paused job is marked, a running one goes without saying.
 * Several tasks of one name in jobs of one workflow ("Approve change") are told apart by what each
 * shows (its header, message and the first line of its text, from the queue's own answer) and by
 * its job's description (the jobs of the queue read in one request).
 */
export function TasksPage() {
  const tasks = useWorkQueue();
  const now = useNow(true, 10_000);
  const items = tasks.data?.data ?? [];
  const projects = useProjectNames(items.map((item) => item.job?.name ?? ''));
  const descriptions = useJobDescriptions(items.map((item) => item.job?._id ?? ''));
  // the platform counts every waiting task; a queue longer than one answer shows its newest
  const total = tasks.data?.metadata.total ?? items.length;
  return (
    <div className="page">
      <div className="page-header">
        <h1>Tasks</h1>
        <span className="muted" aria-live="polite">
          {tasks.isSuccess
            ? `${total} task${total === 1 ? '' : 's'} waiting for a person${items.length < total ? ` (the ${items.length} newest shown)` : ''}`
            : ''}
        </span>
      </div>
      <p className="muted">Manual tasks that wait for someone to look and decide. Open one to see what it shows and finish it.</p>
      <ErrorMessage error={tasks.error} title="The work queue cannot be listed" />
      <div className="card table-card">
        <table className="table">
          <caption className="visually-hidden">Manual tasks waiting for a person</caption>
          <thead>
            <tr>
              <th scope="col">Task</th>
              <th scope="col">Job</th>
              <th scope="col">Waiting since</th>
            </tr>
          </thead>
          <tbody>
            {items.map((item) => {
              const since = item.metrics?.start_time;
              const jobId = item.job?._id ?? '';
              const link = `/jobs/${encodeURIComponent(jobId)}?task=${encodeURIComponent(item.id ?? '')}`;
              const texts = taskTexts(item);
              const description = descriptions.get(jobId);
              // the link's description names what tells this task apart (a screen reader lists links by name)
              const shownId = `task-shown-${item._id}`;
              const shown = texts.header !== undefined || texts.message !== undefined || texts.excerpt !== undefined;
              return (
                <tr key={item._id}>
                  <td className={styles.task}>
                    <Link to={link} aria-describedby={shown ? shownId : undefined}>
                      {item.summary || item.name || item.id}
                    </Link>
                    {shown ? (
                      <div id={shownId} className={styles.shown}>
                        {texts.header ? <div className={styles.header}>{texts.header}</div> : null}
                        {texts.message ? (
                          <div className={`${styles.message} cell-text`} title={texts.message}>
                            {texts.message}
                          </div>
                        ) : null}
                        {texts.excerpt ? <div className={`${styles.excerpt} mono`}>{texts.excerpt}</div> : null}
                      </div>
                    ) : null}
                  </td>
                  <td className={styles.job}>
                    {item.job?.name ? (
                      <WorkflowName name={item.job.name} projects={projects}>
                        {(plain) => <Link to={`/jobs/${encodeURIComponent(jobId)}`}>{plain}</Link>}
                      </WorkflowName>
                    ) : (
                      <Link to={`/jobs/${encodeURIComponent(jobId)}`}>{jobId}</Link>
                    )}
                    <span className={`${styles.id} mono`} title={jobId}>
                      …{jobId.slice(-6)}
                    </span>
                    {item.job?.status === 'paused' ? (
                      <span
                        className={styles.paused}
                        title="The job is paused: the task can be answered now, and the job goes on from it once resumed"
                      >
                        <StatusBadge status="paused" label="job paused" />
                      </span>
                    ) : null}
                    {description ? (
                      <div className={`${styles.description} cell-text`} title={description}>
                        {description}
                      </div>
                    ) : null}
                  </td>
                  <td>
                    {formatTime(since)} <span className="muted">({formatDuration(durationMs(since, undefined, now))})</span>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {tasks.isSuccess && items.length === 0 ? (
          <p className="empty-note">
            No task is waiting for a person. A job’s manual task (an approval, a review) comes here, live, as soon as it waits, and the
            Tasks link of the header counts them.
          </p>
        ) : null}
        {tasks.isPending ? <p className="empty-note">Loading the work queue…</p> : null}
      </div>
    </div>
  );
}
