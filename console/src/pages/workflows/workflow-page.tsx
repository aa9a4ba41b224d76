import { Suspense, lazy, useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { taskLabel } from '../../api/job-data';
import { ApiError } from '../../api/http';
import { plainName } from '../../api/names';
import { nap } from '../../api/nap';
import type { Workflow } from '../../api/nap';
import { UnavailablePage } from '../../components/unavailable-page';
import { WorkflowGraph } from '../../components/graph/workflow-graph';
import { TaskVariables } from '../../components/task-variables';
import { WorkflowName, useProjectNames } from '../../components/workflow-name';
import { useSelectedTask } from '../../hooks/use-selected-task';
import { draftKeys, peekDraft, settleDraft } from '../../session/drafts';
import { usePermissions } from '../../session/session';
import type { RunDraft } from './run-workflow-dialog';
import styles from '../job/job-page.module.css';

// the form renderer is loaded with the first Run, not with the graph
const RunWorkflowDialog = lazy(async () => ({ default: (await import('./run-workflow-dialog')).RunWorkflowDialog }));

/** One task of a workflow as a reviewer reads it: what runs (app and method) and with which variables. */
function WorkflowTaskPanel({ workflow, taskId, onClose }: { workflow: Workflow; taskId: string; onClose: () => void }) {
  const task = workflow.tasks[taskId];
  if (!task) return null;
  const next = Object.entries(workflow.transitions?.[taskId] ?? {});
  return (
    <aside className={styles.panel} aria-labelledby="workflow-task-title">
      <div className={styles.panelHeader}>
        <div>
          <h2 id="workflow-task-title">{taskLabel(task, taskId)}</h2>
          <p className="muted mono">{taskId}</p>
        </div>
        <button type="button" className="button" onClick={onClose} aria-label="Close the task panel">
          ×
        </button>
      </div>
      <dl className="definition-list">
        <dt>App</dt>
        <dd>{task.app ?? '—'}</dd>
        <dt>Method</dt>
        <dd className="mono">{task.name ?? '—'}</dd>
        <dt>Type</dt>
        <dd>{task.type ?? '—'}</dd>
        {typeof task.description === 'string' && task.description ? (
          <>
            <dt>Description</dt>
            <dd>{task.description}</dd>
          </>
        ) : null}
        <dt>Then</dt>
        <dd>
          {next.length === 0
            ? 'nothing'
            : next
                .map(
                  ([to, t]) => `${taskLabel(workflow.tasks[to], to)} on ${t.state ?? 'success'}${t.type === 'revert' ? ' (revert)' : ''}`,
                )
                .join('; ')}
        </dd>
      </dl>
      <TaskVariables variables={task.variables} />
    </aside>
  );
}

/**
 * `/console/workflows/<name>`: a workflow's graph, read only, each task's app, method and
 * variables; `Run` starts a job of it, for a caller who may start jobs.
 */
export function WorkflowPage() {
  const { name = '' } = useParams();
  const { may, whoami } = usePermissions();
  // what the person wrote in Run before their session ended: the dialog opens again with it
  const [draft, setDraft] = useState(() => peekDraft<RunDraft>(draftKeys.runWorkflow(name), whoami?.username));
  useEffect(() => {
    if (draft) settleDraft(draftKeys.runWorkflow(name));
  }, [draft, name]);
  const [running, setRunning] = useState(draft !== undefined);
  const [selected, select] = useSelectedTask();
  const projects = useProjectNames([name]);
  const workflow = useQuery({
    queryKey: ['workflow', name],
    queryFn: async () => {
      const page = await nap.workflows({ equals: { name }, limit: 1 });
      const found = page.items[0];
      // an answer, not a failure: asking again finds no more (the list route answers 200 with no item)
      if (!found) throw new ApiError(404, 'WORKFLOW_NOT_FOUND', `No workflow is named “${plainName(name)}”`);
      return found;
    },
  });
  if (workflow.isPending) return <p className="page muted">Loading the workflow…</p>;
  if (workflow.isError)
    return (
      <UnavailablePage
        subject={`Workflow “${plainName(name)}”`}
        error={workflow.error}
        back={{ to: '/workflows', label: 'Back to the workflows' }}
      />
    );
  const doc = workflow.data;
  return (
    <div className={`page ${styles.page}`}>
      <nav aria-label="Breadcrumb" className={styles.breadcrumbs}>
        <ol>
          <li>
            <Link to="/workflows">Workflows</Link>
          </li>
          <li>
            <span aria-current="page">{plainName(doc.name)}</span>
          </li>
        </ol>
      </nav>
      <div className={styles.summary}>
        <div className="stack">
          <h1>
            <WorkflowName name={doc.name} projects={projects} />
          </h1>
          {typeof doc.description === 'string' && doc.description ? (
            <p className={`muted ${styles.summaryNote}`}>{doc.description}</p>
          ) : null}
          <p className={`muted ${styles.summaryNote}`}>
            The graph is read only: select a task to review what it runs and with which variables.
          </p>
        </div>
        {may('workflow.startJob') ? (
          <button type="button" className="button button-primary" onClick={() => setRunning(true)}>
            Run
          </button>
        ) : null}
      </div>
      <div className={`${styles.workspace} ${selected ? styles.withPanel : ''}`}>
        <WorkflowGraph
          label={`Graph of workflow ${doc.name}`}
          tasks={doc.tasks}
          transitions={doc.transitions ?? {}}
          selectedId={selected}
          onSelect={select}
          withStatus={false}
        />
        {selected ? <WorkflowTaskPanel workflow={doc} taskId={selected} onClose={() => select(undefined)} /> : null}
      </div>
      {running ? (
        <Suspense fallback={<p className="muted">Loading the form…</p>}>
          <RunWorkflowDialog
            workflow={doc}
            draft={draft}
            onClose={() => {
              setRunning(false);
              setDraft(undefined);
            }}
          />
        </Suspense>
      ) : null}
    </div>
  );
}
