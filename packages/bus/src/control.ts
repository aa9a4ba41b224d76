import os from 'node:os';
import {
  AppError,
  controlCommandSchema,
  controlReplySchema,
  controlSubject,
  desiredStateSubject,
  hasCode,
  isAppError,
  parseAs,
} from '@nap/contracts';
import type {
  ControlCommand,
  ControlReply,
  IndexCreation,
  IndexSpecDoc,
  IndexStatus,
  InstanceStatus,
  LogLevel,
  ServiceName,
  TSchema,
} from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import { errorMessage } from '@nap/util';
import { decodeJson, encodeJson } from './codec';
import type { Bus, RegisteredService, Subscription } from './types';

/**
 * The settings a service lets operators change while it runs (`PUT /applications/:name/properties`).
 * The service's schema (from `@nap/contracts`) validates them; `apply` makes them take effect.
 */
export interface LiveSettings {
  /** JSON Schema of the settings. */
  schema: TSchema;
  /** The values in force when the process started: members an operator leaves out go back to these. */
  defaults: Record<string, unknown>;
  /** Makes the settings take effect (the defaults with the operator's values laid over them), already validated. */
  apply(values: Record<string, unknown>): void | Promise<void>;
}

/** The indexes a service declares for its collections, and what its store has. */
export interface IndexAdministration {
  /** The declared indexes, by collection. */
  declared(): { collection: string; indexes: IndexSpecDoc[] }[];
  /** The declared indexes of a collection compared with the store's; `INDEX_COLLECTION_NOT_FOUND` for a collection not declared. */
  status(collection: string): Promise<Omit<IndexStatus, 'service'>>;
  /** Creates what is missing (and re-creates what is misnamed) under the declared names. */
  create(collection: string): Promise<Omit<IndexCreation, 'service'>>;
}

/** What `serve` controls on behalf of the admin service, besides the registration itself. */
export interface ControlOptions {
  bus: Bus;
  service: ServiceName;
  logger: Logger;
  settings?: LiveSettings;
  indexes?: IndexAdministration;
}

/** pino's name of a platform log level: the original platform's `spam` is pino's `trace`. */
export function pinoLevel(level: LogLevel): string {
  return level === 'spam' ? 'trace' : level;
}

/**
 * The control channel of one replica, `nap.sys.control.<instance>` (a plain subscription: it answers
 * whether the replica takes requests or not). Commands: `status`, `configure` (pause or resume, log
 * level, live settings, with the revision of the configuration they belong to), and the index
 * commands. Answers `{ ok: true, result }` or `{ ok: false, error: { code, message, details } }`.
 */
export class ReplicaControl {
  private readonly started = new Date().toISOString();
  private logLevel: string;
  /** The level the process started with: where `logLevel: null` goes back to. */
  private readonly startLevel: string;
  private settings: Record<string, unknown>;
  private revision = 0;
  private subscription: Subscription | undefined;

  constructor(
    readonly instance: string,
    private readonly options: ControlOptions,
    private readonly registered: () => RegisteredService,
  ) {
    this.logLevel = options.logger.level;
    this.startLevel = options.logger.level;
    this.settings = { ...(options.settings?.defaults ?? {}) };
  }

  listen(): void {
    this.subscription = this.options.bus.subscribe(controlSubject(this.instance), (msg) => {
      void this.answer(msg.data).then((reply) => msg.reply?.(encodeJson(reply)));
    });
  }

  /**
   * Before the replica registers: asks the admin service what its service should be, and takes the
   * log level and live settings at once. Answers whether to register paused (its application is
   * stopped), so that a replica starting while its application is stopped never takes a request.
   * With no admin service answering (it is starting too, or down) the replica starts as configured;
   * the admin service's reconciliation brings it in line later.
   */
  async prepare(timeoutMs = 1_000): Promise<boolean> {
    try {
      const reply = await this.options.bus.request(desiredStateSubject(), encodeJson({ service: this.options.service }), { timeoutMs });
      const answer = parseAs(controlReplySchema, decodeJson(reply.data), 'desired state');
      if (!answer.ok) return false;
      const command = parseAs(controlCommandSchema, answer.result, 'desired state');
      if (command.command !== 'configure') return false;
      await this.apply(command);
      return command.paused === true;
    } catch (err) {
      if (!hasCode(err, 'SERVICE_UNAVAILABLE'))
        this.options.logger.warn({ err }, 'Could not learn the desired state of the service before starting; starting as configured');
      return false;
    }
  }

  async close(): Promise<void> {
    await this.subscription?.unsubscribe();
  }

  status(): InstanceStatus {
    return {
      instance: this.instance,
      service: this.options.service,
      state: this.registered().state,
      logLevel: this.logLevel,
      settings: { ...this.settings },
      revision: this.revision,
      pid: process.pid,
      hostname: os.hostname(),
      started: this.started,
    };
  }

  private async answer(data: Uint8Array): Promise<ControlReply> {
    try {
      const command = parseAs(controlCommandSchema, decodeJson(data), 'command');
      return { ok: true, result: await this.run(command) };
    } catch (err) {
      const error = isAppError(err) ? err : new AppError('INTERNAL', `The control command failed: ${errorMessage(err)}`);
      if (!isAppError(err)) this.options.logger.error({ err }, 'control command failed');
      return { ok: false, error: { code: error.code, message: error.message, details: error.details } };
    }
  }

  private async run(command: ControlCommand): Promise<unknown> {
    switch (command.command) {
      case 'status':
        return this.status();
      case 'configure':
        return this.configure(command);
      case 'indexes':
        // a service without a store (orch-proxy) declares none
        return this.options.indexes?.declared() ?? [];
      case 'indexStatus':
        return { ...(await this.indexAdministration().status(command.collection)), service: this.options.service };
      case 'createIndexes':
        return { ...(await this.indexAdministration().create(command.collection)), service: this.options.service };
    }
  }

  /** Settings first (they may be refused, and then nothing changes), then the log level, then intake. */
  private async configure(command: Extract<ControlCommand, { command: 'configure' }>): Promise<InstanceStatus> {
    await this.apply(command);
    if (command.paused === true) await this.registered().pause();
    else if (command.paused === false) await this.registered().resume();
    return this.status();
  }

  /** The live settings and log level of a `configure` command (not its intake). */
  private async apply(command: Extract<ControlCommand, { command: 'configure' }>): Promise<void> {
    if (command.settings !== undefined) {
      const live = this.options.settings;
      const schema = live?.schema;
      if (live === undefined || schema === undefined) {
        const names = Object.keys(command.settings);
        if (names.length > 0)
          throw new AppError(
            'VALIDATION_FAILED',
            `${this.options.service} has no live settings: ${names.join(', ')} cannot change while it runs`,
            { details: names.map((n) => ({ member: `properties.${n}`, message: 'is not a live setting' })) },
          );
      } else {
        const parsed: unknown = parseAs(schema, command.settings, 'properties');
        const values = { ...live.defaults, ...(typeof parsed === 'object' && parsed !== null ? parsed : {}) };
        await live.apply(values);
        this.settings = values;
      }
    }
    if (command.logLevel === null) {
      this.options.logger.level = this.startLevel;
      this.logLevel = this.startLevel;
    } else if (command.logLevel !== undefined) {
      this.options.logger.level = pinoLevel(command.logLevel);
      this.logLevel = command.logLevel;
    }
    this.revision = Math.max(this.revision, command.revision);
  }

  private indexAdministration(): IndexAdministration {
    if (this.options.indexes === undefined) throw new AppError('INDEX_COLLECTION_NOT_FOUND', `${this.options.service} declares no indexes`);
    return this.options.indexes;
  }
}
