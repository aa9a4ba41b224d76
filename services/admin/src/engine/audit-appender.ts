import { eventSubject } from '@nap/contracts';
import type { AuditRecord } from '@nap/contracts';
import type { Bus, QueuedEntry, Subscription } from '@nap/bus';
import { encodeJson } from '@nap/bus';
import type { Logger } from '@nap/telemetry';
import { sleep } from '@nap/util';
import type { AuditRecords } from '../store/audit-records';
import type { AppendedRecord, ChainAppend } from './audit-chain-writer';

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
 * Under load, how long after a batch's write began the next one waits, taking in what arrives
 * meanwhile. A write is one store commit flushed to disk whatever its size, and at a few dozen
 * records the commit was much of a batch's cost: over NATS at 32 clients (1,500-1,800 changes a
 * second) batches grew from about 24 entries to about 75 and the admin service spent about 30 µs
 * less per change (test/bench/audit.mjs). Only after a batch of {@link BUSY_BATCH} entries or more:
 * a lone change (a person at the console, a test) is chained at once.
 */
const LINGER_MS = 50;
/** A batch at least this large says entries come faster than they are written: the next one lingers. */
const BUSY_BATCH = 8;
/**
 * Most entries the queue hands over at a time. A batch this full says entries wait already: the
 * next one goes at once, so that a linger never caps how fast the chain takes entries in.
 */
const MAX_BATCH = 256;

/**
 * Hands what the audit queue delivers to the chain's writer (see {@link AuditChainWriter}), a batch
 * at a time (what arrived while the last batch was written goes in together). Then the
 * `auditRecorded` events go out, from a kept position, so that none is lost when a replica dies
 * between storing and publishing.
 */
export class AuditAppender {
  private subscription: Subscription | undefined;
  private relaying: Promise<void> | undefined;
  private relayAgain = false;
  /** The next relay reads the store from the published position (at start, on the timer, after a gap or a failure). */
  private catchUp = true;
  /** Records this replica appended whose events are not out yet: published without reading them back. */
  private fresh: AppendedRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The last seq whose event this replica knows to be out (read from the store once). */
  private published: number | undefined;
  /** The position last written to the store, and when. */
  private kept = { seq: 0, at: 0 };
  /** Epoch ms before which the next batch is not written (see {@link LINGER_MS}); 0 when it goes at once. */
  private lingerUntil = 0;
  /** Cuts a linger short when the appender stops. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly bus: Bus,
    private readonly writer: ChainAppend,
    private readonly records: Pick<AuditRecords, 'publishedThrough' | 'page' | 'markPublished'>,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    this.subscription = await this.bus.consumeQueue('audit', (batch) => this.appendBatch(batch), {
      durableName: CONSUMER,
      maxBatch: MAX_BATCH,
    });
    this.timer = setInterval(() => {
      // records another replica appended and did not publish (it died), or a publish that failed
      this.catchUp = true;
      this.relay();
    }, RELAY_INTERVAL_MS);
    this.timer.unref();
    this.relay();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    if (this.timer) clearInterval(this.timer);
    await this.subscription?.unsubscribe();
    await this.relaying;
    if (this.published !== undefined && this.published > this.kept.seq)
      await this.records.markPublished(this.published).catch(() => undefined);
  }

  /**
   * Appends a batch from the queue; resolves once every entry of it is in the chain (the queue lets
   * go of the batch only then). After a large batch the next waits a little (see {@link LINGER_MS}).
   */
  async appendBatch(batch: QueuedEntry[]): Promise<void> {
    const wait = this.lingerUntil - Date.now();
    if (wait > 0) await sleep(wait, this.stopping.signal);
    this.lingerUntil = batch.length >= BUSY_BATCH && batch.length < MAX_BATCH ? Date.now() + LINGER_MS : 0;
    this.fresh.push(...(await this.writer.append(batch)));
    this.relay();
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
        from = (fresh[fresh.length - 1] as AppendedRecord).seq;
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
          await this.publish(page.map(({ _id: _ignored, ...record }) => ({ seq: record.seq, event: encodeJson(record) })));
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

  private async publish(records: AppendedRecord[]): Promise<void> {
    try {
      await Promise.all(
        records.map((record) =>
          this.bus.publishEvent(eventSubject('admin', 'audit', String(record.seq), 'auditRecorded'), record.event, {
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
