import type { Logger } from '@nap/telemetry';

/**
 * Runs `stop` once on SIGTERM or SIGINT, then exits; a second signal exits at once. `stop` should
 * stop intake, finish or hand back in-flight work, drain the bus, close stores and flush telemetry.
 */
export function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
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
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}
