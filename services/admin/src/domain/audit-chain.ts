// the audit thread loads this: the module it needs, not @nap/contracts' index (every schema, TypeBox)
import { AUDIT_GENESIS_HASH, auditRecordHash, hashAuditRecord } from '@nap/contracts/dist/audit';
import type { AuditEntry, AuditRecord, AuditVerification, HashedAuditRecord } from '@nap/contracts';

/**
 * The audit trail's hash chain, pure: records are numbered from 1 without gaps, and each carries the
 * hash of the one before (`prevHash`) and its own (`hash`: SHA-256 over the RFC 8785 canonical JSON
 * of the record without `hash`). Changing, removing or inserting a record breaks the chain at it.
 */

/** Where the chain stands: the seq and hash of its last record. */
export interface ChainLink {
  seq: number;
  hash: string;
}

/** The link before the first record. */
export const GENESIS: ChainLink = { seq: 0, hash: AUDIT_GENESIS_HASH };

/** The records of `entries`, in order, chained after `head`. */
export function chainEntries(head: ChainLink, entries: readonly AuditEntry[]): AuditRecord[] {
  return chainRecords(head, entries).map((chained) => chained.record);
}

/**
 * The records of `entries`, in order, chained after `head`, each with its JSON (the `auditRecorded`
 * event's), written in the pass that hashes it.
 */
export function chainRecords(head: ChainLink, entries: readonly AuditEntry[]): HashedAuditRecord[] {
  const records: HashedAuditRecord[] = [];
  let link = head;
  for (const entry of entries) {
    const chained = hashAuditRecord({ seq: link.seq + 1, ...entry, prevHash: link.hash });
    records.push(chained);
    link = { seq: chained.record.seq, hash: chained.record.hash };
  }
  return records;
}

/**
 * Checks records in chain order, a page at a time, from `start` (the genesis, or the last record
 * retention removed). Records at or before `start` (removed by a retention run still under way) are
 * passed over. The first record that does not hold ends the check.
 */
export class ChainVerifier {
  private expected: ChainLink;
  private checked = 0;
  private broken: { seq: number; reason: string } | undefined;

  constructor(private readonly start: ChainLink) {
    this.expected = start;
  }

  /** Checks the next records; false once the chain is broken (stop reading). */
  check(records: readonly (AuditRecord & Record<string, unknown>)[]): boolean {
    for (const stored of records) {
      if (this.broken) return false;
      if (stored.seq <= this.start.seq) continue;
      const { _id: _ignored, ...record } = stored;
      this.checked += 1;
      const reason = problemOf(record as AuditRecord, this.expected);
      if (reason !== undefined) {
        this.broken = { seq: record.seq, reason };
        return false;
      }
      this.expected = { seq: record.seq, hash: record.hash };
    }
    return true;
  }

  /** The link after the last record checked. */
  get position(): ChainLink {
    return this.expected;
  }

  result(): AuditVerification {
    const out: AuditVerification = {
      valid: this.broken === undefined,
      checked: this.checked,
      firstBroken: this.broken?.seq ?? null,
      from: this.start.seq + 1,
    };
    if (this.broken) out.reason = this.broken.reason;
    return out;
  }
}

function problemOf(record: AuditRecord, expected: ChainLink): string | undefined {
  if (record.seq !== expected.seq + 1) return `records ${expected.seq + 1} to ${record.seq - 1} are missing`;
  if (record.prevHash !== expected.hash) return `its prevHash is not the hash of record ${expected.seq}`;
  if (auditRecordHash(record) !== record.hash) return 'its content does not match its hash';
  return undefined;
}
