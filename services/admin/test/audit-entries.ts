import type { AuditEntry } from '@nap/contracts';

/** An audit entry as the gateway records it: a group created by `ana` (`status` 200 unless given). */
export function groupCreated(entryId: string, status = 200): AuditEntry {
  return {
    entryId,
    timestamp: new Date().toISOString(),
    actor: { kind: 'account', username: 'ana', auth: 'bearer' },
    operation: 'admin.createGroup',
    method: 'POST',
    outcome: { status },
  };
}
