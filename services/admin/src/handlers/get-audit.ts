import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';
import { auditCaughtUp } from '../steps/audit';

/** `GET /audit`: records of the audit trail, newest first, by the shared list options and the audit's own filters. */
export function getAudit(svc: AdminContext): Handler<'admin.getAudit'> {
  return async (input) => {
    const { actor, operation, targetId, outcome, since, until, ...options } = input.query;
    await auditCaughtUp(svc);
    const { results, total } = await svc.audit.list(options, { actor, operation, targetId, outcome, since, until });
    return { results: results.map(({ _id: _ignored, ...record }) => record), total };
  };
}
