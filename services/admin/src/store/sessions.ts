import type { Collection, Filter, Store } from '@nap/store';

/** A session: what a token stands for until it expires or is revoked. */
export interface SessionRecord {
  _id: string;
  [key: string]: unknown;
  accountId: string;
  username: string;
  /** How the session began: `login`, `oauth`. */
  method: string;
  /** The sign-in method (provider name) of an account that comes from one: its sessions are re-checked with it. */
  provenance?: string;
  /** When that method last confirmed the person (epoch ms). */
  checkedAt?: number;
  /** The address the session began from, and the client's user agent, when the gateway said. */
  address?: string;
  userAgent?: string;
  /** What the method confirms the person with (an OIDC refresh token), sealed; never answered. */
  renewal?: string;
  created: string;
  /** Epoch ms. */
  expiresAt: number;
  /** When the session was last resolved (epoch ms): the idle limit counts from here. Absent on sessions from before it was kept. */
  lastUsed?: number;
  revoked: boolean;
}

/** The `sessions` collection. */
export class SessionRepository {
  private readonly sessions: Collection<SessionRecord>;

  constructor(store: Store) {
    this.sessions = store.collection<SessionRecord>('sessions');
  }

  async insert(session: SessionRecord): Promise<void> {
    await this.sessions.insertOne(session);
  }

  find(sid: string): Promise<SessionRecord | null> {
    return this.sessions.findOne({ _id: sid });
  }

  /**
   * Deletes the sessions whose tokens expired before `before` (epoch ms), revoked or not: a token is
   * refused after its `exp` whatever its record says, so nothing needs them, and without this every
   * login (a script fetching a token per run) would stay in the store for ever.
   */
  async deleteExpired(before: number): Promise<void> {
    const expired = { expiresAt: { $lt: before } };
    // a read first (the expiresAt index): most logins find none, and a write would make each wait for a commit more
    if ((await this.sessions.countDocuments(expired, { limit: 1 })) === 0) return;
    await this.sessions.deleteMany(expired);
  }

  /** Records a use of the session (epoch ms): the idle limit counts from it. */
  async touch(sid: string, at: number): Promise<void> {
    await this.sessions.updateOne({ _id: sid }, { $set: { lastUsed: at } });
  }

  /** Records a re-check of the session with its sign-in method (epoch ms). */
  async checked(sid: string, at: number, renewal?: string): Promise<void> {
    await this.sessions.updateOne({ _id: sid }, { $set: { checkedAt: at, ...(renewal !== undefined ? { renewal } : {}) } });
  }

  /** Revokes the session; the session as it was, null when there is none. */
  revoke(sid: string): Promise<SessionRecord | null> {
    return this.sessions.findOneAndUpdate({ _id: sid }, { $set: { revoked: true } });
  }

  /** Revokes every live session of the account, but for the session `keep` when given. */
  async revokeAllOf(accountId: string, keep?: string): Promise<void> {
    await this.sessions.updateMany(
      { accountId, revoked: false, ...(keep === undefined ? {} : { _id: { $ne: keep } }) },
      { $set: { revoked: true } },
    );
  }

  /** The live sessions of the account (revoked ones left out). */
  liveOf(accountId: string): Promise<SessionRecord[]> {
    return this.sessions.find({ accountId, revoked: false });
  }

  /** Sessions that would still be accepted at `now`: not revoked, not expired, used within the idle limit. */
  countActive(now: number, idleMinutes: number | undefined): Promise<number> {
    return this.sessions.countDocuments(activeFilter(now, idleMinutes));
  }

  /** Accounts with at least one session that would still be accepted at `now`. */
  async countActiveAccounts(now: number, idleMinutes: number | undefined): Promise<number> {
    const active = await this.sessions.find(activeFilter(now, idleMinutes), { projection: { accountId: 1 } });
    return new Set(active.map((s) => s.accountId)).size;
  }
}

function activeFilter(now: number, idleMinutes: number | undefined): Filter {
  return {
    revoked: false,
    expiresAt: { $gt: now },
    ...(idleMinutes !== undefined ? { lastUsed: { $gte: now - idleMinutes * 60_000 } } : {}),
  };
}
