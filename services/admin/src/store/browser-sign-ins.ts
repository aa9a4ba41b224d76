import { hasCode } from '@nap/contracts';
import type { Collection, Store } from '@nap/store';

/** A browser sign-in under way: kept from `GET /sso/login` until its callback takes it, once. */
export interface BrowserSignInRecord {
  [key: string]: unknown;
  /** The state (OIDC `state`, SAML `RelayState`): random, handed to the identity provider and bound to the browser by the `nap_sso` cookie. */
  _id: string;
  /** The provider that began it. */
  provider: string;
  /** What the method keeps until the callback (PKCE verifier, nonce, request id), sealed with `NAP_SECRET_KEY`. */
  pending: string;
  /** Where the browser goes once signed in: a path of this platform. */
  returnTo: string;
  /** Epoch ms after which it is no longer taken. */
  expiresAt: number;
}

/** An assertion (or response) id seen at a SAML assertion consumer, kept until the assertion expires. */
interface SeenAssertionRecord {
  [key: string]: unknown;
  /** `<provider> <id>`. */
  _id: string;
  /** Epoch ms. */
  expiresAt: number;
}

/**
 * The `browser_sign_ins` and `seen_assertions` collections. Both live in the admin store, not in a
 * replica's memory, so that a callback reaching another replica than the one that began the sign-in
 * finds it, and a replay reaching another replica is refused there too.
 */
export class BrowserSignInRepository {
  private readonly pending: Collection<BrowserSignInRecord>;
  private readonly seen: Collection<SeenAssertionRecord>;

  constructor(store: Store) {
    this.pending = store.collection<BrowserSignInRecord>('browser_sign_ins');
    this.seen = store.collection<SeenAssertionRecord>('seen_assertions');
  }

  /** Keeps a sign-in under way; those expired before `now` (epoch ms) go at the same time. */
  async begin(record: BrowserSignInRecord, now: number): Promise<void> {
    await this.pending.deleteMany({ expiresAt: { $lt: now } });
    await this.pending.insertOne(record);
  }

  /**
   * Takes the sign-in of `state`: deleted as it is read, so that it is taken once whichever replica
   * asks. Null when there is none (never begun, taken already) or it expired before `now`.
   */
  async take(state: string, now: number): Promise<BrowserSignInRecord | null> {
    const record = await this.pending.findOneAndDelete({ _id: state });
    return record !== null && record.expiresAt > now ? record : null;
  }

  /**
   * Records the first use of an assertion id of `provider` until `expiresAt` (epoch ms): true the
   * first time, false when it was seen before (a replay). Ids expired before `now` go at the same time.
   */
  async firstUse(provider: string, id: string, expiresAt: number, now: number): Promise<boolean> {
    await this.seen.deleteMany({ expiresAt: { $lt: now } });
    try {
      await this.seen.insertOne({ _id: `${provider} ${id}`, expiresAt });
      return true;
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY')) return false;
      throw err;
    }
  }
}
