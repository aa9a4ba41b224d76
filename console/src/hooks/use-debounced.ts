import { useEffect, useState } from 'react';

/** `value`, once it has not changed for `delayMs` (a filter typed letter by letter asks the platform once). */
export function useDebounced<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}
