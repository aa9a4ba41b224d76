import { useEffect, useState } from 'react';

/** The time now, renewed every `intervalMs` while `ticking` (running durations count up on screen). */
export function useNow(ticking: boolean, intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return undefined;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [ticking, intervalMs]);
  return now;
}
