import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { platform } from '../../api/platform';
import type { AdapterLifecycle, AdapterRecord } from '../../api/platform';
import { Dialog } from '../../components/dialog';
import { ErrorMessage } from '../../components/error-message';
import { adapterActions, adapterCheckUrl, healthcheckOf } from './platform-status';
import type { LifecycleAction } from './platform-status';
import type { Outcome } from './outcome';
import { PLATFORM_KEY } from './queries';
import styles from './platform.module.css';

const VERB = { start: 'Start', stop: 'Stop', restart: 'Restart' } as const;
const DONE = { start: 'started', stop: 'stopped', restart: 'restarted' } as const;
const PENDING = { start: 'Starting…', stop: 'Stopping…', restart: 'Restarting…' } as const;

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
  const client = useQueryClient();
  const [confirming, setConfirming] = useState<LifecycleAction>();
  const change = useMutation({
    mutationFn: (action: LifecycleAction) => platform.changeAdapter(name, action),
    onSuccess: async (answer, action) => {
      setConfirming(undefined);
      onOutcome({ text: answerText(answer, action) });
      await client.invalidateQueries({ queryKey: PLATFORM_KEY });
    },
    onError: (error, action) => {
      // a refusal of a confirmed change shows in its dialog; of a start, under the table
      if (action === 'start') onOutcome({ error, title: `Adapter ${name} was not started` });
    },
  });
  const actions = adapterActions(state);
  if (actions.length === 0) return state === 'STOPPING' ? <span className="muted">stopping…</span> : null;
  return (
    <div className={styles.actions}>
      {actions.map((action) => (
        <button
          key={action}
          type="button"
          className={`button ${action === 'start' || state === 'DEAD' ? 'button-primary' : ''}`}
          aria-label={`${VERB[action]} adapter ${name}`}
          disabled={change.isPending}
          onClick={() => {
            if (action === 'start') change.mutate(action);
            else {
              change.reset();
              setConfirming(action);
            }
          }}
        >
          {VERB[action]}
        </button>
      ))}
      {confirming ? (
        <Dialog title={`${VERB[confirming]} adapter ${name}?`} onClose={() => setConfirming(undefined)}>
          <ConfirmText action={confirming} name={name} state={state} record={record} />
          <p className="muted">The change is recorded in the audit trail.</p>
          <ErrorMessage error={change.error} title={`Adapter ${name} was not ${DONE[confirming]}`} />
          <div className="row">
            <button
              type="button"
              className={`button ${confirming === 'stop' ? 'button-danger-solid' : 'button-primary'}`}
              onClick={() => change.mutate(confirming)}
              disabled={change.isPending}
            >
              {change.isPending ? PENDING[confirming] : `${VERB[confirming]} adapter`}
            </button>
            <button type="button" className="button" onClick={() => setConfirming(undefined)}>
              {confirming === 'stop' ? 'Keep it running' : 'Cancel'}
            </button>
          </div>
        </Dialog>
      ) : null}
    </div>
  );
}
