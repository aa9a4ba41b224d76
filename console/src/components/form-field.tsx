import { useId } from 'react';
import type { RefObject } from 'react';
import styles from './form-field.module.css';
import { StatusIcon } from './status-icon';

export interface FieldProps {
  name: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** What is wrong with it (the browser's check, or the platform's refusal naming it), read out with it. */
  problem: string | undefined;
  hint?: string;
  type?: 'text' | 'email' | 'password';
  autoComplete?: string;
  required?: boolean;
  inputRef?: RefObject<HTMLInputElement | null>;
}

/**
 * One input with its label, its hint and what is wrong with it (the browser's check or the platform's
 * refusal naming it), all read out with it: every form of the console draws its fields so.
 */
export function Field({ name, label, value, onChange, problem, hint, type = 'text', autoComplete, required, inputRef }: FieldProps) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', problem ? `${id}-problem` : ''].filter(Boolean).join(' ');
  return (
    <div className={`${styles.field} ${problem ? styles.invalid : ''}`}>
      <label htmlFor={id}>
        {label}
        {required ? null : <span className="muted"> (optional)</span>}
      </label>
      <input
        ref={inputRef}
        id={id}
        name={name}
        type={type}
        autoComplete={autoComplete}
        required={required}
        spellCheck={false}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={problem ? true : undefined}
        aria-describedby={described || undefined}
      />
      {hint ? (
        <p id={`${id}-hint`} className={styles.hint}>
          {hint}
        </p>
      ) : null}
      {problem ? (
        <p id={`${id}-problem`} className={styles.problem}>
          {/* an icon beside the red: what is wrong is not told by colour alone */}
          <StatusIcon status="error" className={styles.problemIcon} />
          <span>{problem}</span>
        </p>
      ) : null}
    </div>
  );
}
