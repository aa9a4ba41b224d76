import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AuditEntry } from '@nap/contracts';
import { createAuditRecorder, createMemoryBus, decodeJson } from '@nap/bus';
import type { MemoryBus } from '@nap/bus';
import { createEmbeddedStore } from '@nap/store';
import type { EmbeddedStore } from '@nap/store';
import { createLogger } from '@nap/telemetry';
import { ChainVerifier, GENESIS, chainEntries } from '../src/domain/audit-chain';
import { AuditRetention } from '../src/engine/audit-retention';
import { AuditRepository } from '../src/store/audit-records';

const DAY_MS = 86_400_000;
const NOW = Date.UTC(2026, 5, 1);
let dir: string;
let store: EmbeddedStore;
let bus: MemoryBus;
let repository: AuditRepository;
const recorded: AuditEntry[] = [];

function entry(i: number, ageDays: number): AuditEntry {
  return {
    entryId: `e${i}`,
    timestamp: new Date(NOW - ageDays * DAY_MS).toISOString(),
    actor: { kind: 'account', username: 'ana', auth: 'bearer' },
    operation: 'admin.createGroup',
    method: 'POST',
    outcome: { status: 200 },
  };
}

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'nap-audit-retention-'));
  store = createEmbeddedStore({ path: dir });
  repository = new AuditRepository(store);
  bus = createMemoryBus();
  recorded.length = 0;
  // what the retention records goes through the audit queue, as everything else does
  await bus.consumeQueue('audit', async (batch) => void recorded.push(...batch.map((e) => decodeJson<AuditEntry>(e.data))), {
    durableName: 'test',
  });
});

afterEach(async () => {
  await bus.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function verify() {
  const verifier = new ChainVerifier((await repository.anchor()) ?? GENESIS);
  verifier.check(await repository.page(0, 10_000));
  return verifier.result();
}

it('removes the records older than the retention from the oldest end, in steps, leaving one chain that verifies', async () => {
  // 25 records 500 days old, then 5 of today (a record out of order stays: only a prefix goes)
  const ages = [...Array.from({ length: 25 }, () => 500), 0, 0, 900, 0, 0];
  await repository.append(
    chainEntries(
      GENESIS,
      ages.map((age, i) => entry(i + 1, age)),
    ),
  );
  const retention = new AuditRetention(
    repository,
    createAuditRecorder(bus),
    async () => 400,
    createLogger({ name: 'audit-retention-test', level: 'silent' }),
    {
      batch: 10,
    },
  );

  expect(await retention.run(NOW)).toBe(25);
  expect((await repository.page(0, 100)).map((r) => r.seq)).toEqual([26, 27, 28, 29, 30]);
  expect(await repository.anchor()).toMatchObject({ seq: 25 });
  expect(await verify()).toEqual({ valid: true, checked: 5, firstBroken: null, from: 26 });
  expect(recorded).toEqual([
    expect.objectContaining({
      entryId: 'retention:audit-through-25',
      actor: { kind: 'platform', username: 'retention' },
      operation: 'admin.applyAuditRetention',
      method: 'PLATFORM',
      changes: [{ member: 'removed', after: 25 }],
    }),
  ]);

  // nothing more is due: nothing removed, nothing recorded
  expect(await retention.run(NOW)).toBe(0);
  expect(recorded).toHaveLength(1);
});

it('lets one replica run at a time', async () => {
  await repository.append(chainEntries(GENESIS, [entry(1, 500)]));
  expect(await repository.claimRetention('a', NOW, NOW + 60_000)).toBe(true);
  expect(await repository.claimRetention('b', NOW + 1, NOW + 60_000)).toBe(false);
  expect(await repository.claimRetention('b', NOW + 60_001, NOW + 120_000)).toBe(true);
});
