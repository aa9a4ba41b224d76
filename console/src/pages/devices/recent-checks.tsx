import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { formatTime } from '../../api/job-data';
import { templateOutcome } from '@nap/contracts/dist/template-results';
import { plainName } from '../../api/names';
import { nap } from '../../api/nap';
import type { StoredTemplateRun } from '../../api/nap';
import { ErrorMessage } from '../../components/error-message';
import { StatusIcon } from '../../components/status-icon';
import { WorkflowName, useProjectNames } from '../../components/workflow-name';
import { ResultsView } from '../job/mop-result-view';
import styles from './device-page.module.css';

/** How many of a device's latest checks its page lists. */
const SHOWN = 5;

/** The query key of a device's checks: a check run from the page refreshes them. */
export const deviceChecksKey = (device: string) => ['template-runs', device] as const;

/** Whether the device passed a run: its own commands under the template's passRule, not the run's whole verdict. */
function passedOn(run: StoredTemplateRun, device: string): boolean | undefined {
  return templateOutcome(run.output)?.devices.find((d) => d.device === device)?.passed;
}

function CheckItem({ run, device, projects }: { run: StoredTemplateRun; device: string; projects: ReadonlyMap<string, string> }) {
  const [open, setOpen] = useState(false);
  const passed = passedOn(run, device) ?? run.result;
  const others = (run.devices ?? []).filter((d) => d !== device).length;
  const results = open ? templateOutcome(run.output) : undefined;
  return (
    <li className={styles.check}>
      <div className={styles.checkLine}>
        <span className={passed ? styles.checkPassed : styles.checkFailed}>
          <StatusIcon status={passed ? 'complete' : 'error'} /> {passed ? 'passed' : 'failed'}
        </span>
        <strong>
          <WorkflowName name={run.template} projects={projects} />
        </strong>
        <span className="muted">
          {formatTime(run.started)}
          {run.createdBy ? ` by ${run.createdBy}` : ''}
          {others > 0 ? `, with ${others} other device${others === 1 ? '' : 's'}` : ''}
        </span>
        <button type="button" className="button" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Hide' : 'Show'}
          <span className="visually-hidden">
            {' '}
            {plainName(run.template)} at {formatTime(run.started)}
          </span>
        </button>
      </div>
      {results !== undefined ? <ResultsView results={results} /> : null}
    </li>
  );
}

/**
 * A device's latest checks (`GET /mop/runs?device=…`): the command templates run on it, from its
 * page, a job or a script, each with whether this device passed and, opened, its results.
 */
export function RecentChecks({ device }: { device: string }) {
  const runs = useQuery({
    queryKey: deviceChecksKey(device),
    queryFn: () => nap.templateRuns({ device, kind: 'command', limit: SHOWN }),
  });
  const items = runs.data?.items ?? [];
  const projects = useProjectNames(items.map((run) => run.template));
  return (
    <section aria-labelledby="recent-checks-title" className={`card ${styles.card}`}>
      <h2 id="recent-checks-title">Recent checks</h2>
      {runs.isPending ? <p className="muted">Loading the checks…</p> : null}
      <ErrorMessage error={runs.error} title="The checks cannot be listed" />
      {runs.isSuccess && items.length === 0 ? <p className={styles.note}>No command template has run on this device yet.</p> : null}
      {items.length > 0 ? (
        <>
          <ul className={styles.checks}>
            {items.map((run) => (
              <CheckItem key={run._id} run={run} device={device} projects={projects} />
            ))}
          </ul>
          {(runs.data?.total ?? 0) > items.length ? (
            <p className={styles.note}>
              The latest {items.length} of {runs.data?.total}: <code>GET /mop/runs?device={device}</code> lists them all.
            </p>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
