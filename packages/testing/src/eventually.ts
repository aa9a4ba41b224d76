import { sleep } from '@nap/util';

/**
 * Polls `check` until it answers something other than `undefined` or `false`, and answers that;
 * fails after `timeoutMs` naming `what`, with the last value seen. Use it instead of a fixed
 * sleep: a test waits exactly as long as the platform takes, and no longer.
 */
export async function eventually<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const intervalMs = options.intervalMs ?? 20;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const found = await check();
      if (found !== undefined && found !== false) return found;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`${what} did not happen within ${timeoutMs} ms${why}`);
    }
    await sleep(intervalMs);
  }
}
