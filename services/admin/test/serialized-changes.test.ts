import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hasCode } from '@nap/contracts';
import { createEmbeddedStore } from '@nap/store';
import type { EmbeddedStore } from '@nap/store';
import { eventually } from '@nap/testing';
import { SerializedChanges } from '../src/engine/serialized-changes';
import { ChangeClaimRepository } from '../src/store/change-claims';

/**
 * The claim that serialises changes which check a rule across records (keeping an administrator,
 * models in use): two replicas of the admin service are two `SerializedChanges` on one store, each
 * with its own queue in process, so only the claim in the store keeps them apart.
 */

let dir: string;
let store: EmbeddedStore;
let clock: number;
const now = () => clock;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'nap-serialized-changes-'));
  store = createEmbeddedStore({ path: dir });
  clock = Date.UTC(2026, 5, 1);
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A promise and the function that settles it: a change held open until the test lets it go. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const inAMinute = () => Date.now() + 60_000;

/** The claims of one replica, counting the times the store refused it one. */
class CountingClaims extends ChangeClaimRepository {
  refused = 0;

  override async take(...args: Parameters<ChangeClaimRepository['take']>): Promise<boolean> {
    const taken = await super.take(...args);
    if (!taken) this.refused++;
    return taken;
  }
}

it('runs the changes of two replicas one after the other, never together', async () => {
  const replicaA = new SerializedChanges(new ChangeClaimRepository(store), { now, pollMs: 5 });
  const claimsB = new CountingClaims(store);
  const replicaB = new SerializedChanges(claimsB, { now, pollMs: 5 });
  const order: string[] = [];
  const holdA = gate();
  const enteredA = gate();
  const a = replicaA.run('administrators', inAMinute(), async (held) => {
    order.push('A in');
    enteredA.open();
    await holdA.opened;
    await held.confirm();
    order.push('A out');
  });
  await enteredA.opened;
  const b = replicaB.run('administrators', inAMinute(), async (held) => {
    order.push('B in');
    await held.confirm();
    order.push('B out');
  });
  // B asks the store again and again while A holds the claim: it never gets in
  await eventually('B refused the claim three times', async () => claimsB.refused >= 3, { timeoutMs: 5_000 });
  expect(order).toEqual(['A in']);
  holdA.open();
  await Promise.all([a, b]);
  expect(order).toEqual(['A in', 'A out', 'B in', 'B out']);
});

it('keeps the claims of different names apart', async () => {
  const replicaA = new SerializedChanges(new ChangeClaimRepository(store), { now, pollMs: 5 });
  const replicaB = new SerializedChanges(new ChangeClaimRepository(store), { now, pollMs: 5 });
  const holdA = gate();
  const a = replicaA.run('administrators', inAMinute(), () => holdA.opened);
  await expect(replicaB.run('integration-models', inAMinute(), async () => 'ran')).resolves.toBe('ran');
  holdA.open();
  await a;
});

it('queues the changes of one replica in the order they came, a failed one letting the next run', async () => {
  const replica = new SerializedChanges(new ChangeClaimRepository(store), { now, pollMs: 5 });
  const order: number[] = [];
  const runs = [1, 2, 3].map((n) =>
    replica.run('administrators', inAMinute(), async () => {
      order.push(n);
      if (n === 2) throw new Error('refused');
      return n;
    }),
  );
  await expect(runs[0]).resolves.toBe(1);
  await expect(runs[1]).rejects.toThrow('refused');
  await expect(runs[2]).resolves.toBe(3);
  expect(order).toEqual([1, 2, 3]);
});

it('takes over the claim of a replica that died holding it once its lease ran out, and that replica writes nothing after', async () => {
  const dead = new SerializedChanges(new ChangeClaimRepository(store), { now, pollMs: 5, leaseMs: 15_000 });
  const alive = new SerializedChanges(new ChangeClaimRepository(store), { now, pollMs: 5, leaseMs: 15_000 });
  const stuck = gate();
  const checked = gate();
  let deadWrote = false;
  const deadRun = dead.run('administrators', inAMinute(), async (held) => {
    checked.open();
    await stuck.opened;
    await held.confirm();
    deadWrote = true;
  });
  await checked.opened;
  const waiting = alive.run('administrators', inAMinute(), async (held) => {
    await held.confirm();
    return 'written';
  });
  clock += 15_001;
  await expect(waiting).resolves.toBe('written');
  // the replica that lost its claim finds out before its write
  stuck.open();
  const refused = await deadRun.catch((err: unknown) => err);
  expect(hasCode(refused, 'TIMEOUT')).toBe(true);
  expect(deadWrote).toBe(false);
});

it('answers 504 TIMEOUT, running nothing, when the claim does not come before the deadline', async () => {
  const replicaA = new SerializedChanges(new ChangeClaimRepository(store), { now, pollMs: 5 });
  const replicaB = new SerializedChanges(new ChangeClaimRepository(store), { now, pollMs: 5 });
  const holdA = gate();
  const a = replicaA.run('administrators', inAMinute(), () => holdA.opened);
  let ran = false;
  const refused = await replicaB
    .run('administrators', Date.now() + 400, async () => {
      ran = true;
    })
    .catch((err: unknown) => err);
  expect(hasCode(refused, 'TIMEOUT')).toBe(true);
  expect((refused as Error).message).toContain('Another change of accounts, groups or roles is under way');
  expect(ran).toBe(false);
  holdA.open();
  await a;
});
