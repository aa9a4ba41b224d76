import type { LoggerProps } from '@nap/contracts';

/**
 * `loggerProps` with a new level recorded for a log output, as the original platform keeps them:
 * `log_level` (file), `console_level` (console), `syslog.level` (syslog); every one when no transport
 * is named. Applications and adapters record their level changes this way.
 */
export function withLevel(
  current: Record<string, unknown>,
  level: string,
  transport: 'console' | 'file' | 'syslog' | undefined,
): LoggerProps {
  const next: LoggerProps = { ...current };
  if (transport === undefined || transport === 'file') next.log_level = level;
  if (transport === undefined || transport === 'console') next.console_level = level;
  if (transport === undefined || transport === 'syslog') {
    const syslog = current.syslog;
    next.syslog = { ...(typeof syslog === 'object' && syslog !== null ? syslog : {}), level };
  }
  return next;
}
