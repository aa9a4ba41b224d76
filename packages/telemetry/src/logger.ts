import pino from 'pino';
import type { Logger } from 'pino';
import { redactSecrets } from '@nap/contracts';

export type { Logger } from 'pino';

export interface LoggerOptions {
  /** Component name, logged as `name` on every line. */
  name: string;
  /** pino level; defaults to `NAP_LOG_LEVEL` or `info`. */
  level?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to read what was logged. */
  destination?: pino.DestinationStream;
}

/**
 * A structured JSON logger with secrets redacted by the platform's one secret policy
 * (`redactSecrets` of `@nap/contracts`): every member whose name is a secret, at any depth, and
 * private key material anywhere in the logged object is written as the mask.
 */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      name: options.name,
      level: options.level ?? process.env.NAP_LOG_LEVEL ?? 'info',
      formatters: { log: (object) => redactSecrets(object) },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination ?? pino.destination({ sync: false }),
  );
}

/** What the default destination (pino's sonic-boom) shows of its state: the members read here. */
interface Destination {
  destroyed?: boolean;
  destroy?: () => void;
  /** A write is under way (sonic-boom's own member). */
  _writing?: boolean;
  /** Bytes not written yet (sonic-boom's own member). */
  _len?: number;
}

function destinationOf(logger: Logger): Destination | undefined {
  const stream: unknown = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym];
  return stream !== null && typeof stream === 'object' ? (stream as Destination) : undefined;
}

/**
 * Resolves once the lines logged so far have left the process, for one about to exit; after
 * `timeoutMs` (nobody reads the log: a full pipe, or a closed one) drops them instead and resolves.
 * Exiting with lines still buffered would not do: pino's exit hook writes them synchronously, and
 * that waits for ever on such a reader (it retries a full pipe, then a broken one, without end), so
 * the process never exits. (`logger.flush` does not wait: its callback comes at once.)
 */
export function settleLogOutput(logger: Logger, timeoutMs: number): Promise<void> {
  const destination = destinationOf(logger);
  if (destination === undefined || destination.destroyed === true || typeof destination.destroy !== 'function') return Promise.resolve();
  const written = () => destination._writing !== true && (destination._len ?? 0) === 0;
  if (written()) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if (!written()) return;
      clearInterval(poll);
      clearTimeout(limit);
      resolve();
    }, 10);
    const limit = setTimeout(() => {
      clearInterval(poll);
      try {
        destination.destroy?.();
      } catch {
        // already closing: nothing is left to drop
      }
      resolve();
    }, timeoutMs);
  });
}

/** The failures of a task that repeats on a timer, as {@link failureStreak} logs them. */
export interface FailureStreak {
  /** The task failed: logged when a streak begins and then once every `remindMs`. */
  failed: (err: unknown) => void;
  /** The task worked: ends a streak, saying how long it lasted and how many times it failed. */
  worked: () => void;
}

/**
 * Logs the failures of a task that runs every second or so (a heartbeat, a setting read) once per
 * streak rather than once a run: a warning when it starts failing, a reminder every `remindMs`
 * (a minute) while it goes on, and a line when it works again. A full disk or a store outage then
 * says so in three lines, not thousands.
 */
export function failureStreak(log: Logger, what: string, remindMs = 60_000): FailureStreak {
  let failures = 0;
  let since = 0;
  let remindedAt = 0;
  return {
    failed(err) {
      const now = Date.now();
      failures += 1;
      if (failures === 1) {
        since = now;
        remindedAt = now;
        log.warn({ err }, `${what} failed; it is tried again, and said once it works`);
      } else if (now - remindedAt >= remindMs) {
        remindedAt = now;
        log.warn({ err, failures, failingMs: now - since }, `${what} still fails`);
      }
    },
    worked() {
      if (failures === 0) return;
      log.info({ failures, failedMs: Date.now() - since }, `${what} works again`);
      failures = 0;
    },
  };
}
