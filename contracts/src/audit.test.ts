import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import {
  AUDIT_CHANGE_VALUE_LIMIT,
  auditChanges,
  auditRecordHash,
  canonicalJson,
  hashAuditRecord,
  isAuditedChange,
  isAuditedOutcome,
} from './audit';
import { getOperation } from './catalog';
import type { AuditRecord } from './schemas/audit';
import { SECRET_MASK } from './secrets';
import { isDeclaredSecretMember } from './schema-secrets';

const record: AuditRecord = {
  seq: 1,
  entryId: 'e1',
  timestamp: '2026-01-01T00:00:00.000Z',
  actor: { kind: 'account', username: 'ana', accountId: 'a1', auth: 'bearer' },
  operation: 'admin.createGroup',
  method: 'POST',
  outcome: { status: 201 },
  prevHash: '0'.repeat(64),
  hash: '',
};

describe('audit record hash', () => {
  it('is SHA-256 over the canonical JSON, whatever the order of members, and leaves the hash out', () => {
    const { outcome, seq, ...rest } = record;
    const reordered = JSON.parse(JSON.stringify({ outcome, ...rest, seq })) as AuditRecord;
    expect(Object.keys(reordered)[0]).toBe('outcome');
    expect(auditRecordHash(record)).toMatch(/^[0-9a-f]{64}$/);
    expect(auditRecordHash(reordered)).toBe(auditRecordHash(record));
    expect(auditRecordHash({ ...record, hash: 'something else' })).toBe(auditRecordHash(record));
  });

  it('is the hash any RFC 8785 implementation computes, for members in any order and of any kind', () => {
    const odd = {
      ...record,
      // members JavaScript orders as array indexes, code units past ASCII, nested objects out of order
      target: { name: 'n', kind: 'group', id: 'g1' },
      changes: [
        {
          member: 'x',
          before: { b: [1, { d: 2, c: null }], a: 0.1 + 0.2, '10': 'ten', '9': 'nine' },
          after: { é: 'é', z: -0, e: 1e21, A: '\u2028' },
        },
      ],
      source: { userAgent: 'ua \ud83d\ude00 "quoted"', address: '::1' },
    };
    const { hash: _hash, ...unhashed } = odd;
    const expected = createHash('sha256')
      .update(canonicalize(unhashed) ?? '', 'utf8')
      .digest('hex');
    expect(auditRecordHash(odd)).toBe(expected);
    expect(auditRecordHash(JSON.parse(JSON.stringify(odd)) as AuditRecord)).toBe(expected);
  });

  it('writes the record with its hash as canonical JSON, in the pass that hashes it', () => {
    const { hash: _hash, ...unhashed } = record;
    const { record: hashed, json } = hashAuditRecord({ ...unhashed, target: { name: 'n', kind: 'group' } });
    expect(hashed.hash).toBe(auditRecordHash(hashed));
    expect(JSON.parse(json)).toEqual(hashed);
    expect(json).toBe(canonicalize(hashed));
  });

  it('changes with any member, the link to the record before included', () => {
    const base = auditRecordHash(record);
    expect(auditRecordHash({ ...record, actor: { ...record.actor, username: 'bob' } })).not.toBe(base);
    expect(auditRecordHash({ ...record, prevHash: '1'.repeat(64) })).not.toBe(base);
    expect(auditRecordHash({ ...record, seq: 2 })).not.toBe(base);
  });
});

describe('canonical JSON', () => {
  it('is what canonicalize writes, JSON data or not', () => {
    const values: unknown[] = [
      { b: 1, a: [1, 'x', null, { z: 1e21, y: -0, x: 0.1 + 0.2 }], '10': 1, '9': 2, é: '\u2028', '\u0080': 'k', A: true },
      { in: { order: 1 }, out: { of: 1, order: 2 } },
      { skipped: undefined, kept: [undefined, 1] },
      { when: new Date(0), nested: { when: new Date(1) } },
      // parsed JSON may hold a member named __proto__, out of order: kept as a member, not a prototype
      JSON.parse('{"b":1,"__proto__":{"x":1},"a":{"z":1,"__proto__":2}}') as unknown,
      'text',
      5,
      null,
      [],
      {},
    ];
    for (const value of values) expect(canonicalJson(value)).toBe(canonicalize(value));
    expect(canonicalJson(undefined)).toBeUndefined();
    expect(() => canonicalJson({ n: Number.NaN })).toThrow('NaN');
  });
});

describe('audit changes', () => {
  it('lists the members that differ, walking into objects, with values before and after', () => {
    expect(
      auditChanges(
        { name: 'g', description: 'old', roles: ['a'], props: { host: 'h1', port: 22 }, lastUpdated: 'then' },
        { name: 'g', description: 'new', roles: ['a', 'b'], props: { host: 'h2', port: 22 }, lastUpdated: 'now', added: true },
      ),
    ).toEqual([
      { member: 'added', after: true },
      { member: 'description', before: 'old', after: 'new' },
      { member: 'props.host', before: 'h1', after: 'h2' },
      { member: 'roles', before: ['a'], after: ['a', 'b'] },
    ]);
  });

  it('says only that a secret changed, by name or by key material, and masks secrets nested in values', () => {
    const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----';
    const changes = auditChanges(
      { passwordHash: 'scrypt$old', auth: { client_secret: 'one' }, note: 'x', list: [{ token: 't1' }] },
      { passwordHash: 'scrypt$new', auth: { client_secret: 'two' }, note: key, list: [{ token: 't2' }, { token: 't3' }] },
    );
    expect(changes).toEqual([
      { member: 'auth.client_secret', secret: true, before: SECRET_MASK, after: SECRET_MASK },
      { member: 'list', before: [{ token: SECRET_MASK }], after: [{ token: SECRET_MASK }, { token: SECRET_MASK }] },
      { member: 'note', secret: true, before: SECRET_MASK, after: SECRET_MASK },
      { member: 'passwordHash', secret: true, before: SECRET_MASK, after: SECRET_MASK },
    ]);
    expect(JSON.stringify(changes)).not.toMatch(/scrypt|one|two|t1|t2|BEGIN/);
  });

  it('keeps a large value as its digest', () => {
    const big = 'x'.repeat(AUDIT_CHANGE_VALUE_LIMIT + 1);
    const [change] = auditChanges({ script: 'small' }, { script: big });
    expect(change).toEqual({
      member: 'script',
      digest: true,
      before: expect.stringMatching(/^sha256:/),
      after: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
  });

  it('lists nothing for equal documents', () => {
    expect(auditChanges({ a: { b: [1, 2] } }, { a: { b: [1, 2] } })).toEqual([]);
  });
});

describe('what is audited', () => {
  it('records every change and every refusal, never a read answered', () => {
    const read = getOperation('admin.getGroups');
    const write = getOperation('admin.createGroup');
    const logout = getOperation('admin.logout');
    expect(isAuditedChange(write, 'POST')).toBe(true);
    expect(isAuditedChange(logout, 'GET')).toBe(true);
    expect(isAuditedChange(read, 'GET')).toBe(false);
    expect(isAuditedOutcome(read, 'GET', 200)).toBe(false);
    expect(isAuditedOutcome(read, 'GET', 404)).toBe(false);
    for (const status of [401, 403, 429]) expect(isAuditedOutcome(read, 'GET', status)).toBe(true);
    expect(isAuditedOutcome(write, 'POST', 409)).toBe(true);
    // a read the spec routes as POST is a read: recorded only when refused
    const postedRead = getOperation('gateway-devices.getInventoryDevices');
    expect(postedRead.http?.method).toBe('POST');
    expect(isAuditedChange(postedRead, 'POST')).toBe(false);
    expect(isAuditedOutcome(postedRead, 'POST', 200)).toBe(false);
    expect(isAuditedOutcome(postedRead, 'POST', 403)).toBe(true);
  });
});

describe('auditChanges with members declared secret', () => {
  it('lists a declared secret as changed without its values, and masks a value listed whole that holds one', () => {
    const paths = [['devicePass'], ['vault', 'pins', '*']];
    const isSecretMember = (member: string, containing: boolean) => isDeclaredSecretMember(member, 'formData', paths, containing);
    const before = { name: 't', formData: { device: 'r1', devicePass: 'old-pass', vault: { pins: ['1111'] } } };
    const after = { name: 't', formData: { device: 'r2', devicePass: 'new-pass', vault: { pins: ['2222'] } } };
    const changes = auditChanges(before, after, { isSecretMember });
    expect(changes).toEqual([
      { member: 'formData.device', before: 'r1', after: 'r2' },
      { member: 'formData.devicePass', secret: true, before: '********', after: '********' },
      { member: 'formData.vault.pins', secret: true, before: '********', after: '********' },
    ]);
    expect(JSON.stringify(changes)).not.toMatch(/pass'|1111|2222|old-pass|new-pass/);
  });
});
