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
