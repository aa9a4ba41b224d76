import { useId, useRef } from 'react';
import type { CommandOutput } from '@nap/contracts';
import { commandRunsOf, transcriptOf } from '../../api/device-data';
import type { CommandRun } from '../../api/device-data';
import { ApiError } from '../../api/http';
import { formatDuration, formatTime } from '../../api/job-data';
import { ErrorMessage } from '../../components/error-message';
import { StatusBadge } from '../../components/status-badge';
import { useCopy } from '../../hooks/use-copy';
import styles from './device-page.module.css';

/** One run of commands as it ended: the commands asked for, the outputs that came back, and the refusal when there was one. */
export interface RunReport {
  commands: string[];
  outputs: CommandOutput[];
  /** The platform's refusal (an {@link ApiError}): a command the device reported an error for, a device out of reach, a changed key. */
  error?: unknown;
  startedAt: number;
  finishedAt: number;
}

function codeOf(error: unknown): string | undefined {
  return error instanceof ApiError ? error.code : undefined;
}

/** How the run ended, in one sentence. */
function outcomeText(report: RunReport, runs: readonly CommandRun[]): string {
  const at = `${formatTime(report.startedAt)}, ${formatDuration(report.finishedAt - report.startedAt)}`;
  const count = `${runs.length} command${runs.length === 1 ? '' : 's'}`;
  if (report.error === undefined) return `${count} ran (${at}).`;
  const failed = runs.findIndex((run) => run.failed);
  if (failed >= 0) return `Stopped at command ${failed + 1} of ${runs.length}: the device reported an error (${at}).`;
  return runs.length === 1 ? `The command did not run (${at}).` : `None of the ${count} ran (${at}).`;
}

/** One command's output, headed by the command; the block scrolls and the keyboard can reach it to scroll it. */
function CommandOutputBlock({
  run,
  onCopy,
}: {
  run: CommandRun;
  onCopy: (text: string, what: string, element: HTMLElement | null) => void;
}) {
  const headingId = useId();
  const block = useRef<HTMLPreElement>(null);
  const output = run.output ?? '';
  return (
    <div className={`${styles.output} ${run.failed ? styles.outputFailed : ''}`}>
      <div className={styles.outputHeader}>
        <h4 id={headingId} className="mono">
          {run.command}
        </h4>
        {run.failed ? <StatusBadge status="error" label="the device reported an error" /> : null}
        <button
          type="button"
          className={`button ${styles.copy}`}
          aria-label={`Copy the output of ${run.command}`}
          onClick={() => onCopy(output, `The output of ${run.command}`, block.current)}
        >
          Copy
        </button>
      </div>
      <pre ref={block} className={styles.outputText} role="group" aria-labelledby={headingId} tabIndex={0}>
        {output === '' ? <span className="muted">(no output)</span> : output}
      </pre>
    </div>
  );
}

/** What a run of commands answered: each output under its command, the refusal in the console's error style, what was not sent. */
export function CommandOutputs({ device, report, mayForget }: { device: string; report: RunReport; mayForget: boolean }) {
  const runs = commandRunsOf(report.commands, report.outputs);
  const answered = runs.filter((run) => run.output !== undefined);
  // when none ran, the outcome says so: the list of what was not sent is for a run stopped part way
  const notSent = report.error === undefined || answered.length === 0 ? [] : runs.filter((run) => run.output === undefined);
  const all = useRef<HTMLDivElement>(null);
  const { copy, said } = useCopy();
  const code = codeOf(report.error);
  return (
    <section aria-labelledby="command-outputs-title" className={styles.outputs}>
      <div className={styles.outputsHeader}>
        <h3 id="command-outputs-title">Output</h3>
        <p role="status" className={styles.outcome}>
          {outcomeText(report, runs)}
        </p>
        {answered.length > 1 ? (
          <button type="button" className="button" onClick={() => copy(transcriptOf(runs), 'Every output', all.current)}>
            Copy all
          </button>
        ) : null}
      </div>
      <div ref={all} className="stack">
        {answered.map((run, i) => (
          <CommandOutputBlock key={`${i}-${run.command}`} run={run} onCopy={copy} />
        ))}
      </div>
      <ErrorMessage
        error={report.error}
        title={code === 'DEVICE_COMMAND_FAILED' ? 'The commands stopped' : `The commands did not run on ${device}`}
      />
      {code === 'DEVICE_HOST_KEY_CHANGED' && mayForget ? (
        <p className={styles.note}>
          If the device was replaced, its new key is expected: Forget key under Trusted SSH host key, then run the commands again.
        </p>
      ) : null}
      {notSent.length > 0 ? (
        <div className={styles.notSent}>
          <h4>Not sent</h4>
          <ul>
            {notSent.map((run, i) => (
              <li key={`${i}-${run.command}`} className="mono">
                {run.command}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <p role="status" className={said ? styles.said : 'visually-hidden'}>
        {said}
      </p>
    </section>
  );
}
