import type { Logger } from '@nap/telemetry';

/**
 * A signal repeated within this many ms of the first is the same request delivered twice: Ctrl-C
 * in a terminal reaches the whole process group, and `npm start` forwards the same signal to its
 * child. Only a later one is someone asking again.
 */
export const REPEATED_SIGNAL_MS = 1_000;

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
      logger.flush();
      process.exit(1);
    }
    stoppingSince = Date.now();
    logger.info({ signal }, 'Shutting down');
    stop()
      .then(() => {
        logger.info('Stopped');
        logger.flush();
        process.exit(0);
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'Shutdown failed');
        logger.flush();
        process.exit(1);
      });
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}
