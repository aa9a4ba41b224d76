import type { ReactNode } from 'react';

interface FormActionsProps {
  /** The words of the button that does it. */
  action: string;
  /** Its words while the platform does it; the same words when it says nothing else meanwhile. */
  pendingAction?: string;
  /** True while the platform does it: the button is disabled and says `pendingAction`. */
  pending: boolean;
  /** Disabled for another reason too (nothing changed, a confirmation not typed, a wait). */
  disabled?: boolean;
  /** `danger` for what cannot be taken back (delete, stop, deactivate): a solid red button. */
  tone?: 'primary' | 'danger';
  /** Called on a click; without it the button submits its form. */
  onAction?: () => void;
  /** The words of the button that leaves things as they are (`Cancel`, `Keep account`, `Undo changes`). */
  cancel?: string;
  onCancel: () => void;
  cancelDisabled?: boolean;
  /** What follows the buttons on their line (how long to wait before trying again). */
  children?: ReactNode;
}

/**
 * The line that ends a dialog or a form: the button that does it (saying so while the platform
 * does it), then the one that leaves things as they are.
 */
export function FormActions({
  action,
  pendingAction = action,
  pending,
  disabled = false,
  tone = 'primary',
  onAction,
  cancel = 'Cancel',
  onCancel,
  cancelDisabled,
  children,
}: FormActionsProps) {
  return (
    <div className="row">
      <button
        type={onAction ? 'button' : 'submit'}
        className={`button ${tone === 'danger' ? 'button-danger-solid' : 'button-primary'}`}
        onClick={onAction}
        disabled={pending || disabled}
      >
        {pending ? pendingAction : action}
      </button>
      <button type="button" className="button" onClick={onCancel} disabled={cancelDisabled}>
        {cancel}
      </button>
      {children}
    </div>
  );
}
