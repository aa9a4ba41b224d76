import { AppError } from '@nap/contracts';

/** A request got no reply within its timeout. */
export function timeoutError(subject: string, timeoutMs: number, cause?: unknown): AppError {
  return new AppError('TIMEOUT', `No reply on "${subject}" within ${timeoutMs} ms`, { cause });
}

/** Nobody listens on the subject (NATS "no responders"). */
export function noRespondersError(subject: string, cause?: unknown): AppError {
  return new AppError('SERVICE_UNAVAILABLE', `No service listens on "${subject}" (no responders)`, { cause });
}

/** The bus was closed (or is closing and refuses new intake). */
export function closedError(operation: string, cause?: unknown): AppError {
  return new AppError('SERVICE_UNAVAILABLE', `The bus is closed; cannot ${operation}`, { cause });
}

/** A caller passed an argument the bus refuses (a programming error, hence 500). */
export function invalidArgument(message: string): AppError {
  return new AppError('INTERNAL', message);
}
