import type { Collection, Store } from '@nap/store';

/** The token signing key as stored: the private half only sealed. */
export interface KeyRecord {
  _id: string;
  [key: string]: unknown;
  kid: string;
  publicKeyPem: string;
  /** PKCS#8 PEM sealed with the secret box; never stored in clear. */
  privateKeySealed: string;
  created: string;
}

/** The one signing key of the platform: every admin replica signs with it. */
const SIGNING_KEY_ID = 'signing';

/** The `keys` collection. */
export class SigningKeyRepository {
  private readonly keys: Collection<KeyRecord>;

  constructor(store: Store) {
    this.keys = store.collection<KeyRecord>('keys');
  }

  find(): Promise<KeyRecord | null> {
    return this.keys.findOne({ _id: SIGNING_KEY_ID });
  }

  /** Stores `candidate` unless a key is stored already (replicas race safely on the one document); the key stored. */
  async keep(candidate: Omit<KeyRecord, '_id'>): Promise<KeyRecord | null> {
    await this.keys.updateOne({ _id: SIGNING_KEY_ID }, { $setOnInsert: candidate }, { upsert: true });
    return this.find();
  }
}
