import { useCallback, useEffect, useState } from 'react';

/** How long the word on what was copied stays, ms. */
const SAID_FOR_MS = 4000;

/**
 * Copies text for the person, and says what happened. The clipboard needs a secure context (HTTPS
 * or this machine): elsewhere, or when the browser refuses, the text is selected on the page
 * instead, for Ctrl+C.
 */
export function useCopy(): { copy: (text: string, what: string, element?: HTMLElement | null) => void; said: string } {
  const [said, setSaid] = useState('');
  useEffect(() => {
    if (said === '') return undefined;
    const timer = setTimeout(() => setSaid(''), SAID_FOR_MS);
    return () => clearTimeout(timer);
  }, [said]);
  const copy = useCallback((text: string, what: string, element?: HTMLElement | null) => {
    const select = () => {
      const selection = element ? window.getSelection() : null;
      if (element && selection) {
        selection.selectAllChildren(element);
        setSaid(`${what} is selected: press Ctrl+C to copy it`);
      } else {
        setSaid(`${what} cannot be copied here: the browser allows the clipboard on HTTPS only`);
      }
    };
    if (typeof navigator.clipboard?.writeText !== 'function') {
      select();
      return;
    }
    navigator.clipboard.writeText(text).then(() => setSaid(`Copied ${what.charAt(0).toLowerCase()}${what.slice(1)}`), select);
  }, []);
  return { copy, said };
}
