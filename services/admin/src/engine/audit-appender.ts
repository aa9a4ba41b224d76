import { auditEntrySchema, eventSubject, isValid } from '@nap/contracts';
import type { AuditEntry, AuditRecord } from '@nap/contracts';
import type { Bus, QueuedEntry, Subscription } from '@nap/bus';
import { decodeJson, encodeJson } from '@nap/bus';
import type { Logger } from '@nap/telemetry';
import { GENESIS, chainEntries } from '../domain/audit-chain';
import type { ChainLink } from '../domain/audit-chain';
import { ChainMoved } from '../store/audit-records';
import type { AuditRepository } from '../store/audit-records';

/** The durable consumer of the audit queue that the admin replicas share. */
const CONSUMER = 'admin-audit';
/** How often the event relay looks for records whose `auditRecorded` event has not gone out. */
const RELAY_INTERVAL_MS = 5_000;
const RELAY_PAGE = 500;
/**
 * How often the relay's position is written. Not after every batch: a write of its own would cost
 * each request a second commit; after a crash the events since the position kept go out again,
 * which subscribers drop by seq (and JetStream by message id).
 */
const POSITION_WRITE_MS = 1_000;

/**
 * Appends what the audit queue delivers to the hash chain, a batch at a time (what arrived while the
 * last batch was written goes in together). An entry recorded already (a redelivery after a crash,
 * a platform action fired twice) is kept once, by its `entryId`. Several replicas may append: the
 * seq is the record's id, so two replicas that read the same head cannot both append after it; the
 * one refused reads the head again and chains anew. Then the `auditRecorded` events go out, from a
 * kept position, so that none is lost when a replica dies between storing and publishing.
 */
export class AuditAppender {
  private head: ChainLink | undefined;
  private subscription: Subscription | undefined;
  private relaying: Promise<void> | undefined;
  private relayAgain = false;
  /** The next relay reads the store from the published position (at start, on the timer, after a gap or a failure). */
  private catchUp = true;
  /** Records this replica appended whose events are not out yet: published without reading them back. */
  private fresh: AuditRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The last seq whose event this replica knows to be out (read from the store once). */
  private published: number | undefined;
  /** The position last written to the store, and when. */
  private kept = { seq: 0, at: 0 };

  constructor(
    private readonly bus: Bus,
    private readonly records: AuditRepository,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    this.subscription = await this.bus.consumeQueue('audit', (batch) => this.appendBatch(batch), { durableName: CONSUMER });
    this.timer = setInterval(() => {
      // records another replica appended and did not publish (it died), or a publish that failed
      this.catchUp = true;
      this.relay();
    }, RELAY_INTERVAL_MS);
    this.timer.unref();
    this.relay();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.subscription?.unsubscribe();
    await this.relaying;
    if (this.published !== undefined && this.published > this.kept.seq)
      await this.records.markPublished(this.published).catch(() => undefined);
  }

  /**
   * Appends a batch from the queue; resolves once every entry of it is in the chain. An entry
   * recorded already is found by the unique index on `entryId` when the batch is inserted, not by a
   * read before: a redelivery is rare, and a read of every entry id cost each request as much as the
   * hashing.
   */
  async appendBatch(batch: QueuedEntry[]): Promise<void> {
    let pending = this.readEntries(batch);
    for (let attempt = 1; pending.length > 0; attempt++) {
      const head = (this.head ??= (await this.records.head()) ?? GENESIS);
      const chained = chainEntries(head, pending);
      try {
        await this.records.append(chained);
        this.head = linkOf(chained[chained.length - 1] as AuditRecord);
        this.fresh.push(...chained);
        pending = [];
      } catch (err) {
        if (!(err instanceof ChainMoved) || attempt > 50) throw err;
        // another replica appended first: what went in stays, the rest is chained after the new head
        this.head = undefined;
        this.fresh.push(...chained.slice(0, err.inserted));
        pending = pending.slice(err.inserted);
        if (err.entryTaken) pending = await this.notRecorded(pending);
      }
    }
    this.relay();
  }

  /** The entries of a batch, each once; what is no audit entry is logged and dropped (it would fail every time). */
  private readEntries(batch: QueuedEntry[]): AuditEntry[] {
    const seen = new Set<string>();
    const entries: AuditEntry[] = [];
    for (const item of batch) {
      let entry: unknown;
      try {
        entry = decodeJson(item.data);
      } catch {
        entry = undefined;
      }
      if (!isValid(auditEntrySchema, entry)) {
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

  /** Publishes the `auditRecorded` events not yet out; one relay at a time, run again when asked meanwhile. */
  private relay(): void {
    if (this.relaying) {
      this.relayAgain = true;
      return;
    }
    this.relaying = this.publishPending()
      .catch((err: unknown) => this.log.warn({ err }, 'Publishing audit events failed; they are published later'))
      .finally(() => {
        this.relaying = undefined;
        if (this.relayAgain) {
          this.relayAgain = false;
          this.relay();
        }
      });
  }

  private async publishPending(): Promise<void> {
    let from = (this.published ??= await this.records.publishedThrough());
    const fresh = this.fresh.splice(0).filter((r) => r.seq > from);
    if (!this.catchUp && fresh.length > 0) {
      if (fresh.every((r, i) => r.seq === from + 1 + i)) {
        // what this replica just appended follows what is out: published as it is, not read back
        await this.publish(fresh);
        from = (fresh[fresh.length - 1] as AuditRecord).seq;
        this.published = from;
      } else {
        // another replica appended in between: read the chain from where the events stand
        this.catchUp = true;
      }
    }
    if (this.catchUp) {
      this.catchUp = false;
      try {
        for (;;) {
          const page = await this.records.page(from, RELAY_PAGE);
          if (page.length === 0) break;
          await this.publish(page.map(({ _id: _ignored, ...record }) => record));
          from = (page[page.length - 1] as AuditRecord).seq;
          this.published = from;
          if (page.length < RELAY_PAGE) break;
        }
      } catch (err) {
        this.catchUp = true;
        throw err;
      }
    }
    if (from > this.kept.seq && Date.now() - this.kept.at >= POSITION_WRITE_MS) await this.keepPosition(from);
  }

  private async publish(records: AuditRecord[]): Promise<void> {
    try {
      await Promise.all(
        records.map((record) =>
          this.bus.publishEvent(eventSubject('admin', 'audit', String(record.seq), 'auditRecorded'), encodeJson(record), {
            // a record published twice (two replicas, a crash before the position was kept) is dropped by JetStream
            'Nats-Msg-Id': `audit.${record.seq}`,
          }),
        ),
      );
    } catch (err) {
      // some may have gone out: the store is read again from the position, and a repeat is dropped
      this.catchUp = true;
      throw err;
    }
  }

  private async keepPosition(seq: number): Promise<void> {
    await this.records.markPublished(seq);
    this.kept = { seq, at: Date.now() };
  }
}

function linkOf(record: AuditRecord): ChainLink {
  return { seq: record.seq, hash: record.hash };
}
