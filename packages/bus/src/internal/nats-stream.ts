import { AppError } from '@nap/contracts';
import { errorMessage } from '@nap/util';
import { nanos } from '@nats-io/nats-core';
import type { NatsConnection } from '@nats-io/nats-core';
import { DiscardPolicy, JetStreamApiCodes, JetStreamApiError, RetentionPolicy, StorageType, jetstreamManager } from '@nats-io/jetstream';
import type { JetStreamManager, StreamConfig, StreamInfo } from '@nats-io/jetstream';
import { EVENT_STREAM } from '../types';
import { EVENT_SUBJECTS, resolveStreamLimits } from './events';
import type { EventStreamLimits } from './events';
import type { BusLogger } from './logger';

/** The JetStream stream that keeps events, as `createNatsBus` ensures it. */
export interface NatsEventStreamOptions extends EventStreamLimits {
  /** Defaults to `file`. */
  storage?: 'file' | 'memory';
  /** Stream replicas in a NATS cluster. Defaults to 1. */
  replicas?: number;
}

/**
 * The JetStream stream `NAP_EVENTS` on `nap.evt.>`: created, or brought to the configured subjects
 * and limits, and the JetStream manager the event consumers share.
 */
export class NatsEventStream {
  private jsm: JetStreamManager | undefined;
  private readonly options: Required<NatsEventStreamOptions>;

  constructor(
    private readonly nc: NatsConnection,
    options: NatsEventStreamOptions | undefined,
    private readonly logger: BusLogger,
  ) {
    this.options = { ...resolveStreamLimits(options), storage: options?.storage ?? 'file', replicas: options?.replicas ?? 1 };
  }

  /**
   * Creates the stream or brings its subjects and limits to the configured ones.
   *
   * Errors: `SERVICE_UNAVAILABLE` when JetStream is not enabled or does not answer.
   */
  async ensure(): Promise<void> {
    const { maxAgeMs, maxBytes, storage, replicas } = this.options;
    const wanted: Partial<StreamConfig> & { name: string } = {
      name: EVENT_STREAM,
      subjects: [EVENT_SUBJECTS],
      retention: RetentionPolicy.Limits,
      storage: storage === 'memory' ? StorageType.Memory : StorageType.File,
      discard: DiscardPolicy.Old,
      max_age: nanos(maxAgeMs),
      max_bytes: maxBytes,
      num_replicas: replicas,
    };
    try {
      const jsm = await this.manager();
      // replicas starting together race to create it: whoever loses finds it on the next round
      for (let attempt = 1; ; attempt++) {
        let info: StreamInfo | undefined;
        try {
          info = await jsm.streams.info(EVENT_STREAM);
        } catch (err) {
          if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
        }
        try {
          if (info === undefined) {
            await jsm.streams.add(wanted);
          } else {
            await this.align(jsm, info, wanted);
          }
          return;
        } catch (err) {
          if (attempt >= 3) throw err;
        }
      }
    } catch (err) {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        `Cannot ensure the JetStream stream ${EVENT_STREAM} (is JetStream enabled? start nats-server with -js): ${errorMessage(err)}`,
        { cause: err },
      );
    }
  }

  /** The JetStream manager, made at first use. */
  async manager(): Promise<JetStreamManager> {
    this.jsm ??= await jetstreamManager(this.nc);
    return this.jsm;
  }

  /** Brings an existing stream's subjects and limits to the configured ones. */
  private async align(jsm: JetStreamManager, info: StreamInfo, wanted: Partial<StreamConfig>): Promise<void> {
    const c = info.config;
    if (c.max_age !== wanted.max_age || c.max_bytes !== wanted.max_bytes || c.subjects.length !== 1 || c.subjects[0] !== EVENT_SUBJECTS) {
      await jsm.streams.update(EVENT_STREAM, { ...c, subjects: [EVENT_SUBJECTS], max_age: wanted.max_age, max_bytes: wanted.max_bytes });
    }
    if (c.storage !== wanted.storage) {
      this.logger.warn(
        { stream: EVENT_STREAM, storage: c.storage },
        'event stream storage differs from the configured one and cannot be changed',
      );
    }
  }
}
