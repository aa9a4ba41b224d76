import { AppError, hasCode } from '@nap/contracts';
import type { LogLevel, ServiceName } from '@nap/contracts';
import type { Collection, Store } from '@nap/store';

/** What an operator set for one service: its applications' desired state, stored in the `applications` collection. */
export interface ServiceStateRecord {
  _id: ServiceName;
  [key: string]: unknown;
  /** Stopped by an operator: every replica, new ones too, stays paused until started. */
  stopped: boolean;
  /** The log level an operator set for the service (none: the profile's, else the process's own). */
  logLevel?: LogLevel;
  loggerProps: Record<string, unknown>;
  /** Live settings an operator set (the service's schema); members left out keep the process's start values. */
  properties: Record<string, unknown>;
  /** Descriptions operators gave the service's applications. */
  descriptions: Record<string, string>;
  revision: number;
  changelog: { version: string; date: string; changes: string }[];
  lastUpdated: string;
  lastUpdatedBy: string;
}

/** The `applications` collection: one record per service, keyed by service name. */
export class ApplicationStateRepository {
  private readonly states: Collection<ServiceStateRecord>;

  constructor(store: Store) {
    this.states = store.collection<ServiceStateRecord>('applications');
  }

  /** Stores a record for each service that has none (replicas starting together race safely on the key). */
  async ensure(services: readonly ServiceName[], now: string): Promise<void> {
    for (const service of services) {
      try {
        await this.states.insertOne({ ...untouched(service), lastUpdated: now, lastUpdatedBy: 'system' });
      } catch (err) {
        if (!hasCode(err, 'STORE_DUPLICATE_KEY')) throw err;
      }
    }
  }

  /** The record of the service; nothing set (running, no settings) when there is none yet. */
  async get(service: ServiceName): Promise<ServiceStateRecord> {
    return (await this.states.findOne({ _id: service })) ?? untouched(service);
  }

  async all(): Promise<Map<ServiceName, ServiceStateRecord>> {
    const records = await this.states.find({});
    return new Map(records.map((r) => [r._id, r]));
  }

  /** Sets members of the service's record, counts a revision and notes it in the changelog; the record after. */
  async change(service: ServiceName, set: Record<string, unknown>, changes: string, by: string): Promise<ServiceStateRecord> {
    const now = new Date().toISOString();
    const record = await this.states.findOneAndUpdate(
      { _id: service },
      { $set: { ...set, lastUpdated: now, lastUpdatedBy: by }, $inc: { revision: 1 } },
      { returnDocument: 'after' },
    );
    if (record === null) throw new AppError('INTERNAL', `The record of service ${service} is missing`);
    await this.states.updateOne({ _id: service }, { $push: { changelog: { version: String(record.revision), date: now, changes } } });
    return record;
  }
}

function untouched(service: ServiceName): ServiceStateRecord {
  return {
    _id: service,
    stopped: false,
    loggerProps: {},
    properties: {},
    descriptions: {},
    revision: 0,
    changelog: [],
    lastUpdated: '',
    lastUpdatedBy: '',
  };
}
