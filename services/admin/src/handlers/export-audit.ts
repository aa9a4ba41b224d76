import { rawReply } from '@nap/bus';
import type { Handler } from '@nap/bus';
import { auditExportPage } from '../steps/audit';
import type { AdminContext } from '../context';

/**
 * `GET /audit/export`: one page of records after `afterSeq`, oldest first, one JSON record a line.
 * The gateway asks page after page and streams them to the HTTP client until a page is empty.
 */
export function exportAudit(svc: AdminContext): Handler<'admin.exportAudit'> {
  return async (input) => {
    const { since, until, afterSeq, limit } = input.query;
    return rawReply(await auditExportPage(svc, { since, until, afterSeq: afterSeq ?? 0, limit }), 'application/x-ndjson');
  };
}
