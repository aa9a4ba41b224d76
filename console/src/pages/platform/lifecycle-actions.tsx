import { useState } from 'react';
import type { ReactNode } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Dialog } from '../../components/dialog';
import { ErrorMessage } from '../../components/error-message';
import { FormActions } from '../../components/form-actions';
import type { LifecycleAction } from './platform-status';
import type { Outcome } from './outcome';
import { PLATFORM_KEY } from './queries';
import styles from './platform.module.css';

export const VERB = { start: 'Start', stop: 'Stop', restart: 'Restart' } as const;
export const DONE = { start: 'started', stop: 'stopped', restart: 'restarted' } as const;
const PENDING = { start: 'Starting…', stop: 'Stopping…', restart: 'Restarting…' } as const;

interface LifecycleActionsProps<T> {
  /** What its state allows, in the order the buttons come. */
  actions: readonly LifecycleAction[];
  /** What stands in their place when it allows none. */
  none?: ReactNode;
  /** Asks the platform to do it. */
  change: (action: LifecycleAction) => Promise<T>;
  /** What the outcome line says once the platform has done it. */
  doneText: (answer: T, action: LifecycleAction) => string;
  /** Hears the platform's answer, or its refusal of a start (a confirmed change's refusal shows in its dialog). */
  onOutcome: (outcome: Outcome) => void;
  /** Each button's accessible name: the action and what it acts on (`Stop adapter netbox`). */
  buttonName: (action: LifecycleAction) => string;
  /** True for the buttons drawn as the one to press. */
  primary: (action: LifecycleAction) => boolean;
  /** The confirmation's title (`Stop adapter netbox?`). */
  title: (action: LifecycleAction) => string;
  /** What the change does, said in the confirmation before it is done. */
  explain: (action: LifecycleAction) => ReactNode;
  /** The confirming button's words. */
  confirm: (action: LifecycleAction) => string;
  /** The title of a refusal (`Adapter netbox was not stopped`). */
  failedTitle: (action: LifecycleAction) => string;
}

/**
 * The start, stop and restart of what the platform runs (an adapter, a service) that its state
 * allows: start at once; stop and restart after a confirmation that says what they do. The
 * platform's status is read again once it has done it.
 */
export function LifecycleActions<T>({
  actions,
  none = null,
  change,
  doneText,
  onOutcome,
  buttonName,
  primary,
  title,
  explain,
  confirm,
  failedTitle,
}: LifecycleActionsProps<T>) {
  const client = useQueryClient();
  const [confirming, setConfirming] = useState<LifecycleAction>();
  const mutation = useMutation({
    mutationFn: change,
    onSuccess: async (answer, action) => {
      setConfirming(undefined);
      onOutcome({ text: doneText(answer, action) });
      await client.invalidateQueries({ queryKey: PLATFORM_KEY });
    },
    onError: (error, action) => {
      // a refusal of a confirmed change shows in its dialog; of a start, under the table
      if (action === 'start') onOutcome({ error, title: failedTitle(action) });
    },
  });
  if (actions.length === 0) return none;
  return (
    <div className={styles.actions}>
      {actions.map((action) => (
        <button
          key={action}
          type="button"
          className={`button ${primary(action) ? 'button-primary' : ''}`}
          aria-label={buttonName(action)}
          disabled={mutation.isPending}
          onClick={() => {
            if (action === 'start') mutation.mutate(action);
            else {
              mutation.reset();
              setConfirming(action);
            }
          }}
        >
          {VERB[action]}
        </button>
      ))}
      {confirming ? (
        <Dialog title={title(confirming)} onClose={() => setConfirming(undefined)}>
          {explain(confirming)}
          <ErrorMessage error={mutation.error} title={failedTitle(confirming)} />
          <FormActions
            action={confirm(confirming)}
            pendingAction={PENDING[confirming]}
            pending={mutation.isPending}
            tone={confirming === 'stop' ? 'danger' : 'primary'}
            onAction={() => mutation.mutate(confirming)}
            cancel={confirming === 'stop' ? 'Keep it running' : 'Cancel'}
            onCancel={() => setConfirming(undefined)}
          />
        </Dialog>
      ) : null}
    </div>
  );
}
