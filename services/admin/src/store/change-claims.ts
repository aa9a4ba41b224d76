import { hasCode } from '@nap/contracts';
import type { Collection, Store } from '@nap/store';

/**
 * What a claim serialises: `administrators` every change that can take the admin role from an
 * account (groups of accounts, roles and deletion of groups, deactivating and deleting accounts);
 * `integration-models` creating and changing integrations against deleting and replacing models.
 */
export type ChangeClaimName = 'administrators' | 'integration-models' | 'custom-roles';

/** A claim as stored (`change_claims`, `_id` its name): who holds it, and until when (epoch ms). */
export interface ChangeClaimRecord {
  _id: ChangeClaimName;
  [key: string]: unknown;
  heldBy: string;
  heldUntil: number;
}

/**
 * The `change_claims` collection: one document per {@link ChangeClaimName}, shared by every replica
 * of the admin service. A holder takes it with a compare-and-set (free, or its lease run out) and
 * lets go of it when its change is written; nothing else writes these documents.
 */
export class ChangeClaimRepository {
  private readonly claims: Collection<ChangeClaimRecord>;

  constructor(store: Store) {
    this.claims = store.collection<ChangeClaimRecord>('change_claims');
  }

  /** Takes claim `name` for `owner` until `until` (epoch ms) when no one holds it at `now`; false when someone does. */
  async take(name: ChangeClaimName, owner: string, now: number, until: number): Promise<boolean> {
    try {
      const taken = await this.claims.findOneAndUpdate(
        { _id: name, heldUntil: { $lt: now } },
        { $set: { heldBy: owner, heldUntil: until } },
        { upsert: true, returnDocument: 'after' },
      );
      return taken?.heldBy === owner;
    } catch (err) {
      // the upsert of a claim someone holds collides with its document
      if (hasCode(err, 'STORE_DUPLICATE_KEY')) return false;
      throw err;
    }
  }

  /** Holds claim `name` until `until` when `owner` still holds it at `now`; false when it ran out (or another took it). */
  async renew(name: ChangeClaimName, owner: string, now: number, until: number): Promise<boolean> {
    const renewed = await this.claims.updateOne({ _id: name, heldBy: owner, heldUntil: { $gte: now } }, { $set: { heldUntil: until } });
    return renewed.matchedCount === 1;
  }

  /** Lets go of claim `name` when `owner` holds it. */
  async release(name: ChangeClaimName, owner: string): Promise<void> {
    await this.claims.updateOne({ _id: name, heldBy: owner }, { $set: { heldUntil: 0 } });
  }
}
