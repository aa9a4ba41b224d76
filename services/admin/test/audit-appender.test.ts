import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAuditRecorder, createMemoryBus } from '@nap/bus';
import type { MemoryBus } from '@nap/bus';
import { createEmbeddedStore } from '@nap/store';
import type { EmbeddedStore } from '@nap/store';
import { createLogger } from '@nap/telemetry';
import { ChainVerifier, GENESIS } from '../src/domain/audit-chain';
import { AuditAppender } from '../src/engine/audit-appender';
import { AuditChainWriter } from '../src/engine/audit-chain-writer';
import { AuditRepository, ChainMoved } from '../src/store/audit-records';
import { auditEntrySchema, isValid } from '@nap/contracts';
import type { AuditRecord } from '@nap/contracts';
import { ensureCollections } from '../src/store/collections';
import { groupCreated } from './audit-entries';

/**
 * The audit appender as replicas run it: each on a bus of its own (as each admin process has its
 * JetStream consumer), all on one store. Whatever they race for, the chain has every entry once,
 * numbered without a gap, each record linked to the one before.
 */
let dir: string;
let store: EmbeddedStore;
let buses: MemoryBus[];
let appenders: AuditAppender[];
/** Appends refused because the chain moved (another replica appended first, or took the entry). */
const refused = { seq: 0, entry: 0 };

/** The repository, counting the appends refused: the test is only worth something if the replicas raced. */
class CountingRepository extends AuditRepository {
  override async append(records: AuditRecord[]): Promise<void> {
    try {
      await super.append(records);
    } catch (err) {
      if (err instanceof ChainMoved) refused[err.entryTaken ? 'entry' : 'seq'] += 1;
      throw err;
    }
  }
}
const log = createLogger({ name: 'audit-appender-test', level: 'silent' });

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'nap-audit-appender-'));
  store = createEmbeddedStore({ path: dir });
  await ensureCollections(store);
  buses = [createMemoryBus(), createMemoryBus()];
  appenders = buses.map((bus) => {
    const records = new CountingRepository(store);
    return new AuditAppender(bus, new AuditChainWriter(records, log, (value) => isValid(auditEntrySchema, value)), records, log);
  });
  for (const appender of appenders) await appender.start();
});

afterEach(async () => {
  for (const appender of appenders) await appender.stop();
  for (const bus of buses) await bus.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

it('keeps one chain, without a gap or a repeat, when two replicas append at once and both get some of the same entries', async () => {
  const recorders = buses.map((bus) => createAuditRecorder(bus));
  const [first, second] = recorders as [ReturnType<typeof createAuditRecorder>, ReturnType<typeof createAuditRecorder>];
  // 150 entries each, 40 of them delivered to both (a redelivery to another replica after a slow ack)
  const own = (replica: string) => Array.from({ length: 150 }, (_, i) => groupCreated(`${replica}-${i}`));
  const shared = Array.from({ length: 40 }, (_, i) => groupCreated(`shared-${i}`));
  await Promise.all([...[...own('a'), ...shared].map((e) => first.record(e)), ...[...shared, ...own('b')].map((e) => second.record(e))]);
  // and one recorded again after it was chained (a crash before the queue let go of it)
  await second.record(groupCreated('a-0'));

  const records = await new AuditRepository(store).page(0, 1_000);
  expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i + 1));
  expect(records).toHaveLength(340);
  expect(new Set(records.map((r) => r.entryId)).size).toBe(340);
  const verifier = new ChainVerifier(GENESIS);
  verifier.check(records);
  expect(verifier.result()).toEqual({ valid: true, checked: 340, firstBroken: null, from: 1 });
  // they did race: for a seq, and for an entry the other had recorded
  expect(refused.seq).toBeGreaterThan(0);
  expect(refused.entry).toBeGreaterThan(0);
});
