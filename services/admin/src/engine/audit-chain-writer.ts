import type { AuditEntry, AuditRecord, HashedAuditRecord } from '@nap/contracts';
import type { QueuedEntry } from '@nap/bus';
import { GENESIS, chainRecords } from '../domain/audit-chain';
import type { ChainLink } from '../domain/audit-chain';
import { ChainMoved } from '../store/audit-records';
import type { AuditRepository } from '../store/audit-records';

// the bus's JSON codec, without loading the bus into the audit thread (its NATS client weighs ~11 MB there)
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A record the chain took, as its `auditRecorded` event carries it (the record's JSON). */
export interface AppendedRecord {
  seq: number;
  event: Uint8Array;
}

/** What appends the audit queue's batches to the chain: a {@link AuditChainWriter}, here or in the audit thread. */
export interface ChainAppend {
  /** Appends a batch; resolves, once every entry of it is in the chain, with the records it took (an entry kept already is not one). */
  append(batch: QueuedEntry[]): Promise<AppendedRecord[]>;
}

/**
 * Whether a value is an audit entry: `isValid(auditEntrySchema, value)`, or in the audit thread the
 * build's validator of that schema (loading the schemas would cost the thread ~0.2 s of CPU).
 */
export type AuditEntryCheck = (value: unknown) => value is AuditEntry;

/** Where the writer reports an entry it drops. */
export interface ChainWriterLog {
  error(details: Record<string, unknown>, message: string): void;
}

/**
 * Appends batches of audit entries to the hash chain in the store. An entry recorded already (a
 * redelivery after a crash, a platform action fired twice) is kept once, by its `entryId`. Several
 * writers may append (replicas): the seq is the record's id, so two that read the same head cannot
 * both append after it; the one refused reads the head again and chains anew.
 */
export class AuditChainWriter implements ChainAppend {
  private head: ChainLink | undefined;

  constructor(
    private readonly records: Pick<AuditRepository, 'head' | 'append' | 'recorded'>,
    private readonly log: ChainWriterLog,
    private readonly isEntry: AuditEntryCheck,
  ) {}

  /**
   * An entry recorded already is found by the unique index on `entryId` when the batch is inserted,
   * not by a read before: a redelivery is rare, and a read of every entry id cost each request as
   * much as the hashing.
   */
  async append(batch: QueuedEntry[]): Promise<AppendedRecord[]> {
    let pending = this.readEntries(batch);
    const appended: HashedAuditRecord[] = [];
    for (let attempt = 1; pending.length > 0; attempt++) {
      const head = (this.head ??= (await this.records.head()) ?? GENESIS);
      const chained = chainRecords(head, pending);
      try {
        await this.records.append(chained.map((c) => c.record));
        this.head = linkOf((chained[chained.length - 1] as HashedAuditRecord).record);
        appended.push(...chained);
        pending = [];
      } catch (err) {
        if (!(err instanceof ChainMoved) || attempt > 50) throw err;
        // another replica appended first: what went in stays, the rest is chained after the new head
        this.head = undefined;
        appended.push(...chained.slice(0, err.inserted));
        pending = pending.slice(err.inserted);
        if (err.entryTaken) pending = await this.notRecorded(pending);
      }
    }
    // the JSON written when each was hashed: the record is not serialized again for its event
    return appended.map(({ record, json }) => ({ seq: record.seq, event: encoder.encode(json) }));
  }

  /** The entries of a batch, each once; what is no audit entry is logged and dropped (it would fail every time). */
  private readEntries(batch: QueuedEntry[]): AuditEntry[] {
    const seen = new Set<string>();
    const entries: AuditEntry[] = [];
    for (const item of batch) {
      let entry: unknown;
      try {
        entry = JSON.parse(decoder.decode(item.data));
      } catch {
        entry = undefined;
      }
      if (!this.isEntry(entry)) {
        this.log.error({ entryId: item.id }, 'An entry of the audit queue is not an audit entry; it is dropped');
        continue;
      }
      if (seen.has(entry.entryId)) continue;
      seen.add(entry.entryId);
      entries.push(entry);
    }
    return entries;
  }

  private async notRecorded(entries: AuditEntry[]): Promise<AuditEntry[]> {
    const recorded = await this.records.recorded(entries.map((e) => e.entryId));
    return recorded.size === 0 ? entries : entries.filter((e) => !recorded.has(e.entryId));
  }
}

function linkOf(record: AuditRecord): ChainLink {
  return { seq: record.seq, hash: record.hash };
}
