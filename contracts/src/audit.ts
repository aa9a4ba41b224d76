import { createHash, hash as digest } from 'node:crypto';
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

/** The `$id` of the audit entry's schema (`auditEntrySchema`), by which the audit thread finds its validator. */
export const AUDIT_ENTRY_SCHEMA_ID = 'nap:schemas/audit-entry';

/** Operations answered on GET that change something, recorded like any other change: a logout, the end of an OIDC sign-in. */
const CHANGING_READS: ReadonlySet<string> = new Set(['admin.logout', 'admin.ssoCallback']);

/** Statuses of a refusal, recorded whatever the method: unauthenticated, forbidden, throttled. */
const REFUSALS: ReadonlySet<number> = new Set([401, 403, 429]);

/**
 * True when a request for `op` changes something (every method but GET, and `GET /logout`, `GET /sso/callback`), and so is
 * recorded whatever its outcome; not the reads the spec routes as POST (`/gw/getInventoryDevices`: the catalog marks them
 * `safe`). Reads are recorded only when refused ({@link isAuditedOutcome}).
 */
export function isAuditedChange(op: Pick<OperationDef, 'id' | 'http' | 'safe'>, method: string): boolean {
  if (CHANGING_READS.has(op.id)) return true;
  return method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS' && op.safe !== true;
}

/** True when an answer with `status` to a request for `op` is recorded: every change, and every refusal (401, 403, 429). */
export function isAuditedOutcome(op: Pick<OperationDef, 'id' | 'http' | 'safe'>, method: string, status: number): boolean {
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
  return hashedHalves(record).hash;
}

/** A record hashed into the chain, with its JSON (canonical, `hash` included) as its `auditRecorded` event carries it. */
export interface HashedAuditRecord {
  record: AuditRecord;
  json: string;
}

/**
 * Hashes a record (see {@link auditRecordHash}) and writes its JSON in the same pass: the canonical
 * JSON of its members, written once, makes both the text hashed and, with `hash` put in its place,
 * the event's JSON (itself the record's canonical JSON).
 */
export function hashAuditRecord(unhashed: UnhashedAuditRecord): HashedAuditRecord {
  const { hash, before, after } = hashedHalves(unhashed);
  return { record: { ...unhashed, hash }, json: `{${joinMembers(joinMembers(before, `"hash":${JSON.stringify(hash)}`), after)}}` };
}

/**
 * The hash of a record without its `hash` member, with the canonical JSON of its members that sort
 * before `hash` and of those after it (`"key":value,…`, without braces).
 */
function hashedHalves(record: UnhashedAuditRecord | AuditRecord): { hash: string; before: string; after: string } {
  const members = record as Readonly<Record<string, unknown>>;
  const [before, after] = orderedHalves(members) ?? writtenHalves(members);
  return { hash: digest('sha256', `{${joinMembers(before, after)}}`, 'hex'), before, after };
}

/**
 * The canonical JSON of a record's members before `hash` and after it, each half made in canonical
 * order here (its members sorted, their values ordered) and written by `JSON.stringify` as it is;
 * undefined when a member is not plain JSON data (see {@link canonicalJson}) or has a name
 * `JSON.stringify` would not keep in place.
 */
function orderedHalves(members: Readonly<Record<string, unknown>>): [string, string] | undefined {
  const halves: [Record<string, unknown>, Record<string, unknown>] = [{}, {}];
  for (const key of sortedKeys(members)) {
    const member = members[key];
    if (key === 'hash' || member === undefined) continue;
    if (key === '__proto__' || INDEX_KEY.test(key)) return undefined;
    const ordered = inCanonicalOrder(member);
    if (ordered === NOT_PLAIN) return undefined;
    halves[key < 'hash' ? 0 : 1][key] = ordered;
  }
  return [JSON.stringify(halves[0]).slice(1, -1), JSON.stringify(halves[1]).slice(1, -1)];
}

/** {@link orderedHalves} of any record, each half written by {@link canonicalJson}. */
function writtenHalves(members: Readonly<Record<string, unknown>>): [string, string] {
  const halves = [Object.create(null), Object.create(null)] as [Record<string, unknown>, Record<string, unknown>];
  for (const key of sortedKeys(members)) if (key !== 'hash') halves[key < 'hash' ? 0 : 1][key] = members[key];
  return halves.map((half) => (canonicalJson(half) as string).slice(1, -1)) as [string, string];
}

/** Two lists of JSON members as one. */
function joinMembers(a: string, b: string): string {
  return a === '' ? b : b === '' ? a : `${a},${b}`;
}

/**
 * RFC 8785 (JCS) canonical JSON of a value, as `canonicalize` writes it. JSON data (what records
 * are: parsed JSON) goes the fast way: a copy with each object's members in canonical order, written
 * by `JSON.stringify`, a third less CPU than `canonicalize`'s walk; anything `JSON.stringify`
 * would not order or write as JCS does (a member named like an array index, `toJSON`, a number that
 * is not finite) goes to `canonicalize`. Undefined for what has no JSON (undefined, a function).
 */
export function canonicalJson(value: unknown): string | undefined {
  const ordered = inCanonicalOrder(value);
  return ordered === NOT_PLAIN ? canonicalize(value) : JSON.stringify(ordered);
}

const NOT_PLAIN: unique symbol = Symbol('not plain JSON');
/** A member name that JavaScript orders before the others, as an array index: `JSON.stringify` would not keep canonical order. */
const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/;

/**
 * `value` with every object's members in canonical order (the object itself when they are already,
 * a copy otherwise), or {@link NOT_PLAIN}.
 */
function inCanonicalOrder(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : NOT_PLAIN;
    case 'object':
      break;
    default:
      return NOT_PLAIN;
  }
  if (value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const ordered = inCanonicalOrder(item);
      if (ordered === NOT_PLAIN) return NOT_PLAIN;
      if (ordered !== item) (copy ??= value.slice())[i] = ordered;
    }
    return copy ?? value;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return NOT_PLAIN;
  const members = value as Record<string, unknown>;
  const keys = Object.keys(members);
  let inOrder = true;
  for (let i = 1; i < keys.length && inOrder; i++) inOrder = (keys[i - 1] as string) < (keys[i] as string);
  let changed = !inOrder;
  const values: unknown[] = [];
  for (const key of keys) {
    const member = members[key];
    const ordered = inCanonicalOrder(member);
    if (ordered === NOT_PLAIN) {
      // JSON.stringify leaves out an undefined member, as JCS does
      if (member !== undefined) return NOT_PLAIN;
      changed = true;
      values.push(undefined);
      continue;
    }
    if (ordered !== member) changed = true;
    values.push(ordered);
  }
  if (!changed) return value;
  if (!inOrder && keys.some((k) => INDEX_KEY.test(k))) return NOT_PLAIN;
  const order = keys.map((_, i) => i);
  if (!inOrder) order.sort((a, b) => ((keys[a] as string) < (keys[b] as string) ? -1 : 1));
  // a plain object, which JSON.stringify writes a third faster than one without a prototype; but a
  // member named __proto__ (parsed JSON may hold one) would become its prototype: then none, so
  // that it stays a member
  const copy = (keys.includes('__proto__') ? Object.create(null) : {}) as Record<string, unknown>;
  for (const i of order) if (values[i] !== undefined) copy[keys[i] as string] = values[i];
  return copy;
}

/** The member names of an object in canonical order (UTF-16 code units, as RFC 8785 sorts them). */
function sortedKeys(members: Readonly<Record<string, unknown>>): string[] {
  // the default order, by UTF-16 code units, is RFC 8785's
  return Object.keys(members).sort();
}

/** Values whose canonical JSON is longer than this are kept in `changes` as their SHA-256 digests. */
export const AUDIT_CHANGE_VALUE_LIMIT = 4_096;
/** How deep {@link auditChanges} walks into objects before it lists a whole member as changed. */
const CHANGE_DEPTH = 3;

/** Options of {@link auditChanges}. */
export interface AuditChangesOptions {
  /** Members never listed (bookkeeping such as `lastUpdated`). Dotted paths from the top. */
  ignore?: readonly string[];
  /**
   * Members secret whatever their names (what a schema declares, see `declaredSecretPaths`), by
   * dotted path from the top: true when `member` is one or lies inside one, or (with `containing`,
   * for a value listed whole) holds one. Listed as changed, never with their values.
   */
  isSecretMember?: (member: string, containing: boolean) => boolean;
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
  walk(before, after, '', 0, ignore, changes, options.isSecretMember ?? (() => false));
  return changes;
}

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function walk(
  before: unknown,
  after: unknown,
  path: string,
  depth: number,
  ignore: Set<string>,
  out: AuditChange[],
  isSecretMember: (member: string, containing: boolean) => boolean,
): void {
  if (isPlain(before) && isPlain(after) && (depth < CHANGE_DEPTH || path === '')) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    for (const key of [...keys].sort()) {
      const member = path === '' ? key : `${path}.${key}`;
      if (ignore.has(member) || (path === '' && ignore.has(key))) continue;
      const a = before[key];
      const b = after[key];
      if (isDeepStrictEqual(a, b)) continue;
      if (isSecret(key, a) || isSecret(key, b) || isSecretMember(member, false)) {
        out.push(secretChange(member, a, b));
        continue;
      }
      walk(a, b, member, depth + 1, ignore, out, isSecretMember);
    }
    return;
  }
  if (isDeepStrictEqual(before, after)) return;
  const member = path === '' ? '(document)' : path;
  out.push(isSecretMember(member, true) ? secretChange(member, before, after) : valueChange(member, before, after));
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
  const sizes = [masked.before, masked.after].map((v) => (v === undefined ? 0 : (canonicalJson(v) ?? '').length));
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
    .update(canonicalJson(value) ?? '', 'utf8')
    .digest('hex')}`;
}
