import { AppError } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';
import { auditCaughtUp } from '../steps/audit';

/** `GET /audit/:seq`: one record of the audit trail, by its place in the chain. */
export function getAuditRecord(svc: AdminContext): Handler<'admin.getAuditRecord'> {
  return async (input) => {
    const seq = Number(input.params.seq);
    await auditCaughtUp(svc);
    // the chain's page that starts just before it: one read on the records' key
    const [found] = await svc.audit.page(seq - 1, 1);
    if (found === undefined || found.seq !== seq) {
      throw new AppError('AUDIT_RECORD_NOT_FOUND', `No audit record ${seq}: not recorded yet, or removed by retention`);
    }
    const { _id: _ignored, ...record } = found;
    return record;
  };
}
