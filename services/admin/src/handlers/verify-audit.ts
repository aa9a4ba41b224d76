import type { Handler } from '@nap/bus';
import { verifyAuditChain } from '../steps/audit';
import type { AdminContext } from '../context';

/** `GET /audit/verify`: recomputes the hash chain of every kept record; the first record that does not hold. */
export function verifyAudit(svc: AdminContext): Handler<'admin.verifyAudit'> {
  return async () => verifyAuditChain(svc);
}
