/**
 * The part of a logger the bus uses; a pino `Logger` (from `@nap/telemetry`) fits it.
 * The bus logs what it cannot hand back to a caller: a subscriber that threw, a failed ack.
 */
export interface BusLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

function noop(): void {
  // logging disabled
}

/** Logs nothing; the default when no logger is given. */
export const SILENT_LOGGER: BusLogger = { debug: noop, info: noop, warn: noop, error: noop };
