import { useEffect, useState } from 'react';
import { ApiError } from '../api/http';
import { useNow } from './use-now';

/** The wait a throttled answer asked for, counted down on screen. */
export interface RetryAfter {
  /** True until the wait is over: the form's submit stays disabled. */
  waiting: boolean;
  /** Whole seconds left (at least 1 while waiting). */
  seconds: number;
  /** Starts the wait an error asked for (a 429's `Retry-After`); any other error changes nothing. */
  startFrom(error: unknown): void;
}

/**
 * While logins of an account are throttled (429 `LOGIN_THROTTLED` with `Retry-After`), how long a
 * form must wait before it may send again: the login page and the Change password dialog.
 */
export function useRetryAfter(): RetryAfter {
  // when the form may send again, epoch ms
  const [retryAt, setRetryAt] = useState<number>();
  const now = useNow(retryAt !== undefined);
  useEffect(() => {
    if (retryAt === undefined) return undefined;
    const timer = setTimeout(() => setRetryAt(undefined), Math.max(0, retryAt - Date.now()));
    return () => clearTimeout(timer);
  }, [retryAt]);
  return {
    waiting: retryAt !== undefined,
    seconds: retryAt === undefined ? 0 : Math.max(1, Math.ceil((retryAt - now) / 1000)),
    startFrom(error) {
      if (error instanceof ApiError && error.retryAfterSeconds !== undefined) setRetryAt(Date.now() + error.retryAfterSeconds * 1000);
    },
  };
}
