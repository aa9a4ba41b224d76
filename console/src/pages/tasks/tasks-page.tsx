import { Link } from 'react-router';
import { durationMs, formatDuration, formatTime } from '../../api/job-data';
import { useWorkQueue } from '../../api/work-queue';
import { ErrorMessage } from '../../components/error-message';
import { StatusBadge } from '../../components/status-badge';
import { WorkflowName, useProjectNames } from '../../components/workflow-name';
import { useNow } from '../../hooks/use-now';

/** `/console/tasks`: every manual task waiting for a person that the caller may see. */
export function TasksPage() {
  const tasks = useWorkQueue();
  const now = useNow(true, 10_000);
  const items = tasks.data?.data ?? [];
  const projects = useProjectNames(items.map((item) => item.job?.name ?? ''));
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
              <th scope="col">Workflow</th>
              <th scope="col">Job status</th>
              <th scope="col">Waiting since</th>
            </tr>
          </thead>
          <tbody>
            {items.map((item) => {
              const since = item.metrics?.start_time;
              const jobId = item.job?._id ?? '';
              const link = `/jobs/${encodeURIComponent(jobId)}?task=${encodeURIComponent(item.id ?? '')}`;
              return (
                <tr key={item._id}>
                  <td>
                    <Link to={link}>{item.summary || item.name || item.id}</Link>
                  </td>
                  <td>
                    <Link to={`/jobs/${encodeURIComponent(jobId)}`} className="mono" title={jobId}>
                      <span className="visually-hidden">Job </span>…{jobId.slice(-6)}
                    </Link>
                  </td>
                  <td>{item.job?.name ? <WorkflowName name={item.job.name} projects={projects} /> : null}</td>
                  <td>
                    <StatusBadge status={item.job?.status ?? 'running'} />
                  </td>
                  <td>
                    {formatTime(since)} <span className="muted">({formatDuration(durationMs(since, undefined, now))})</span>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {tasks.isSuccess && items.length === 0 ? <p className="empty-note">No task is waiting for a person.</p> : null}
        {tasks.isPending ? <p className="empty-note">Loading the work queue…</p> : null}
      </div>
    </div>
  );
}
