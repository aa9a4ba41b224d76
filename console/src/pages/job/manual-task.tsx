import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { hasFailureTransition, manualTaskRoute, whereItLeads } from '../../api/job-data';
import { nap } from '../../api/nap';
import type { JobDocument, Task } from '../../api/nap';
import { ErrorMessage } from '../../components/error-message';
import { JsonView } from '../../components/json-view';
import { StatusIcon } from '../../components/status-icon';
import { MopResultView } from './mop-result-view';
import styles from './job-page.module.css';

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** The engine's ViewData task: what the workflow shows the person (its header, message and body, references resolved). */
function ViewDataView({ task }: { task: Task }) {
  const shown = task.variables?.resolved ?? task.variables?.incoming ?? {};
  const header = textOf(shown.header);
  const message = textOf(shown.message);
  const body: unknown = shown.body;
  return (
    <div className={styles.manualView}>
      {header ? <h4>{header}</h4> : null}
      {message ? <p>{message}</p> : null}
      {typeof body === 'string' ? (
        <pre className="json-view" aria-label="Task data" tabIndex={0}>
          {body}
        </pre>
      ) : body !== undefined ? (
        <JsonView value={body} label="Task data" />
      ) : null}
    </div>
  );
}

/** A MOP manual task: the view its route (`GET /mop/task/<name>`) answers, with what to decide first. */
function MopView({
  route,
  jobId,
  taskId,
  onDevices,
}: {
  route: string;
  jobId: string;
  taskId: string;
  onDevices: (devices: string[]) => void;
}) {
  const view = useQuery({
    queryKey: ['manual-view', jobId, taskId],
    queryFn: async () => {
      const answer = await nap.manualTaskView(route, jobId, taskId);
      // chooseDevice asks for one of the devices it lists; other views list devices as results (viewTemplateResults)
      const devices: unknown = answer.view.devices;
      if (route.endsWith('/chooseDevice') && Array.isArray(devices)) onDevices(devices.map(String));
      return answer;
    },
  });
  if (view.isPending) return <p className="muted">Loading what this task shows…</p>;
  if (view.isError) return <ErrorMessage error={view.error} title="The task's view cannot be shown" />;
  const { decide, ...rest } = view.data.view;
  return (
    <div className={styles.manualView}>
      {textOf(decide) ? <p className={styles.decide}>{String(decide)}</p> : null}
      <MopResultView view={rest} />
    </div>
  );
}

/**
 * A manual task waiting for a person: what it shows, and `Finish task` (with the failure choice
 * where the workflow has one). A ViewData task's `btn_success` and `btn_failure` label the two
 * buttons, as the workflow's author named them ("Approve", "Reject"). The variables sent become
 * the task's outgoing variables.
 */
export function ManualTask({ job, taskId, task, mayFinish }: { job: JobDocument; taskId: string; task: Task; mayFinish: boolean }) {
  const client = useQueryClient();
  const route = manualTaskRoute(task);
  const [devices, setDevices] = useState<string[] | undefined>(undefined);
  const [device, setDevice] = useState('');
  const [variablesText, setVariablesText] = useState('{}');
  const shown = task.variables?.resolved ?? task.variables?.incoming ?? {};
  const failureLabel = textOf(shown.btn_failure);
  const successLabel = textOf(shown.btn_success);
  const offersFailure = hasFailureTransition(job, taskId) || failureLabel !== undefined;
  // where each choice takes the job: a failure that goes back to an earlier task runs it again, and
  // the task then waits again, showing what it showed before
  const successText = successLabel ?? 'Finish task';
  const failureText = failureLabel ?? 'Finish task as failure';
  const choices: [string, string | undefined][] = [
    [successText, whereItLeads(job, taskId, 'success')],
    [failureText, offersFailure ? whereItLeads(job, taskId, 'failure') : undefined],
  ];
  const leads = choices.flatMap(([choice, where]) => (where === undefined ? [] : [`“${choice}” leads ${where}.`]));

  const finish = useMutation({
    mutationFn: (finishState: 'success' | 'failure') => {
      let variables: Record<string, unknown> = {};
      if (route !== undefined) {
        const parsed: unknown = JSON.parse(variablesText || '{}');
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
          throw new Error('The variables must be a JSON object, for example {"approved": true}');
        variables = parsed as Record<string, unknown>;
        if (devices !== undefined) variables = { ...variables, device };
      }
      return nap.finishTask(job._id, taskId, { ...variables, finish_state: finishState });
    },
    onSuccess: (updated) => {
      client.setQueryData(['job', job._id], updated);
      void client.invalidateQueries({ queryKey: ['tasks'] });
    },
  });

  return (
    <section aria-labelledby="manual-task-title" className={styles.manual}>
      <h3 id="manual-task-title">
        <StatusIcon status="waiting" /> Waiting for a person
      </h3>
      {route ? <MopView route={route} jobId={job._id} taskId={taskId} onDevices={setDevices} /> : <ViewDataView task={task} />}
      {mayFinish ? (
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            finish.mutate('success');
          }}
        >
          {devices !== undefined ? (
            <div className="stack">
              <label htmlFor="finish-device">Device</label>
              <select id="finish-device" required value={device} onChange={(e) => setDevice(e.target.value)}>
                <option value="">Choose a device…</option>
                {devices.map((d) => (
                  <option key={d} value={d}>
                    {d}
                  </option>
                ))}
              </select>
            </div>
          ) : null}
          {route !== undefined ? (
            <div className="stack">
              <label htmlFor="finish-variables">Variables to finish with (JSON)</label>
              <textarea id="finish-variables" rows={3} value={variablesText} onChange={(e) => setVariablesText(e.target.value)} />
            </div>
          ) : null}
          <ErrorMessage error={finish.error} title="The task was not finished" />
          <div className="row">
            <button type="submit" className="button button-primary" disabled={finish.isPending}>
              {successText}
            </button>
            {offersFailure ? (
              <button type="button" className="button button-danger" disabled={finish.isPending} onClick={() => finish.mutate('failure')}>
                {failureText}
              </button>
            ) : null}
          </div>
          {leads.length > 0 ? (
            <p className="muted">{leads.join(' ')}</p>
          ) : successLabel || failureLabel ? (
            <p className="muted">
              {offersFailure
                ? `Either finishes the task: “${successText}” takes its success path, “${failureText}” its failure path.`
                : `“${successText}” finishes the task.`}
            </p>
          ) : null}
        </form>
      ) : (
        <p className="muted">Your roles let you see this task, not finish it.</p>
      )}
    </section>
  );
}
