import { randomBytes } from 'node:crypto';
import { eventSubject } from '@nap/contracts';
import type { JobEventName } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import { RecentMap, merged } from '@nap/util';
import { isActiveStatus } from '../domain/job-model';
import type { JobRecord, OutboxEntry } from '../domain/job-model';
import type { JobRepository, OutboxState } from '../store/job-repository';

/** An event of a job's stream as the relay publishes it. */
export interface JobEventMessage {
  subject: string;
  /** The outbox entry's payload, as written: the published event is it with `seq` added (see {@link eventBytes}). */
  payload: Record<string, unknown>;
  /** The event's position in the job's stream. */
  seq: number;
  headers: Record<string, string>;
}

/**
 * The bytes of a published job event: the JSON of its payload with `seq` as its last member. The
 * member is written after the payload's text rather than the payload being copied with it (an
 * object per event, which cost more than the encoding), and the text is written once, into the
 * bytes, not joined to it first. A payload that has a `seq` of its own (none the engine writes) is
 * copied, its `seq` replaced, as a spread would.
 */
export function eventBytes(message: Pick<JobEventMessage, 'payload' | 'seq'>): Buffer {
  const { payload, seq } = message;
  if (Object.hasOwn(payload, 'seq')) return Buffer.from(JSON.stringify(merged(payload, { seq })));
  const text = JSON.stringify(payload);
  if (text.length === 2) return Buffer.from(`{"seq":${seq}}`);
  const tail = `,"seq":${seq}}`;
  const size = Buffer.byteLength(text);
  const bytes = Buffer.allocUnsafe(size - 1 + tail.length);
  bytes.write(text, 0, 'utf8');
  // over the payload's closing brace
  bytes.write(tail, size - 1, 'latin1');
  return bytes;
}

/**
 * {@link eventBytes} of each of `messages`, in order, made together: the texts are joined and
 * encoded at once, each event's bytes a view of its part (the encoding, the buffer and the calls
 * into it per event cost about as much as the JSON). Events whose text is not all ASCII (one byte
 * per character, so that each part's bytes are where its characters are) are encoded one by one.
 */
export function eventsBytes(messages: readonly Pick<JobEventMessage, 'payload' | 'seq'>[]): Uint8Array[] {
  // concatenated rather than joined: V8 keeps the pieces until the text is encoded, then copies once
  let text = '';
  const ends: number[] = [];
  for (const message of messages) {
    const { payload, seq } = message;
    if (Object.hasOwn(payload, 'seq')) text += JSON.stringify(merged(payload, { seq }));
    else {
      const json = JSON.stringify(payload);
      text += json.length === 2 ? `{"seq":${seq}}` : `${json.slice(0, -1)},"seq":${seq}}`;
    }
    ends.push(text.length);
  }
  const bytes = Buffer.from(text);
  if (bytes.length !== text.length) return messages.map(eventBytes);
  const out: Uint8Array[] = [];
  // plain views of the bytes: a Buffer's subarray makes a Buffer through its species, several times the cost
  const { buffer, byteOffset } = bytes;
  let start = 0;
  for (const end of ends) {
    out.push(new Uint8Array(buffer, byteOffset + start, end - start));
    start = end;
  }
  return out;
}

/**
 * Publishes durable events in order, each once the one before it is stored, stopping at the first
 * that fails: how many were stored, and why the next one was not (the bus's `publishEvents`; the
 * service wires it in). A job's outbox is published in one call, not one call per event.
 */
export type PublishEvents = (events: JobEventMessage[]) => Promise<{ published: number; error?: unknown }>;

/** The payload of a job-level event. */
export function jobEventPayload(job: Pick<JobRecord, '_id' | 'name' | 'status'>, extra: Record<string, unknown>): Record<string, unknown> {
  return { jobId: job._id, name: job.name, status: job.status, timestamp: Date.now(), ...extra };
}

/**
 * Ids of outbox entries: this process's random prefix and a count. An id only has to tell the
 * entries of one job apart, whichever engine wrote them (a process has a prefix of its own), and
 * a job's events take one each: a UUID per event cost more than the rest of making it. 72 random
 * bits tell processes apart as well as a UUID's 122 do here, in a third of the characters, which
 * every entry carries through the job's insert or step write and its outbox's removal.
 */
const ENTRY_ID_PREFIX = `${randomBytes(9).toString('base64url')}.`;
let entryCount = 0;

/** An event to write into a job's outbox, with the state change it describes. */
export function outboxEntry(event: JobEventName, payload: Record<string, unknown>): OutboxEntry {
  entryCount += 1;
  return { id: ENTRY_ID_PREFIX + entryCount.toString(36), event, payload };
}

/** First wait after a failed publication, doubled up to {@link MAX_RETRY_MS}. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 2_000;
/**
 * How long published events of a running job may stay in its outbox before they are removed: one
 * removal covers the events of every step in between (a job that ends is cleared at once). An engine
 * that dies meanwhile leaves them to be published again, under the same seq.
 */
const ACK_DELAY_MS = 250;
/**
 * How many jobs whose events this relay published and removed (and then stopped tracking) it keeps
 * the count of: enough to cover the writes still waiting for their answer meanwhile (see
 * {@link JobEventRelay.forgotten}).
 */
const REMEMBERED_JOBS = 1_000;

interface Drain {
  /** Something was written to the job's outbox since the last read. */
  dirty: boolean;
  /** The outbox as the newest write handed it over since the last read (see {@link JobEventRelay.drain}). */
  fresh?: OutboxState;
  /** A write handed nothing over since the last read: the next pass reads the store whatever was handed over. */
  unknownWrite: boolean;
  /**
   * The outbox as this relay last read it, less what it removed since: a lower bound of the stored
   * one (its count of published events and its count of all events ever written, both of which only
   * grow). Kept after a removal and after a failure, so that a hand-over older than it is never
   * published from (see {@link JobEventRelay.forgotten}).
   */
  known?: OutboxState;
  running: boolean;
  retryMs: number;
  retryTimer?: NodeJS.Timeout;
  /** Events this relay published that are still in the outbox (their removal waits for {@link ACK_DELAY_MS}). */
  sent: Set<string>;
  ackTimer?: NodeJS.Timeout;
  /** The removal of the published events is due. */
  ackDue: boolean;
}

/** What the relay needs from the bus. */
export interface RelayBus {
  publish: PublishEvents;
  /** False while the bus is known to be disconnected: no publication is tried then. */
  connected(): boolean;
}

/**
 * Publishes the events of jobs from their outbox (`nap.evt.workflow.job.<jobId>.<event>`), in order
 * per job and at least once. Events are written into the job document in the same store update as
 * the state they describe; the relay reads the outbox, publishes the entries it has not published
 * yet in order, each with its position in the job's stream (`seq` in the payload, and `Nats-Msg-Id`
 * `<jobId>.<seq>` so that JetStream drops a repeat within its duplicate window), and removes what
 * the bus acknowledged (batched per job, see {@link ACK_DELAY_MS}; at once when the job ended, with
 * its lease). A publication that fails (the bus is down) is retried with a growing wait, and at once
 * when the bus is back; nothing is dropped. An engine that dies leaves the outbox in the store, and
 * the engine that takes the job's lease over publishes it, so an event may be delivered twice (same
 * `seq`): consumers drop a `seq` they have seen.
 */
export class JobEventRelay {
  private readonly drains = new Map<string, Drain>();
  /**
   * What this relay knew of the outbox of jobs it stopped tracking once it had published and removed
   * everything (at most {@link REMEMBERED_JOBS}, the latest): a write is in the store, for every
   * reader, before its writer has the answer, so the relay may read, publish and remove a write's
   * events before the writer hands over the outbox as the write left it. That hand-over is stale
   * then: it is compared with what the relay knew, as if the relay had kept tracking the job, and
   * the store is read instead of publishing those events a second time.
   */
  private readonly forgotten = new RecentMap<string, OutboxState>(REMEMBERED_JOBS);
  private readonly idleWaiters: (() => void)[] = [];
  private stopped = false;

  constructor(
    private readonly repository: JobRepository,
    private readonly bus: RelayBus,
    private readonly log: Logger,
  ) {}

  /**
   * The outbox of the job changed (or may hold events): publish what it holds. A writer gives the
   * outbox as its own update left it (`after`): the relay then publishes from it without reading the
   * store, as long as it is newer than what the relay knows of the outbox already; otherwise (and
   * after a failure, or with no outbox given) it reads the store.
   */
  drain(jobId: string, after?: OutboxState): void {
    if (this.stopped) return;
    const d = this.stateOf(jobId);
    d.dirty = true;
    if (after === undefined) d.unknownWrite = true;
    else if (d.fresh === undefined || isNewer(after, d.fresh)) d.fresh = after;
    this.kick(jobId, d);
  }

  /** The bus is back: every job waiting to publish tries again now. */
  busReconnected(): void {
    for (const [jobId, d] of this.drains) {
      if (d.retryTimer === undefined) continue;
      clearTimeout(d.retryTimer);
      delete d.retryTimer;
      d.retryMs = 0;
      this.kick(jobId, d);
    }
  }

  /** Jobs whose events are not all published and removed yet (as far as this engine knows). */
  get pending(): number {
    return this.drains.size;
  }

  /** Resolves once nothing is being published or waits to be (tests, shutdown); bounded by `timeoutMs` when given. */
  idle(timeoutMs?: number): Promise<void> {
    if (this.drains.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.idleWaiters.push(resolve);
      if (timeoutMs !== undefined) setTimeout(resolve, timeoutMs).unref();
    });
  }

  /** Stops publishing; what is left stays in the outboxes for the next holder of each job's lease. */
  stop(): void {
    this.stopped = true;
    for (const d of this.drains.values()) {
      if (d.retryTimer) clearTimeout(d.retryTimer);
      if (d.ackTimer) clearTimeout(d.ackTimer);
    }
    this.drains.clear();
    this.forgotten.clear();
    this.settleIdle();
  }

  private stateOf(jobId: string): Drain {
    let d = this.drains.get(jobId);
    if (d === undefined) {
      d = { dirty: false, unknownWrite: false, running: false, retryMs: 0, sent: new Set(), ackDue: false };
      const known = this.forgotten.get(jobId);
      if (known !== undefined) {
        this.forgotten.delete(jobId);
        d.known = known;
      }
      this.drains.set(jobId, d);
    }
    return d;
  }

  /** Stops tracking a job whose events are all published and removed, remembering what the relay knew of its outbox. */
  private forget(jobId: string, d: Drain): void {
    this.drains.delete(jobId);
    if (d.known === undefined) return;
    this.forgotten.set(jobId, { outbox: [], published: d.known.published, status: d.known.status });
  }

  private kick(jobId: string, d: Drain): void {
    if (!d.running && d.retryTimer === undefined) void this.run(jobId, d);
  }

  private async run(jobId: string, d: Drain): Promise<void> {
    d.running = true;
    let failed = false;
    while ((d.dirty || d.ackDue) && !this.stopped) {
      try {
        const changed = d.dirty;
        d.dirty = false;
        await this.publishOutbox(jobId, d, changed);
        d.retryMs = 0;
      } catch (err) {
        d.dirty = true;
        // a retry reads the store: what a write handed over may be stale by then (what the relay
        // knows stays a lower bound of the stored outbox, which a later hand-over must be newer than)
        delete d.fresh;
        failed = true;
        d.retryMs = Math.min(MAX_RETRY_MS, d.retryMs === 0 ? FIRST_RETRY_MS : d.retryMs * 2);
        this.log.warn(
          { err, jobId, retryInMs: d.retryMs },
          "Publishing job events failed; they stay in the job's outbox and are published again",
        );
        break;
      }
    }
    d.running = false;
    if (this.stopped) return;
    if (failed) {
      d.retryTimer = setTimeout(() => {
        delete d.retryTimer;
        void this.run(jobId, d);
      }, d.retryMs);
      d.retryTimer.unref();
      return;
    }
    if (d.sent.size > 0) {
      d.ackTimer ??= setTimeout(() => {
        delete d.ackTimer;
        d.ackDue = true;
        this.kick(jobId, d);
      }, ACK_DELAY_MS);
      return;
    }
    if (this.drains.get(jobId) === d && !d.dirty) {
      this.forget(jobId, d);
      if (this.drains.size === 0) this.settleIdle();
    }
  }

  /**
   * Publishes the outbox entries of the job this relay has not published yet, in order; removes the
   * published ones when they are due (or the job ended); throws after the first failed publication.
   */
  private async publishOutbox(jobId: string, d: Drain, changed: boolean): Promise<void> {
    const fresh = d.unknownWrite ? undefined : d.fresh;
    delete d.fresh;
    d.unknownWrite = false;
    if (!this.bus.connected()) throw new Error('The bus is disconnected');
    const box = await this.outbox(jobId, d, changed, fresh);
    if (box === null) {
      delete d.known;
      d.sent.clear();
      d.ackDue = false;
      return;
    }
    d.known = box;
    // what this relay published already is a prefix of the outbox (nothing else removes entries but an acknowledgement)
    const published = box.outbox.findIndex((entry) => !d.sent.has(entry.id));
    const from = published === -1 ? box.outbox.length : published;
    const current = new Set(box.outbox.slice(0, from).map((e) => e.id));
    for (const id of d.sent) if (!current.has(id)) d.sent.delete(id);
    let failure: unknown;
    if (from < box.outbox.length) {
      const messages: JobEventMessage[] = [];
      // one subject per event name, made and checked once: a job's events share a few
      const subjects = new Map<string, string>();
      for (let i = from; i < box.outbox.length; i += 1) {
        const entry = box.outbox[i] as OutboxEntry;
        const seq = box.published + i + 1;
        let subject = subjects.get(entry.event);
        if (subject === undefined) {
          subject = eventSubject('workflow', 'job', jobId, entry.event);
          subjects.set(entry.event, subject);
        }
        messages.push({
          subject,
          payload: entry.payload,
          seq,
          headers: { 'Nats-Msg-Id': `${jobId}.${seq}` },
        });
      }
      let published = 0;
      try {
        const outcome = await this.bus.publish(messages);
        published = outcome.published;
        if (published < messages.length) failure = outcome.error ?? new Error(`The bus stored ${published} of ${messages.length} events`);
      } catch (err) {
        failure = err;
      }
      for (let i = 0; i < published; i += 1) d.sent.add((box.outbox[from + i] as OutboxEntry).id);
    }
    const ended = !isActiveStatus(box.status);
    const all = failure === undefined && d.sent.size === box.outbox.length;
    if (ended && all) await this.removeLast(jobId, box, d);
    else if (d.ackDue || ended) await this.remove(jobId, box.published, box.outbox, d);
    if (failure !== undefined) throw failure;
  }

  /**
   * The outbox to publish from: what the last write handed over when this relay knows nothing of
   * the outbox yet or it is newer than what it knows; what the relay knows when only a removal is
   * due (removals are conditional, so a stale view removes nothing wrongly, and publishing from one
   * at worst publishes an event again under its seq); the stored outbox otherwise.
   */
  private outbox(jobId: string, d: Drain, changed: boolean, fresh: OutboxState | undefined): Promise<OutboxState | null> | OutboxState {
    if (fresh !== undefined && (d.known === undefined || isNewer(fresh, d.known))) return fresh;
    if (d.known !== undefined && !changed) return d.known;
    return this.repository.outboxOf(jobId);
  }

  /** Removes the published prefix of the outbox (read with `published` acknowledged before it). */
  private async remove(jobId: string, published: number, outbox: OutboxEntry[], d: Drain): Promise<void> {
    d.ackDue = false;
    if (d.ackTimer) clearTimeout(d.ackTimer);
    delete d.ackTimer;
    const ids = outbox.filter((e) => d.sent.has(e.id)).map((e) => e.id);
    if (ids.length === 0) return;
    // refused when another publisher removed them first: it published them too
    if (await this.repository.ackOutbox(jobId, published, ids, outbox))
      d.known = { outbox: outbox.slice(ids.length), published: published + ids.length, status: d.known?.status ?? '' };
    else delete d.known;
    d.sent.clear();
  }

  /**
   * The job ended and every event in its outbox is published: clear it and end the lease. What the
   * relay knows of the outbox is then the empty one after them: the next pass reads the store
   * (unless a write hands over an outbox newer than that), and a late hand-over of a write whose
   * events were just removed is not published from.
   */
  private async removeLast(jobId: string, box: OutboxState, d: Drain): Promise<void> {
    if (d.ackTimer) clearTimeout(d.ackTimer);
    delete d.ackTimer;
    d.ackDue = false;
    const { published, outbox } = box;
    const ids = outbox.map((e) => e.id);
    const removed: OutboxState = { outbox: [], published: published + ids.length, status: box.status };
    if (ids.length === 0) {
      d.sent.clear();
      d.known = removed;
      await this.repository.releaseLease(jobId);
      return;
    }
    if (await this.repository.ackLastEvents(jobId, published, ids)) {
      d.sent.clear();
      d.known = removed;
      return;
    }
    if (!(await this.repository.ackOutbox(jobId, published, ids, outbox))) {
      // Another publisher counted some of these events as published first: the relay of another
      // engine (one that wrote to the job, or published it before this engine took it over) removed
      // the first of them. Nothing else wakes this relay for a job that ended, so it reads the store
      // again now and removes the rest with the lease; what it published stays in `sent`, so none is
      // published a second time. Each refusal means the count moved on, so this ends.
      delete d.known;
      d.dirty = true;
      return;
    }
    d.sent.clear();
    d.known = removed;
    await this.repository.releaseLease(jobId);
  }

  private settleIdle(): void {
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}

/**
 * Whether outbox `a` is newer than `b` (both of the same job): it holds events `b` does not. Both the
 * count of published events and the count of all events ever written only grow, so an outbox read
 * before another has no more of either.
 */
function isNewer(a: OutboxState, b: OutboxState): boolean {
  return a.published >= b.published && a.published + a.outbox.length > b.published + b.outbox.length;
}
