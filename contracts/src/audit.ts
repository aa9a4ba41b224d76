import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import canonicalize from 'canonicalize';
import type { OperationDef } from './catalog/types';
import type { AuditChange, AuditRecord } from './schemas/audit';
import { SECRET_MASK, isSecret, redactSecrets } from './secrets';

/**
 * The audit trail's shared rules: which requests are recorded, how a record is hashed into the
 * chain, and how an update's changes are listed and masked. The gateway, the services and the
 * admin service (which keeps the chain) all use these, so a record means the same everywhere.
 */

/** `prevHash` of the first record of the chain. */
export const AUDIT_GENESIS_HASH = '0'.repeat(64);

/** Operations answered on GET that change something, recorded like any other change: a logout, the end of an OIDC sign-in. */
const CHANGING_READS: ReadonlySet<string> = new Set(['admin.logout', 'admin.ssoCallback']);

/** Statuses of a refusal, recorded whatever the method: unauthenticated, forbidden, throttled. */
const REFUSALS: ReadonlySet<number> = new Set([401, 403, 429]);

/**
 * True when a request for `op` changes something (every method but GET, and `GET /logout`, `GET /sso/callback`), and so is
 * recorded whatever its outcome. Reads are recorded only when refused ({@link isAuditedOutcome}).
 */
export function isAuditedChange(op: Pick<OperationDef, 'id' | 'http'>, method: string): boolean {
  return (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') || CHANGING_READS.has(op.id);
}

/** True when an answer with `status` to a request for `op` is recorded: every change, and every refusal (401, 403, 429). */
export function isAuditedOutcome(op: Pick<OperationDef, 'id' | 'http'>, method: string, status: number): boolean {
  return REFUSALS.has(status) || isAuditedChange(op, method);
}

/** The record without `hash`, as it is hashed. */
export type UnhashedAuditRecord = Omit<AuditRecord, 'hash'>;

/**
 * The hash of a record: SHA-256 (hex) over the RFC 8785 (JCS) canonical JSON of the record without
 * its `hash` member. The record holds `prevHash`, so each hash covers the whole chain before it; any
 * JCS implementation recomputes it.
 */
export function auditRecordHash(record: UnhashedAuditRecord | AuditRecord): string {
  const { hash: _hash, ...rest } = record as AuditRecord;
  const canonical = canonicalize(rest);
  if (canonical === undefined) throw new Error('An audit record has no canonical form');
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/** Values whose canonical JSON is longer than this are kept in `changes` as their SHA-256 digests. */
export const AUDIT_CHANGE_VALUE_LIMIT = 4_096;
/** How deep {@link auditChanges} walks into objects before it lists a whole member as changed. */
const CHANGE_DEPTH = 3;

/** Options of {@link auditChanges}. */
export interface AuditChangesOptions {
  /** Members never listed (bookkeeping such as `lastUpdated`). Dotted paths from the top. */
  ignore?: readonly string[];
}

const BOOKKEEPING = [
  'lastUpdated',
  'lastUpdatedBy',
  'last_updated',
  'last_updated_by',
  'lastModified',
  'lastModifiedBy',
  'updated',
  'updatedBy',
  'version',
];

/**
 * The members that differ between `before` and `after` (objects walked three levels deep, arrays
 * compared whole), each with its values before and after, masked by the platform's secret policy: a
 * member with a secret name or holding key material says only that it changed (`secret: true`,
 * both values `********`), and secrets nested in a value are masked. A value whose JSON is longer
 * than {@link AUDIT_CHANGE_VALUE_LIMIT} is kept as its SHA-256 digest (`digest: true`).
 * Bookkeeping members (`lastUpdated`, `lastUpdatedBy`, …) are left out.
 */
export function auditChanges(before: unknown, after: unknown, options: AuditChangesOptions = {}): AuditChange[] {
  const ignore = new Set([...BOOKKEEPING, ...(options.ignore ?? [])]);
  const changes: AuditChange[] = [];
  walk(before, after, '', 0, ignore, changes);
  return changes;
}

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function walk(before: unknown, after: unknown, path: string, depth: number, ignore: Set<string>, out: AuditChange[]): void {
  if (isPlain(before) && isPlain(after) && (depth < CHANGE_DEPTH || path === '')) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    for (const key of [...keys].sort()) {
      const member = path === '' ? key : `${path}.${key}`;
      if (ignore.has(member) || (path === '' && ignore.has(key))) continue;
      const a = before[key];
      const b = after[key];
      if (isDeepStrictEqual(a, b)) continue;
      if (isSecret(key, a) || isSecret(key, b)) {
        out.push(secretChange(member, a, b));
        continue;
      }
      walk(a, b, member, depth + 1, ignore, out);
    }
    return;
  }
  if (isDeepStrictEqual(before, after)) return;
  out.push(valueChange(path === '' ? '(document)' : path, before, after));
}

function secretChange(member: string, before: unknown, after: unknown): AuditChange {
  const change: AuditChange = { member, secret: true };
  if (before !== undefined && before !== null) change.before = SECRET_MASK;
  if (after !== undefined && after !== null) change.after = SECRET_MASK;
  return change;
}

function valueChange(member: string, before: unknown, after: unknown): AuditChange {
  const change: AuditChange = { member };
  const masked = { before: maskedSnapshot(before), after: maskedSnapshot(after) };
  const sizes = [masked.before, masked.after].map((v) => (v === undefined ? 0 : (canonicalize(v) ?? '').length));
  if (sizes.some((n) => n > AUDIT_CHANGE_VALUE_LIMIT)) {
    change.digest = true;
    if (masked.before !== undefined) change.before = digestOf(masked.before);
    if (masked.after !== undefined) change.after = digestOf(masked.after);
    return change;
  }
  if (masked.before !== undefined) change.before = masked.before;
  if (masked.after !== undefined) change.after = masked.after;
  return change;
}

/**
 * A value of a change as the record keeps it: masked, and a copy of its own (redaction shares what
 * holds no secret), so that a handler changing the document after telling the audit trail does not
 * change the record.
 */
function maskedSnapshot(value: unknown): unknown {
  if (value === undefined) return undefined;
  const masked = redactSecrets(value);
  return typeof masked === 'object' && masked !== null ? structuredClone(masked) : masked;
}

function digestOf(value: unknown): string {
  return `sha256:${createHash('sha256')
    .update(canonicalize(value) ?? '', 'utf8')
    .digest('hex')}`;
}
