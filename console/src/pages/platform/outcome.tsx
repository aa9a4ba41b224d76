import { ErrorMessage } from '../../components/error-message';
import styles from './platform.module.css';

/** What an action ended in: the platform's answer in words, or its refusal. */
export type Outcome = { text: string; error?: undefined; title?: undefined } | { error: unknown; title: string; text?: undefined };

/**
 * The last action's outcome under a section's heading: a status line (kept on the page, so that
 * screen readers hear each new text), or the platform's refusal in the console's error style.
 */
export function OutcomeLine({ outcome }: { outcome: Outcome | undefined }) {
  return (
    <>
      <p role="status" className={outcome?.text ? styles.said : 'visually-hidden'}>
        {outcome?.text ?? ''}
      </p>
      {outcome?.error ? <ErrorMessage error={outcome.error} title={outcome.title} /> : null}
    </>
  );
}

/** What a section shows until its rows are read: why they cannot be read, or that they are being read (`what`: `adapters`). */
export function RowsNotRead({ what, error, pending }: { what: string; error: unknown; pending: boolean }) {
  if (error) return <ErrorMessage error={error} title={`The ${what} cannot be read`} />;
  return pending ? <p className="muted">{`Reading the ${what}…`}</p> : null;
}
