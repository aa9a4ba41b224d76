import pino from 'pino';
import type { Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * Paths whose values never reach a log line: passwords, tokens, client secrets, device secrets.
 * pino redacts them wherever they appear at these depths.
 */
export const REDACTED_PATHS = [
  'password', '*.password', '*.*.password', '*.*.*.password',
  'token', '*.token', 'access_token', '*.access_token',
  'client_secret', '*.client_secret', '*.*.client_secret',
  'authorization', '*.authorization', '*.headers.authorization', '*.headers.cookie',
  'gw_password', '*.gw_password', '*.*.gw_password', '*.*.*.gw_password',
  'gw_become_pass', '*.gw_become_pass', '*.*.gw_become_pass', '*.*.*.gw_become_pass',
  'privateKey', '*.privateKey', 'passwordHash', '*.passwordHash',
];

export interface LoggerOptions {
  /** Component name, logged as `name` on every line. */
  name: string;
  /** pino level; defaults to `NAP_LOG_LEVEL` or `info`. */
  level?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to read what was logged. */
  destination?: pino.DestinationStream;
}

/** A structured JSON logger with secrets redacted. */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      name: options.name,
      level: options.level ?? process.env.NAP_LOG_LEVEL ?? 'info',
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination ?? pino.destination({ sync: false }),
  );
}
