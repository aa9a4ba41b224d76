import type { ReactNode } from 'react';
import { outcomeVerdict } from '@nap/contracts/dist/template-results';
import { diffLines, mopView } from '../../api/mop-view-data';
import type { CommandOutcome, LineDiff, TemplateResults } from '../../api/mop-view-data';
import { JsonView } from '../../components/json-view';
import { StatusIcon } from '../../components/status-icon';
import styles from './mop-result-view.module.css';

/** A pass or a failure in words beside its shape and colour, never by colour alone. */
function Verdict({ passed, children }: { passed: boolean; children: ReactNode }) {
  return (
    <span className={passed ? styles.passed : styles.failed}>
      <StatusIcon status={passed ? 'complete' : 'error'} /> {children}
    </span>
  );
}

function CommandItem({ outcome }: { outcome: CommandOutcome }) {
  const state = outcome.skipped ? 'skipped' : outcome.result ? 'passed' : 'failed';
  return (
    <li className={styles.command}>
      <span className={styles[state]}>
        <StatusIcon status={outcome.skipped ? 'canceled' : outcome.result ? 'complete' : 'error'} />
        <span className="visually-hidden">{state}: </span>
      </span>{' '}
      <code>{outcome.command}</code>
      {outcome.skipped ? <span className="muted"> skipped</span> : null}
      {outcome.message !== undefined ? <p className={styles.message}>{outcome.message}</p> : null}
      {outcome.failedRules.length > 0 ? (
        <ul className={styles.rules} aria-label={`Rules ${outcome.command} did not pass`}>
          {outcome.failedRules.map((rule, i) => (
            <li key={i}>
              <code>{rule.rule}</code>{' '}
              <span className={styles.ruleMeta}>
                {rule.eval}
                {rule.severity !== 'error' ? `, ${rule.severity}` : ''}
              </span>
              {rule.message !== undefined ? <span>: {rule.message}</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {outcome.response !== '' ? (
        <details className={styles.output}>
          <summary>Device output</summary>
          <pre tabIndex={0}>{outcome.response}</pre>
        </details>
      ) : null}
    </li>
  );
}

/** viewTemplateResults: the run's verdict, then each device with its commands and the rules a failed one did not pass. */
export function ResultsView({ results, title }: { results: TemplateResults; title?: string }) {
  const passed = results.result ?? results.devices.every((d) => d.passed);
  return (
    <div className={styles.results}>
      <p className={styles.summary}>
        {title !== undefined ? <span className={styles.label}>{title}: </span> : null}
        {results.name !== undefined ? <strong>{results.name}</strong> : null}{' '}
        <Verdict passed={passed}>{outcomeVerdict(results.result, results.devices)}</Verdict>
      </p>
      {results.devices.map((device) => (
        <section key={device.device} className={styles.device} aria-label={`${device.device}: ${device.passed ? 'passed' : 'failed'}`}>
          <h5>
            {device.device} <Verdict passed={device.passed}>{device.passed ? 'passed' : 'failed'}</Verdict>
          </h5>
          <ul className={styles.commands}>
            {device.commands.map((c, i) => (
              <CommandItem key={i} outcome={c} />
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

/** A line diff: added lines with +, removed with −, a few unchanged ones around each change. */
function DiffBlock({ diff, label }: { diff: LineDiff; label: string }) {
  if (diff.added + diff.removed === 0) return <p className="muted">No difference.</p>;
  return (
    <>
      <p className={styles.diffCount}>
        <span className={styles.addedCount}>
          {diff.added} line{diff.added === 1 ? '' : 's'} added
        </span>
        ,{' '}
        <span className={styles.removedCount}>
          {diff.removed} line{diff.removed === 1 ? '' : 's'} removed
        </span>
      </p>
      <pre className={styles.diff} aria-label={label} tabIndex={0}>
        {diffLines(diff.parts).map((line, i) =>
          line.type === 'skipped' ? (
            <span key={i} className={styles.skippedLines}>
              {`⋯ ${line.count} unchanged line${line.count === 1 ? '' : 's'}\n`}
            </span>
          ) : (
            <span key={i} className={styles[line.type]}>
              {`${line.type === 'added' ? '+' : line.type === 'removed' ? '−' : ' '} ${line.text}\n`}
            </span>
          ),
        )}
      </pre>
    </>
  );
}

/**
 * What a MOP manual task shows, drawn for the person who decides: a command template's results
 * device by device, or what changed on the devices before and after. Any other view, and the whole
 * data behind these, as JSON.
 */
export function MopResultView({ view }: { view: Record<string, unknown> }) {
  const shown = mopView(view);
  if (shown === undefined) return <JsonView value={view} label="Task data" />;
  return (
    <div className="stack">
      {shown.kind === 'results' ? <ResultsView results={shown.results} /> : null}
      {shown.kind === 'configDiff' ? <DiffBlock diff={shown.diff} label="Configuration diff" /> : null}
      {shown.kind === 'templatesDiff' ? (
        <>
          <p className={styles.summary}>
            {shown.changed === 0
              ? `No command's output changed (${shown.diffs.length} compared).`
              : `${shown.changed} of ${shown.diffs.length} command outputs changed.`}
          </p>
          {shown.diffs
            .filter((d) => d.diff.added + d.diff.removed > 0)
            .map((d, i) => (
              <section key={i} className={styles.device} aria-label={`${d.device}: ${d.command}`}>
                <h5>
                  {d.device} · <code>{d.command}</code>
                </h5>
                <DiffBlock diff={d.diff} label={`What changed in ${d.command} on ${d.device}`} />
              </section>
            ))}
          <ResultsView results={shown.before} title="Before" />
          <ResultsView results={shown.after} title="After" />
        </>
      ) : null}
      <details>
        <summary>All the task&apos;s data (JSON)</summary>
        <JsonView value={view} label="Task data" />
      </details>
    </div>
  );
}
