import { eventSubject } from '@nap/contracts';
import type { JobEventName } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import type { JobRecord } from '../domain/job-model';

/** Publishes a durable event; the service wires the bus in. */
export type PublishEvent = (subject: string, payload: unknown) => Promise<void>;

/** The payload of a job-level event. */
export function jobEventPayload(job: JobRecord, extra: Record<string, unknown>): Record<string, unknown> {
  return { jobId: job._id, name: job.name, status: job.status, timestamp: Date.now(), ...extra };
}

/**
 * Publishes the events of jobs (`nap.evt.workflow.job.<jobId>.<event>`) in order per job, without
 * making the engine wait for the bus: each job has a chain of publications, and a failed one is
 * logged, not retried.
 */
export class JobEventPublisher {
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly publishEvent: PublishEvent,
    private readonly log: Logger,
  ) {}

  /** Publishes a job-level event (ordered after the job's earlier events). */
  emitJob(job: JobRecord, event: JobEventName, extra: Record<string, unknown> = {}): void {
    this.publish(job._id, event, jobEventPayload(job, extra));
  }

  /** Publishes an event of a job after the job's earlier events. */
  publish(jobId: string, event: JobEventName, payload: Record<string, unknown>): void {
    const previous = this.chains.get(jobId) ?? Promise.resolve();
    const next = previous
      .then(() => this.publishEvent(eventSubject('workflow', 'job', jobId, event), payload))
      .catch((err: unknown) => this.log.warn({ err, jobId, event }, 'Publishing a job event failed'));
    this.chains.set(jobId, next);
    void next.then(() => {
      if (this.chains.get(jobId) === next) this.chains.delete(jobId);
    });
  }

  /** Resolves once the events published so far are on the bus (tests, shutdown). */
  async flush(): Promise<void> {
    await Promise.all([...this.chains.values()]);
  }
}
