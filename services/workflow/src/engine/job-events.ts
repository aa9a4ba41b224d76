import { randomUUID } from 'node:crypto';
import { eventSubject } from '@nap/contracts';
import type { JobEventName } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import { isActiveStatus } from '../domain/job-model';
import type { JobRecord, OutboxEntry } from '../domain/job-model';
import type { JobRepository } from '../store/job-repository';

/** Publishes a durable event with headers; the service wires the bus in. */
export type PublishEvent = (subject: string, payload: unknown, headers: Record<string, string>) => Promise<void>;

/** The payload of a job-level event. */
export function jobEventPayload(job: Pick<JobRecord, '_id' | 'name' | 'status'>, extra: Record<string, unknown>): Record<string, unknown> {
  return { jobId: job._id, name: job.name, status: job.status, timestamp: Date.now(), ...extra };
}

/** An event to write into a job's outbox, with the state change it describes. */
export function outboxEntry(event: JobEventName, payload: Record<string, unknown>): OutboxEntry {
  return { id: randomUUID(), event, payload };
}

/** First wait after a failed publication, doubled up to {@link MAX_RETRY_MS}. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 2_000;

interface Drain {
  /** Something was written to the job's outbox since the last read. */
  dirty: boolean;
  running: boolean;
  retryMs: number;
  timer?: NodeJS.Timeout;
}

/** What the relay needs from the bus. */
export interface RelayBus {
  publish: PublishEvent;
  /** False while the bus is known to be disconnected: no publication is tried then. */
  connected(): boolean;
}

/**
 * Publishes the events of jobs from their outbox (`nap.evt.workflow.job.<jobId>.<event>`), in order
 * per job and at least once. Events are written into the job document in the same store update as
 * the state they describe; the relay reads the outbox, publishes its entries in order, each with its
 * position in the job's stream (`seq` in the payload, and `Nats-Msg-Id` `<jobId>.<seq>` so that
 * JetStream drops a repeat within its duplicate window), and then removes what the bus acknowledged.
 * A publication that fails (the bus is down) is retried with a growing wait, and at once when the
 * bus is back; nothing is dropped. An engine that dies leaves the outbox in the store, and the engine
 * that takes the job's lease over publishes it, so an event may be delivered twice (same `seq`):
 * consumers drop a `seq` they have seen.
 */
export class JobEventRelay {
  private readonly drains = new Map<string, Drain>();
  private readonly idleWaiters: (() => void)[] = [];
  private stopped = false;

  constructor(
    private readonly repository: JobRepository,
    private readonly bus: RelayBus,
    private readonly log: Logger,
  ) {}

  /** The outbox of the job changed (or may hold events): publish what it holds. */
  drain(jobId: string): void {
    if (this.stopped) return;
    let d = this.drains.get(jobId);
    if (d === undefined) {
      d = { dirty: false, running: false, retryMs: 0 };
      this.drains.set(jobId, d);
    }
    d.dirty = true;
    if (!d.running && d.timer === undefined) void this.run(jobId, d);
  }

  /** The bus is back: every job waiting to publish tries again now. */
  busReconnected(): void {
    for (const [jobId, d] of this.drains) {
      if (d.timer === undefined) continue;
      clearTimeout(d.timer);
      delete d.timer;
      d.retryMs = 0;
      void this.run(jobId, d);
    }
  }

  /** Jobs whose events are not all published yet (as far as this engine knows). */
  get pending(): number {
    return this.drains.size;
  }

  /** Resolves once nothing is being published or waits to be (tests); bounded by `timeoutMs` when given. */
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
    for (const d of this.drains.values()) if (d.timer) clearTimeout(d.timer);
    this.drains.clear();
    this.settleIdle();
  }

  private async run(jobId: string, d: Drain): Promise<void> {
    d.running = true;
    let failed = false;
    while (d.dirty && !this.stopped) {
      d.dirty = false;
      try {
        await this.publishOutbox(jobId);
        d.retryMs = 0;
      } catch (err) {
        d.dirty = true;
        failed = true;
        d.retryMs = Math.min(MAX_RETRY_MS, d.retryMs === 0 ? FIRST_RETRY_MS : d.retryMs * 2);
        this.log.warn({ err, jobId, retryInMs: d.retryMs }, 'Publishing job events failed; they stay in the job\'s outbox and are published again');
        break;
      }
    }
    d.running = false;
    if (this.stopped) return;
    if (failed) {
      d.timer = setTimeout(() => {
        delete d.timer;
        void this.run(jobId, d);
      }, d.retryMs);
      d.timer.unref();
      return;
    }
    if (this.drains.get(jobId) === d && !d.dirty) {
      this.drains.delete(jobId);
      if (this.drains.size === 0) this.settleIdle();
    }
  }

  /** Publishes what the job's outbox holds, in order, and removes what was acknowledged; throws after the first failure. */
  private async publishOutbox(jobId: string): Promise<void> {
    if (!this.bus.connected()) throw new Error('The bus is disconnected');
    const box = await this.repository.outboxOf(jobId);
    if (box === null) return;
    if (box.outbox.length === 0) {
      if (!isActiveStatus(box.status)) await this.repository.releaseLease(jobId);
      return;
    }
    const acknowledged: string[] = [];
    let failure: unknown;
    for (const [i, entry] of box.outbox.entries()) {
      const seq = box.published + i + 1;
      try {
        await this.bus.publish(eventSubject('workflow', 'job', jobId, entry.event), { ...entry.payload, seq }, { 'Nats-Msg-Id': `${jobId}.${seq}` });
      } catch (err) {
        failure = err;
        break;
      }
      acknowledged.push(entry.id);
    }
    if (acknowledged.length > 0) {
      const mine = await this.repository.ackOutbox(jobId, box.published, acknowledged);
      if (mine && failure === undefined && acknowledged.length === box.outbox.length && !isActiveStatus(box.status)) await this.repository.releaseLease(jobId);
    }
    if (failure !== undefined) throw failure;
  }

  private settleIdle(): void {
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
