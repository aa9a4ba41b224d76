import { useCallback, useEffect, useLayoutEffect, useMemo, useRef } from 'react';

/** A filter box's way to the URL: what a person types, sent once they stop typing. */
export interface SettledSend {
  /** A person typed `text`: it is sent once typing rests for the delay (newer text replaces it). */
  typed: (text: string) => void;
  /** Sends `text` at once (Enter, leaving the box); nothing stays pending. */
  now: (text: string) => void;
  /**
   * The URL's value of the box changed. True when it is the URL catching up with the last text
   * sent (the box keeps whatever was typed since); false when something else changed it (Back,
   * Clear filters): then the text still pending is dropped, never sent over what the URL now says.
   */
  fromUrl: (value: string) => boolean;
}

/**
 * Sends a filter box's text to `send` once typing rests for `delayMs`, and only text a person
 * typed: text the page puts in the box from the URL is never sent back. A filter cleared a moment
 * ago therefore cannot come back from a timer still pending, however late the browser draws.
 * `send` answers the value it put in the URL, or undefined when it put none.
 */
export function useSettledSend(send: (text: string) => string | undefined, delayMs = 300): SettledSend {
  const sendRef = useRef(send);
  useLayoutEffect(() => {
    sendRef.current = send;
  });
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const lastSent = useRef<string | undefined>(undefined);
  const cancel = useCallback(() => {
    if (timer.current !== undefined) clearTimeout(timer.current);
    timer.current = undefined;
  }, []);
  useEffect(() => cancel, [cancel]);
  return useMemo<SettledSend>(() => {
    const now = (text: string) => {
      cancel();
      lastSent.current = sendRef.current(text);
    };
    return {
      now,
      typed: (text) => {
        cancel();
        timer.current = setTimeout(() => now(text), delayMs);
      },
      fromUrl: (value) => {
        const echo = lastSent.current === value;
        lastSent.current = undefined;
        if (!echo) cancel();
        return echo;
      },
    };
  }, [cancel, delayMs]);
}
