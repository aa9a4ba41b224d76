import { randomUUID } from 'node:crypto';
import { AppError } from '@nap/contracts';
import type { ChangeClaimName, ChangeClaimRepository } from '../store/change-claims';

/** Timing of {@link SerializedChanges}; every member has a default. */
export interface SerializedChangesOptions {
  /**
   * How long a claim holds without being renewed, ms (15000 by default): the longest a replica that
   * died holding it keeps others waiting. Far longer than a change takes (a few store calls) and than
   * the clocks of two replicas differ.
   */
  leaseMs?: number;
  /** How often a change waiting for a claim another replica holds asks again, ms (25 by default). */
  pollMs?: number;
  /** The clock of the leases, epoch ms; `Date.now` by default (tests move it rather than wait). */
  now?: () => number;
}

/** What a change holding a claim is handed. */
export interface HeldClaim {
  /**
   * Call just before the write the checks allowed: renews the lease and makes sure it still holds, so
   * that the write never lands after another replica took the claim. Throws 504 `TIMEOUT` (retryable,
   * nothing written) when the lease ran out meanwhile.
   */
  confirm(): Promise<void>;
}

const DEFAULT_LEASE_MS = 15_000;
const DEFAULT_POLL_MS = 25;
/** Time left of the request's deadline to answer in when no claim came: the refusal, not the gateway's own timeout. */
const ANSWER_MARGIN_MS = 250;

const WHAT: Record<ChangeClaimName, string> = {
  administrators: 'accounts, groups or roles',
  'integration-models': 'integrations or integration models',
  'custom-roles': 'custom roles or the groups given them',
};

/**
 * Runs changes that check a rule across several records, then write, one at a time across every
 * replica of the admin service: "the platform keeps an administrator" and "a model in use is not
 * deleted" are each checked and written under a claim in the store (`change_claims`), so two
 * requests can never both pass the check on a state the other is changing. Within one process the
 * changes of a claim queue first (first come, first served) so that they do not poll the store
 * against each other; across processes they take the store claim in turn (compare-and-set with a
 * lease, renewed just before the write).
 */
export class SerializedChanges {
  private readonly tails = new Map<ChangeClaimName, Promise<unknown>>();
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly now: () => number;

  constructor(
    private readonly claims: ChangeClaimRepository,
    options: SerializedChangesOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.now = options.now ?? Date.now;
  }

  /**
   * Runs `change` holding claim `name`, once every change of it that came first (here or on another
   * replica) is done; the claim is let go of whatever `change` does. 504 `TIMEOUT` (retryable,
   * nothing run) when the claim does not come before `deadline` (epoch ms).
   */
  run<T>(name: ChangeClaimName, deadline: number, change: (held: HeldClaim) => Promise<T>): Promise<T> {
    const before = this.tails.get(name) ?? Promise.resolve();
    const mine = before.catch(() => undefined).then(() => this.holding(name, deadline, change));
    const tail = mine.catch(() => undefined);
    this.tails.set(name, tail);
    void tail.then(() => {
      if (this.tails.get(name) === tail) this.tails.delete(name);
    });
    return mine;
  }

  private async holding<T>(name: ChangeClaimName, deadline: number, change: (held: HeldClaim) => Promise<T>): Promise<T> {
    const owner = randomUUID();
    await this.take(name, owner, deadline);
    const held: HeldClaim = {
      confirm: async () => {
        const now = this.now();
        if (!(await this.claims.renew(name, owner, now, now + this.leaseMs)))
          throw new AppError(
            'TIMEOUT',
            `The change of ${WHAT[name]} took longer than its claim (${this.leaseMs} ms) and was not written; try again`,
          );
      },
    };
    try {
      return await change(held);
    } finally {
      await this.claims.release(name, owner).catch(() => undefined);
    }
  }

  private async take(name: ChangeClaimName, owner: string, deadline: number): Promise<void> {
    for (;;) {
      // past the deadline the caller has its answer already: a change made now would be one it was told did not happen
      if (Date.now() > deadline - ANSWER_MARGIN_MS)
        throw new AppError('TIMEOUT', `Another change of ${WHAT[name]} is under way (here or on another replica); try again`);
      const now = this.now();
      if (await this.claims.take(name, owner, now, now + this.leaseMs)) return;
      await new Promise((resolve) => setTimeout(resolve, this.pollMs));
    }
  }
}
