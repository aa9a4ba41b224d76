import { AppError, escapeUnprintable, isAppError } from '@nap/contracts';
import { isRecord } from '@nap/util';

/**
 * The `name` of a submitted document for messages, `(no name)` when it has none; a character no name
 * may hold is shown escaped (`\x1b`), so that the message of a refused name does not carry it.
 */
export function nameOf(input: unknown): string {
  return isRecord(input) && typeof input.name === 'string' ? escapeUnprintable(input.name) : '(no name)';
}

/**
 * What `parse` answers (a `parseAs` of the document's input schema); its 400 `VALIDATION_FAILED`
 * is thrown again with a message that names the document (`The template "x" is not valid: …`), the
 * same `details`.
 */
export function checked<T>(label: string, input: unknown, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (!isAppError(err) || err.code !== 'VALIDATION_FAILED') throw err;
    throw new AppError('VALIDATION_FAILED', `The ${label} "${nameOf(input)}" is not valid: ${err.message}`, {
      details: err.details,
      cause: err,
    });
  }
}
