import { AppError } from '@nap/contracts';
import type { Caller, OperationDef } from '@nap/contracts';

/**
 * May the caller call the operation: one of its roles must be one of the operation's.
 *
 * Errors: `FORBIDDEN` naming the roles needed and the caller's.
 */
export function authorize(op: OperationDef, caller: Caller, method: string | undefined): void {
  if (op.roles.some((role) => caller.roles.includes(role))) return;
  throw new AppError(
    'FORBIDDEN',
    `${method} ${op.http?.path} needs one of the roles ${op.roles.join(', ')}; the caller has ${caller.roles.length ? caller.roles.join(', ') : 'none'}`,
  );
}
