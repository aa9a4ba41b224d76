import { AppError, validateRequest } from '@nap/contracts';
import type { OperationDef, RequestParts } from '@nap/contracts';

/**
 * Checks the request against the operation's JSON Schemas; `parts` is coerced in place (query
 * members to their types, defaults filled in).
 *
 * Errors: `VALIDATION_FAILED` with every problem in `details`.
 */
export function validate(op: OperationDef, parts: RequestParts): void {
  const problems = validateRequest(op, parts);
  if (problems.length > 0) throw new AppError('VALIDATION_FAILED', problems.map((p) => p.message).join('; '), { details: problems });
}
