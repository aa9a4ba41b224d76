import type { Collection, Store } from '@nap/store';

/** One replica's worker heartbeat: what its workers apply and how many jobs it drives. */
export type ReplicaRecord = {
  _id: string;
  jobWorker: boolean;
  taskWorker: boolean;
  jobs: number;
  lastSeen: number;
};

/** The `engine_replicas` collection: one heartbeat per engine replica, for the workers' status. */
export class ReplicaRepository {
  private readonly replicas: Collection<ReplicaRecord>;

  constructor(store: Store) {
    this.replicas = store.collection<ReplicaRecord>('engine_replicas');
  }

  /** Writes the heartbeat of replica `serverId`. */
  async beat(serverId: string, beat: Omit<ReplicaRecord, '_id'>): Promise<void> {
    await this.replicas.replaceOne({ _id: serverId }, beat, { upsert: true });
  }

  /** Removes the heartbeat of a replica that stops; a failure leaves it to age out. */
  async remove(serverId: string): Promise<void> {
    await this.replicas.deleteOne({ _id: serverId }).catch(() => undefined);
  }

  /** The replicas that beat since `since` (epoch ms), by server id. */
  seenSince(since: number): Promise<ReplicaRecord[]> {
    return this.replicas.find({ lastSeen: { $gte: since } }, { sort: { _id: 1 } });
  }
}
