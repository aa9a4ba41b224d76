import { AppError } from '@nap/contracts';
import type { Caller, OperationDef } from '@nap/contracts';

/**
 * May the caller call the operation: one of its roles must be one of the operation's, or a custom
 * role of its groups must allow the operation (its id in the caller's `operations`, which the admin
 * service resolves with the caller's roles), unless the operation acts on the caller's own session
 * or account (`auth: 'caller'`), which any signed-in caller may. A public operation (no role) is
 * never reached here.
 *
 * Errors: `FORBIDDEN` naming the roles needed and the caller's.
 */
export function authorize(op: OperationDef, caller: Caller, method: string | undefined): void {
  if (op.auth === 'caller' || op.roles.some((role) => caller.roles.includes(role))) return;
  if (op.roles.length > 0 && caller.operations?.includes(op.id) === true) return;
  throw new AppError(
    'FORBIDDEN',
    `${method} ${op.http?.path} needs one of the roles ${op.roles.join(', ')}; the caller has ${caller.roles.length ? caller.roles.join(', ') : 'none'}`,
  );
}
