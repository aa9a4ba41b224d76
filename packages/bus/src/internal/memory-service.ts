import { randomBytes } from 'node:crypto';
import type { EndpointDef, IncomingRequest, RegisteredService, ServiceInfo, ServiceRegistration, ServiceStats } from '../types';
import { assertValidHeaders } from './headers';
import { InFlight } from './in-flight';
import type { BusLogger } from './logger';
import { MemorySubscription } from './memory-router';
import type { Delivery, MemoryRouter } from './memory-router';
import { errorReplyHeaders, invokeEndpoint, toServiceInfo, toServiceStats } from './services';

/** A service-instance id like the NATS services framework's (22 characters). */
function instanceId(): string {
  return randomBytes(16).toString('base64url').replace(/[-_]/g, 'X').slice(0, 22).toUpperCase();
}

/** Counters of one endpoint, as `$SRV.STATS` reports them. */
interface EndpointCounters {
  num_requests: number;
  num_errors: number;
  processing_time: number;
  last_error?: string;
}

/** One registered service instance on a memory broker. */
export class MemoryService implements RegisteredService {
  readonly id = instanceId();
  readonly info: ServiceInfo;
  private readonly started = new Date().toISOString();
  private readonly counters = new Map<string, EndpointCounters>();
  private readonly subscriptions: MemorySubscription[] = [];
  private readonly inFlight = new InFlight();
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly registration: ServiceRegistration,
    private readonly broker: { router: MemoryRouter; services: Map<string, MemoryService> },
    private readonly drainTimeoutMs: number,
    private readonly logger: BusLogger,
    private readonly onStop: () => void,
  ) {
    const queue = registration.queue ?? registration.name;
    this.info = toServiceInfo({
      name: registration.name,
      id: this.id,
      version: registration.version,
      description: registration.description,
      metadata: { ...registration.metadata },
      endpoints: registration.endpoints.map((e) => ({ name: e.name, subject: e.subject, queue_group: queue })),
    });
    for (const endpoint of registration.endpoints) {
      const counters: EndpointCounters = { num_requests: 0, num_errors: 0, processing_time: 0 };
      this.counters.set(endpoint.name, counters);
      const sub = new MemorySubscription(endpoint.subject, queue, (d) => this.handle(endpoint, counters, d));
      this.subscriptions.push(sub);
      broker.router.add(sub);
    }
    broker.services.set(this.id, this);
  }

  stats(): ServiceStats {
    return toServiceStats({
      name: this.registration.name,
      id: this.id,
      version: this.registration.version,
      started: this.started,
      endpoints: this.registration.endpoints.map((e) => {
        const c = this.counters.get(e.name) ?? { num_requests: 0, num_errors: 0, processing_time: 0 };
        return {
          name: e.name,
          subject: e.subject,
          num_requests: c.num_requests,
          num_errors: c.num_errors,
          processing_time: c.processing_time,
          average_processing_time: c.num_requests > 0 ? Math.round(c.processing_time / c.num_requests) : 0,
          last_error: c.last_error,
        };
      }),
    });
  }

  private handle(endpoint: EndpointDef, counters: EndpointCounters, delivery: Delivery): void {
    const started = process.hrtime.bigint();
    const end = this.inFlight.begin();
    counters.num_requests++;
    let answered = false;
    const finish = (): void => {
      answered = true;
      counters.processing_time += Number(process.hrtime.bigint() - started);
      end();
    };
    const request: IncomingRequest = {
      subject: delivery.subject,
      data: delivery.data,
      headers: delivery.headers,
      respond: (data, headers) => {
        if (answered) return;
        assertValidHeaders(headers);
        finish();
        delivery.reply?.(data, headers);
      },
      respondError: (status, message, data, headers) => {
        if (answered) return;
        assertValidHeaders(headers);
        finish();
        counters.num_errors++;
        counters.last_error = message;
        delivery.reply?.(data, errorReplyHeaders(status, message, headers));
      },
    };
    invokeEndpoint(endpoint, request, this.logger);
  }

  /** Leaves discovery, stops taking requests (queued ones are still handled) and waits for those in flight. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.onStop();
      this.broker.services.delete(this.id);
      for (const sub of this.subscriptions) this.broker.router.remove(sub);
      await Promise.all(this.subscriptions.map((s) => s.drain()));
      if (!(await this.inFlight.idle(this.drainTimeoutMs))) {
        this.logger.warn({ service: this.registration.name, inFlight: this.inFlight.size }, 'service stopped with requests still unanswered');
      }
    })();
    return this.stopping;
  }
}
