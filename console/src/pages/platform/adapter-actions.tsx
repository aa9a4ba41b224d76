import { platform } from '../../api/platform';
import type { AdapterLifecycle, AdapterRecord } from '../../api/platform';
import { DONE, LifecycleActions, VERB } from './lifecycle-actions';
import { adapterActions, adapterCheckUrl, healthcheckOf } from './platform-status';
import type { LifecycleAction } from './platform-status';
import type { Outcome } from './outcome';

/** What the platform answered, in words: the state the change began and what comes next. */
function answerText(answer: AdapterLifecycle, action: LifecycleAction): string {
  const next =
    answer.state === 'STARTING'
      ? 'RUNNING after its first connection check'
      : answer.state === 'STOPPING'
        ? 'STOPPED once the check under way is done'
        : undefined;
  return `Adapter ${answer.name} ${DONE[action]}: ${answer.state}${next ? `, ${next}` : ''}.`;
}

/** How the adapter's connection is checked, in a few words: what is asked, and how often. */
function checkText(record: AdapterRecord | undefined): string {
  const hc = healthcheckOf(record);
  return `GET ${adapterCheckUrl(record) ?? hc.path} every ${hc.intervalSeconds} s`;
}

/** What stopping, restarting or starting does, said before it is done (docs/integrations.md, Adapters). */
function ConfirmText({ action, name, state, record }: { action: LifecycleAction; name: string; state: string; record?: AdapterRecord }) {
  const hc = healthcheckOf(record);
  const dead = `${hc.failuresBeforeDead} failed check${hc.failuresBeforeDead === 1 ? '' : 's'} in a row`;
  if (action === 'stop')
    return (
      <>
        <p>NAP stops checking its connection and {name} becomes STOPPED.</p>
        <p>
          While it is stopped, every workflow task and orchestrator call that goes through it fails at once with{' '}
          <code>ADAPTER_NOT_RUNNING</code>: they do not wait for it. A failed task runs again only where its workflow asks for retries, or
          when someone retries it.
        </p>
        <p>It stays stopped, across restarts of the platform, until someone starts it.</p>
      </>
    );
  return (
    <>
      <p>
        {state === 'DEAD'
          ? `NAP starts checking its connection again (${checkText(record)}): ${name} is STARTING until the first check, then RUNNING, and ONLINE once its system answers.`
          : `NAP ends its connection checks and starts them again (${checkText(record)}): ${name} is STARTING until the first check, then RUNNING.`}
      </p>
      <p>
        Until it is RUNNING, tasks that call it fail with <code>ADAPTER_NOT_RUNNING</code>. If its system still does not answer, it is DEAD
        again after {dead}.
      </p>
    </>
  );
}

/**
 * The start, stop and restart of an adapter its state allows, each named with the adapter; stop and
 * restart ask first, saying what they do. `onOutcome` hears the platform's answer or refusal.
 */
export function AdapterActions({
  name,
  state,
  record,
  onOutcome,
}: {
  name: string;
  state: string;
  record?: AdapterRecord | undefined;
  onOutcome: (outcome: Outcome) => void;
}) {
  return (
    <LifecycleActions
      actions={adapterActions(state)}
      none={state === 'STOPPING' ? <span className="muted">stopping…</span> : null}
      change={(action) => platform.changeAdapter(name, action)}
      doneText={answerText}
      onOutcome={onOutcome}
      buttonName={(action) => `${VERB[action]} adapter ${name}`}
      primary={(action) => action === 'start' || state === 'DEAD'}
      title={(action) => `${VERB[action]} adapter ${name}?`}
      explain={(action) => (
        <>
          <ConfirmText action={action} name={name} state={state} record={record} />
          <p className="muted">The change is recorded in the audit trail.</p>
        </>
      )}
      confirm={(action) => `${VERB[action]} adapter`}
      failedTitle={(action) => `Adapter ${name} was not ${DONE[action]}`}
    />
  );
}
