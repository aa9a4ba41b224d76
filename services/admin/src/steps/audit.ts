// The audit trail: chain verification, export pages, retention.
import type { AuditVerification } from '@nap/contracts';
import { isRecord } from '@nap/util';
import type { AdminContext } from '../context';
import { DEFAULT_AUDIT_RETENTION_DAYS } from '../domain/profiles';
import { activeProfileRecord } from './profiles';

/** Default records in one export page, and the bytes a page stops at (a bus message must stay well under NATS's 1 MiB). */
const EXPORT_PAGE = 500;
const EXPORT_PAGE_BYTES = 512 * 1024;
/** Longest a read of the audit trail waits for the records of changes already answered to be chained. */
const CHAIN_WAIT_MS = 2_000;

/**
 * Waits until what the audit queue held when the read came is chained (at most 2 s: a read is not
 * refused because the appender is slow), so that a change answered before the read is in it. The
 * standalone platform answers a change once its entry is kept in the bus's journal and chains it
 * just after; over NATS the appender follows JetStream and this resolves at once.
 */
export function auditCaughtUp(svc: AdminContext): Promise<void> {
  return svc.bus.queueHandled('audit', CHAIN_WAIT_MS);
}

/** The verification of each admin service under way, and the one that runs after it for those who asked meanwhile. */
const verifications = new WeakMap<AdminContext, { running?: Promise<AuditVerification>; next?: Promise<AuditVerification> }>();

/**
 * Recomputes the chain of every kept record, from the retention anchor (or the first record ever).
 * One runs at a time: those asked while one runs share the one that starts when it ends (it holds
 * every record answered before they asked, which the one running may not), so that many callers at
 * once cost two walks of the chain, not one each.
 */
export function verifyAuditChain(svc: AdminContext): Promise<AuditVerification> {
  let state = verifications.get(svc);
  if (state === undefined) verifications.set(svc, (state = {}));
  const current = state;
  if (current.running === undefined) {
    const run = auditCaughtUp(svc).then(() => svc.audit.verify());
    current.running = run.finally(() => {
      current.running = undefined;
    });
    return current.running;
  }
  current.next ??= current.running
    .catch(() => undefined)
    .then(() => {
      current.next = undefined;
      return verifyAuditChain(svc);
    });
  return current.next;
}

/** One page of the export: records after `afterSeq` within `since`/`until`, a JSON record a line, oldest first. */
export async function auditExportPage(
  svc: AdminContext,
  options: { since?: string; until?: string; afterSeq: number; limit?: number },
): Promise<string> {
  await auditCaughtUp(svc);
  const records = await svc.audit.page(options.afterSeq, options.limit ?? EXPORT_PAGE, options);
  let out = '';
  for (const { _id: _ignored, ...record } of records) {
    out += `${JSON.stringify(record)}\n`;
    if (out.length >= EXPORT_PAGE_BYTES) break;
  }
  return out;
}

/** Days the audit trail keeps a record: the active profile's `auditProps.retentionDays`, 400 by default. */
export async function auditRetentionDays(svc: AdminContext): Promise<number> {
  const active = await activeProfileRecord(svc);
  const audit: unknown = active?.profile.auditProps;
  const days = isRecord(audit) ? audit.retentionDays : undefined;
  return typeof days === 'number' && days > 0 ? days : DEFAULT_AUDIT_RETENTION_DAYS;
}
