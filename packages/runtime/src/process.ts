import { settleLogOutput } from '@nap/telemetry';
import type { Logger } from '@nap/telemetry';

/**
 * A signal repeated within this many ms of the first is the same request delivered twice: Ctrl-C
 * in a terminal reaches the whole process group, and `npm start` forwards the same signal to its
 * child. Only a later one is someone asking again.
 */
export const REPEATED_SIGNAL_MS = 1_000;

/** Longest wait for the log to reach stdout before exiting anyway (a reader that stopped reading). */
const FLUSH_TIMEOUT_MS = 2_000;

/**
 * Exits once the log lines written so far have left the process: the logger writes asynchronously,
 * and exiting with lines buffered either drops them (a loaded machine's slow pipe kept "Stopped"
 * from ever being seen) or, when nobody reads the log, never ends. Lines that cannot leave within
 * {@link FLUSH_TIMEOUT_MS} are dropped.
 */
function exitAfterLog(logger: Logger, code: number): void {
  void settleLogOutput(logger, FLUSH_TIMEOUT_MS).then(() => process.exit(code));
}

/**
 * Runs `stop` once on SIGTERM or SIGINT, then exits; a second signal (later than
 * {@link REPEATED_SIGNAL_MS}) exits at once. `stop` should stop intake, finish or hand back
 * in-flight work, drain the bus, close stores and flush telemetry.
 */
export function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stoppingSince: number | undefined;
  const handler = (signal: NodeJS.Signals) => {
    if (stoppingSince !== undefined) {
      if (Date.now() - stoppingSince < REPEATED_SIGNAL_MS) return;
      logger.warn({ signal }, 'Asked again to stop: exiting at once');
      exitAfterLog(logger, 1);
      return;
    }
    stoppingSince = Date.now();
    logger.info({ signal }, 'Shutting down');
    stop()
      .then(() => {
        logger.info('Stopped');
        exitAfterLog(logger, 0);
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'Shutdown failed');
        exitAfterLog(logger, 1);
      });
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}
