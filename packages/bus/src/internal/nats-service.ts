import type { NatsConnection } from '@nats-io/nats-core';
import type { Service, ServiceMsg, Svcm } from '@nats-io/services';
import type { EndpointDef, IncomingRequest, RegisteredService, ServiceInfo, ServiceInstanceState, ServiceRegistration } from '../types';
import { closedError } from './errors';
import { endpointCounters } from './framework-stats';
import type { EndpointCounters } from './framework-stats';
import { copyBytes, toHeaderValue } from './headers';
import { InFlight } from './in-flight';
import type { BusLogger } from './logger';
import { fromNatsHeaders, toNatsHeaders } from './nats-convert';
import { assertValidRegistration, invokeEndpoint, registrationMetadata, toServiceInfo } from './services';
import { SerialTransitions } from './transitions';

/**
 * The service instances one bus registered with the NATS services framework: registration (all
 * endpoints, or none while paused), the handling of each request (answer once, counters, requests
 * in flight) and the stop of every instance when the bus closes.
 */
export class NatsServices {
  private readonly services = new Set<NatsRegisteredService>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly svcm: Svcm,
    private readonly drainTimeoutMs: number,
    private readonly logger: BusLogger,
    private readonly isClosing: () => boolean,
  ) {}

  async add(registration: ServiceRegistration): Promise<RegisteredService> {
    assertValidRegistration(registration);
    if (this.isClosing()) throw closedError(`add service "${registration.name}"`);
    const inFlight = new InFlight();
    const paused = registration.paused === true;
    let generation = 0;
    const service = await this.register(registration, inFlight, paused, ++generation);
    const registered: NatsRegisteredService = new NatsRegisteredService(
      service,
      paused,
      (paused) => this.register(registration, inFlight, paused, ++generation),
      inFlight,
      this.drainTimeoutMs,
      this.logger,
      () => this.services.delete(registered),
    );
    this.services.add(registered);
    return registered;
  }

  /** Stops every instance: each drains its endpoints and waits for its requests in flight. */
  async stopAll(): Promise<void> {
    await Promise.allSettled([...this.services].map((s) => s.stop()));
  }

  /**
   * One registration with the services framework: every endpoint, or (paused) none and metadata
   * `paused: 'true'`, so that the instance answers discovery but takes no requests.
   */
  private async register(registration: ServiceRegistration, inFlight: InFlight, paused: boolean, generation: number): Promise<Service> {
    let service: Service | undefined;
    try {
      service = await this.svcm.add({
        name: registration.name,
        version: registration.version,
        description: registration.description,
        metadata: registrationMetadata(registration, paused, generation),
        queue: registration.queue ?? registration.name,
      });
      const svc = service;
      for (const endpoint of paused ? [] : registration.endpoints) {
        let counters: EndpointCounters | undefined;
        svc.addEndpoint(endpoint.name, {
          subject: endpoint.subject,
          metadata: endpoint.metadata,
          handler: (err, msg) => {
            if (err) {
              this.logger.error({ err, endpoint: endpoint.subject }, 'service endpoint failed');
              return;
            }
            counters ??= endpointCounters(svc, endpoint.name);
            this.handle(endpoint, msg, counters, inFlight);
          },
        });
      }
      // the endpoints are subscribed at the server before the caller sends the first request
      await this.nc.flush();
    } catch (err) {
      await service?.stop().catch(() => undefined);
      throw closedError(`add service "${registration.name}"`, err);
    }
    return service;
  }

  /** One request to an endpoint: answered once, its time and errors added to the framework's counters. */
  private handle(endpoint: EndpointDef, msg: ServiceMsg, counters: EndpointCounters, inFlight: InFlight): void {
    const started = process.hrtime.bigint();
    const end = inFlight.begin();
    let answered = false;
    const finish = (): void => {
      answered = true;
      counters.addProcessingNanos(Number(process.hrtime.bigint() - started));
      end();
    };
    const request: IncomingRequest = {
      subject: msg.subject,
      data: msg.data,
      headers: fromNatsHeaders(msg.headers),
      respond: (data, headers) => {
        if (answered) return;
        const h = toNatsHeaders(headers);
        finish();
        try {
          msg.respond(copyBytes(data), { headers: h });
        } catch (err) {
          this.logger.warn({ err, subject: msg.subject }, 'cannot send reply');
        }
      },
      respondError: (status, message, data, headers) => {
        if (answered) return;
        const h = toNatsHeaders(headers);
        finish();
        counters.countError(status, message);
        try {
          msg.respondError(status, toHeaderValue(message), copyBytes(data), { headers: h });
        } catch (err) {
          this.logger.warn({ err, subject: msg.subject }, 'cannot send error reply');
        }
      },
    };
    invokeEndpoint(endpoint, request, this.logger);
  }
}

/**
 * One registered service instance on NATS. Pausing and resuming register anew with the services
 * framework (its endpoints are required subscriptions: draining one ends the registration), the
 * new registration first, so that the instance never drops out of discovery.
 */
class NatsRegisteredService implements RegisteredService {
  private readonly transitions = new SerialTransitions();
  private stopping: Promise<void> | undefined;

  constructor(
    private service: Service,
    private paused: boolean,
    private readonly register: (paused: boolean) => Promise<Service>,
    private readonly inFlight: InFlight,
    private readonly drainTimeoutMs: number,
    private readonly logger: BusLogger,
    private readonly onStop: () => void,
  ) {}

  get id(): string {
    return this.service.info().id;
  }

  get info(): ServiceInfo {
    return toServiceInfo(this.service.info());
  }

  get state(): ServiceInstanceState {
    return this.paused ? 'paused' : 'running';
  }

  private async drained(): Promise<void> {
    if (!(await this.inFlight.idle(this.drainTimeoutMs))) {
      this.logger.warn(
        { service: this.service.info().name, inFlight: this.inFlight.size },
        'service instance drained with requests still unanswered',
      );
    }
  }

  pause(): Promise<void> {
    return this.transitions.run(async () => {
      if (this.paused || this.stopping !== undefined) return;
      const running = this.service;
      this.service = await this.register(true);
      this.paused = true;
      // drains the endpoint subscriptions: requests already received are handled
      await running.stop();
      await this.drained();
    });
  }

  resume(): Promise<void> {
    return this.transitions.run(async () => {
      if (!this.paused || this.stopping !== undefined) return;
      const paused = this.service;
      this.service = await this.register(false);
      this.paused = false;
      await paused.stop();
    });
  }

  /** Stops taking requests (drains the endpoints) and waits up to `drainTimeoutMs` for its requests in flight. */
  stop(): Promise<void> {
    this.stopping ??= this.transitions.run(async () => {
      this.onStop();
      await this.service.stop();
      await this.drained();
    });
    return this.stopping;
  }
}
