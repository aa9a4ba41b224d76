import { auditRecordHash } from '@nap/contracts';
import type { AuditEntry, AuditRecord } from '@nap/contracts';
import { ChainVerifier, GENESIS, chainEntries } from '../src/domain/audit-chain';

function entry(i: number): AuditEntry {
  return {
    entryId: `e${i}`,
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    actor: { kind: 'account', username: 'ana', auth: 'bearer' },
    operation: 'admin.createGroup',
    method: 'POST',
    outcome: { status: 200 },
  };
}

const chain = chainEntries(
  GENESIS,
  Array.from({ length: 10 }, (_, i) => entry(i + 1)),
);

function verify(records: AuditRecord[], start = GENESIS) {
  const verifier = new ChainVerifier(start);
  // a page at a time, as the route reads them
  for (let i = 0; i < records.length; i += 3) if (!verifier.check(records.slice(i, i + 3))) break;
  return verifier.result();
}

describe('the audit hash chain', () => {
  it('numbers records from 1 and links each to the one before', () => {
    expect(chain.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(chain[0]?.prevHash).toBe(GENESIS.hash);
    for (let i = 1; i < chain.length; i++) expect(chain[i]?.prevHash).toBe(chain[i - 1]?.hash);
    for (const r of chain) expect(r.hash).toBe(auditRecordHash(r));
    expect(verify(chain)).toEqual({ valid: true, checked: 10, firstBroken: null, from: 1 });
  });

  it('continues a chain after the head it is given', () => {
    const more = chainEntries({ seq: 10, hash: chain[9]?.hash ?? '' }, [entry(11)]);
    expect(verify([...chain, ...more])).toMatchObject({ valid: true, checked: 11 });
  });

  it('breaks at a changed record, even when its hash was recomputed', () => {
    const changed = chain.map((r) => (r.seq === 4 ? { ...r, actor: { ...r.actor, username: 'mallory' } } : r));
    expect(verify(changed)).toMatchObject({ valid: false, firstBroken: 4, checked: 4 });
    const rehashed = changed.map((r) => (r.seq === 4 ? { ...r, hash: auditRecordHash(r) } : r));
    expect(verify(rehashed)).toMatchObject({ valid: false, firstBroken: 5 });
  });

  it('breaks where a record was removed, and not where retention removed the oldest ones', () => {
    expect(verify(chain.filter((r) => r.seq !== 6))).toMatchObject({ valid: false, firstBroken: 7 });
    const anchor = { seq: 3, hash: chain[2]?.hash ?? '' };
    expect(verify(chain.slice(3), anchor)).toEqual({ valid: true, checked: 7, firstBroken: null, from: 4 });
    // a retention run cut short: records at or before the anchor still there are passed over
    expect(verify(chain.slice(1), anchor)).toMatchObject({ valid: true, checked: 7 });
    expect(verify(chain.slice(4), anchor)).toMatchObject({ valid: false, firstBroken: 5 });
  });
});
