import { hasCode } from '@nap/contracts';
import type { Collection, Store } from '@nap/store';

/** The one document that names the active profile: switching is one write of it, so exactly one profile is active at any time. */
export interface ActiveProfileRecord {
  _id: 'active';
  [key: string]: unknown;
  id: string;
  switched: string;
  by: string;
}

/** The `profile_state` collection: the pointer to the active profile. */
export class ActiveProfileRepository {
  private readonly state: Collection<ActiveProfileRecord>;

  constructor(store: Store) {
    this.state = store.collection<ActiveProfileRecord>('profile_state');
  }

  async activeId(): Promise<string | undefined> {
    return (await this.state.findOne({ _id: 'active' }))?.id;
  }

  /** Makes `id` active unless a profile is active already (the first start). */
  async initialize(id: string, at: string): Promise<void> {
    try {
      await this.state.insertOne({ _id: 'active', id, switched: at, by: 'system' });
    } catch (err) {
      if (!hasCode(err, 'STORE_DUPLICATE_KEY')) throw err;
    }
  }

  /** Makes `id` active in one write; the pointer as it was. */
  switchTo(id: string, by: string): Promise<ActiveProfileRecord | null> {
    return this.state.findOneAndUpdate(
      { _id: 'active' },
      { $set: { id, switched: new Date().toISOString(), by } },
      { returnDocument: 'before', upsert: true },
    );
  }

  /** Puts back the pointer `switchTo` answered, unless another switch replaced `id` meanwhile. */
  async restore(id: string, previous: ActiveProfileRecord): Promise<void> {
    await this.state.updateOne({ _id: 'active', id }, { $set: { id: previous.id, switched: previous.switched, by: previous.by } });
  }
}
