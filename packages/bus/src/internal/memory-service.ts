import { randomBytes } from 'node:crypto';
import type {
  EndpointDef,
  IncomingRequest,
  RegisteredService,
  ServiceInfo,
  ServiceInstanceState,
  ServiceRegistration,
  ServiceStats,
} from '../types';
import { assertValidHeaders } from './headers';
import { InFlight } from './in-flight';
import type { BusLogger } from './logger';
import { MemorySubscription } from './memory-router';
import type { Delivery, MemoryRouter } from './memory-router';
import { SerialTransitions } from './transitions';
import { errorReplyHeaders, invokeEndpoint, registrationMetadata, toServiceInfo, toServiceStats } from './services';

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

/** One registration of the instance on the broker: what discovery sees, as the services framework registers it. */
interface Registration {
  id: string;
  info: ServiceInfo;
  started: string;
  endpoints: EndpointDef[];
  counters: Map<string, EndpointCounters>;
  subscriptions: MemorySubscription[];
}

type Broker = { router: MemoryRouter; services: Map<string, MemoryService> };

/**
 * One registered service instance on a memory broker. Pausing and resuming register anew (a new
 * id, fresh stats), as the NATS services framework does, so both buses show the same discovery.
 */
export class MemoryService implements RegisteredService {
  private current: Registration;
  private paused = false;
  private generation = 0;
  private readonly inFlight = new InFlight();
  private readonly transitions = new SerialTransitions();
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly registration: ServiceRegistration,
    private readonly broker: Broker,
    private readonly drainTimeoutMs: number,
    private readonly logger: BusLogger,
    private readonly onStop: () => void,
  ) {
    this.paused = registration.paused === true;
    this.current = this.register(this.paused);
  }

  get id(): string {
    return this.current.id;
  }

  get info(): ServiceInfo {
    return this.current.info;
  }

  get state(): ServiceInstanceState {
    return this.paused ? 'paused' : 'running';
  }

  private register(paused: boolean): Registration {
    const { registration } = this;
    const queue = registration.queue ?? registration.name;
    const endpoints = paused ? [] : registration.endpoints;
    const id = instanceId();
    const reg: Registration = {
      id,
      info: toServiceInfo({
        name: registration.name,
        id,
        version: registration.version,
        description: registration.description,
        metadata: registrationMetadata(registration, paused, ++this.generation),
        endpoints: endpoints.map((e) => ({ name: e.name, subject: e.subject, queue_group: queue })),
      }),
      started: new Date().toISOString(),
      endpoints,
      counters: new Map(),
      subscriptions: [],
    };
    for (const endpoint of endpoints) {
      const counters: EndpointCounters = { num_requests: 0, num_errors: 0, processing_time: 0 };
      reg.counters.set(endpoint.name, counters);
      const sub = new MemorySubscription(endpoint.subject, queue, (d) => this.handle(endpoint, counters, d));
      reg.subscriptions.push(sub);
      this.broker.router.add(sub);
    }
    this.broker.services.set(id, this);
    return reg;
  }

  /** Leaves discovery and the queue group; resolves once queued deliveries are dispatched. */
  private async unregister(reg: Registration): Promise<void> {
    this.broker.services.delete(reg.id);
    for (const sub of reg.subscriptions) this.broker.router.remove(sub);
    await Promise.all(reg.subscriptions.map((s) => s.drain()));
  }

  stats(): ServiceStats {
    const reg = this.current;
    return toServiceStats({
      name: this.registration.name,
      id: reg.id,
      version: this.registration.version,
      started: reg.started,
      endpoints: reg.endpoints.map((e) => {
        const c = reg.counters.get(e.name) ?? { num_requests: 0, num_errors: 0, processing_time: 0 };
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

  private async drained(): Promise<void> {
    if (!(await this.inFlight.idle(this.drainTimeoutMs))) {
      this.logger.warn(
        { service: this.registration.name, inFlight: this.inFlight.size },
        'service instance drained with requests still unanswered',
      );
    }
  }

  pause(): Promise<void> {
    return this.transitions.run(async () => {
      if (this.paused || this.stopping !== undefined) return;
      const running = this.current;
      // the paused registration shows first, so the instance never drops out of discovery
      this.current = this.register(true);
      this.paused = true;
      await this.unregister(running);
      await this.drained();
    });
  }

  resume(): Promise<void> {
    return this.transitions.run(async () => {
      if (!this.paused || this.stopping !== undefined) return;
      const paused = this.current;
      this.current = this.register(false);
      this.paused = false;
      await this.unregister(paused);
    });
  }

  /** Leaves discovery, stops taking requests (queued ones are still handled) and waits for those in flight. */
  stop(): Promise<void> {
    this.stopping ??= this.transitions.run(async () => {
      this.onStop();
      await this.unregister(this.current);
      await this.drained();
    });
    return this.stopping;
  }
}
