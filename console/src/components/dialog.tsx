import { useEffect, useId, useRef } from 'react';
import type { ReactNode } from 'react';
import styles from './dialog.module.css';

interface DialogProps {
  title: string;
  /** Called when the person closes it (Escape, the close button); the parent stops rendering it. */
  onClose: () => void;
  children: ReactNode;
  wide?: boolean;
}

/**
 * A modal dialog on the browser's own `<dialog>`: focus moves into it and stays there, Escape
 * closes it, and its heading names it for screen readers.
 */
export function Dialog({ title, onClose, children, wide }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const latestClose = useRef(onClose);
  useEffect(() => {
    latestClose.current = onClose;
  });
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return undefined;
    if (!dialog.open) dialog.showModal();
    const cancel = (event: Event) => {
      event.preventDefault();
      latestClose.current();
    };
    dialog.addEventListener('cancel', cancel);
    return () => {
      dialog.removeEventListener('cancel', cancel);
      if (dialog.open) dialog.close();
    };
  }, []);
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
