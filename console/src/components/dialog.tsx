import { useEffect, useId, useRef } from 'react';
import type { ReactNode, RefObject } from 'react';
import styles from './dialog.module.css';

interface DialogProps {
  title: string;
  /** Called when the person closes it (Escape, the close button); the parent stops rendering it. */
  onClose: () => void;
  children: ReactNode;
  wide?: boolean;
  /** The control that takes the focus when it opens (a form's first field); the first control of the dialog otherwise. */
  initialFocus?: RefObject<HTMLElement | null>;
  /**
   * The control that takes the focus back when it closes, when not the one that opened it: a
   * control in a menu that folds as the dialog opens is hidden by then (its menu's button takes it).
   */
  returnFocus?: RefObject<HTMLElement | null>;
}

/**
 * A modal dialog on the browser's own `<dialog>`: focus moves into it and stays there, Escape
 * closes it, its heading names it for screen readers, and when it closes the focus goes back to
 * the control that opened it.
 */
export function Dialog({ title, onClose, children, wide, initialFocus, returnFocus }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const latestClose = useRef(onClose);
  useEffect(() => {
    latestClose.current = onClose;
  });
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return undefined;
    const opener = returnFocus?.current ?? document.activeElement;
    if (!dialog.open) dialog.showModal();
    initialFocus?.current?.focus();
    const cancel = (event: Event) => {
      event.preventDefault();
      latestClose.current();
    };
    dialog.addEventListener('cancel', cancel);
    return () => {
      dialog.removeEventListener('cancel', cancel);
      if (dialog.open) dialog.close();
      // the parent removes the dialog before this runs, and with it the browser's own return of the focus
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
    };
    // runs once: a ref object stays the same for the life of the component that made it
  }, [initialFocus, returnFocus]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} className={`${styles.dialog} ${wide ? styles.wide : ''}`}>
      <div className={styles.header}>
        <h2 id={titleId}>{title}</h2>
        <button type="button" className={styles.close} aria-label="Close" onClick={onClose}>
          ×
        </button>
      </div>
      <div className={styles.body}>{children}</div>
    </dialog>
  );
}
