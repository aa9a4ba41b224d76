import type { WorkerKind } from '@nap/contracts';
import type { Collection, Store } from '@nap/store';

/** The platform-wide worker switches, one document. */
export type WorkerSettings = {
  _id: string;
  jobWorker: boolean;
  taskWorker: boolean;
  lastUpdated?: string;
  lastUpdatedBy?: string;
};

const SETTINGS_ID = 'workers';

/**
 * The `engine_settings` collection: one document holding the platform-wide job and task worker
 * switches, so that a replica that starts later follows them too.
 */
export class WorkerSettingsRepository {
  private readonly settings: Collection<WorkerSettings>;

  constructor(store: Store) {
    this.settings = store.collection<WorkerSettings>('engine_settings');
  }

  /** The switches as stored; both on while nobody ever switched one. */
  async current(): Promise<Pick<WorkerSettings, 'jobWorker' | 'taskWorker'>> {
    return (await this.settings.findOne({ _id: SETTINGS_ID })) ?? { _id: SETTINGS_ID, jobWorker: true, taskWorker: true };
  }

  /** Switches one worker; a document written for the first time holds the other one on. */
  async set(kind: WorkerKind, active: boolean, by: string, at: string): Promise<void> {
    await this.settings.updateOne({ _id: SETTINGS_ID }, { $set: { [kind]: active, lastUpdated: at, lastUpdatedBy: by } }, { upsert: true });
    const other: WorkerKind = kind === 'jobWorker' ? 'taskWorker' : 'jobWorker';
    await this.settings.updateOne({ _id: SETTINGS_ID, [other]: { $exists: false } }, { $set: { [other]: true } });
  }
}
