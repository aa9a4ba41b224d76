// the audit thread loads this: the modules it needs, not @nap/contracts' index (every schema, TypeBox)
import { AppError, isAppError } from '@nap/contracts/dist/errors';
import type { AuditRecord, AuditVerification, ListQueryOptions } from '@nap/contracts';
import { toListQuery } from '@nap/store';
import type { Collection, DuplicateKeyDetails, Filter, ListFields, Store } from '@nap/store';
import { ChainVerifier, GENESIS } from '../domain/audit-chain';
import type { ChainLink } from '../domain/audit-chain';

/** An audit record as stored: `_id` is its seq, zero-padded so that ids sort as seqs do. */
export type StoredAuditRecord = AuditRecord & { _id: string; [member: string]: unknown };

/** The chain's bookkeeping documents (`audit_meta`). */
interface AuditMeta {
  _id: 'anchor' | 'published' | 'retention';
  [member: string]: unknown;
  /** anchor: the last record retention removed; published: the last record whose event went out. */
  seq?: number;
  hash?: string;
  /** retention: who runs it, and until when that claim holds (epoch ms). */
  claimedBy?: string;
  claimedUntil?: number;
}

const SEQ_DIGITS = 16;
/** Records read a page at a time when the chain is verified. */
const VERIFY_PAGE = 1_000;

/** The `_id` of the record with `seq`. */
export function auditRecordId(seq: number): string {
  return String(seq).padStart(SEQ_DIGITS, '0');
}

/** What `GET /audit` filters and sorts on (besides its own filters). */
const AUDIT_LIST_FIELDS: ListFields = {
  filter: ['operation', 'method', 'route', 'actor.username', 'target.kind', 'target.id', 'target.name', 'requestId'],
  sort: ['seq', 'timestamp', 'operation'],
  defaultSort: { _id: -1 },
};

/** `GET /audit`'s own filters, already read from the query. */
export interface AuditFilters {
  actor?: string;
  operation?: string;
  targetId?: string;
  outcome?: string;
  since?: string;
  until?: string;
}

/** The methods of {@link AuditRecords}, which the audit thread answers. */
export const AUDIT_RECORDS_METHODS = [
  'head',
  'anchor',
  'recorded',
  'append',
  'list',
  'page',
  'oldest',
  'setAnchor',
  'removeThrough',
  'publishedThrough',
  'markPublished',
  'claimRetention',
  'releaseRetention',
  'verify',
] as const;

/**
 * What the admin service reads and writes of the chain: an {@link AuditRepository} on the store, or
 * the same through the audit thread (see `startAuditThread`).
 */
export type AuditRecords = Pick<AuditRepository, (typeof AUDIT_RECORDS_METHODS)[number]>;

/** Another writer appended at the seq this one wanted: read the head again and chain anew. */
export class ChainMoved extends Error {
  constructor(
    /** How many records of the batch went in before the refused one. */
    readonly inserted: number,
    /** True when the refusal was an entry already recorded (another replica took it), not the seq. */
    readonly entryTaken: boolean,
  ) {
    super('The audit chain moved');
  }
}

/**
 * The audit trail's collections: `audit_records` (append-only; removed only from the oldest end by
 * retention) and `audit_meta` (the retention anchor, the event relay's position, the retention
 * claim).
 */
export class AuditRepository {
  private readonly records: Collection<StoredAuditRecord>;
  private readonly meta: Collection<AuditMeta>;

  constructor(store: Store) {
    this.records = store.collection<StoredAuditRecord>('audit_records');
    this.meta = store.collection<AuditMeta>('audit_meta');
  }

  /** The last record of the chain, else the retention anchor; undefined when nothing was ever recorded. */
  async head(): Promise<ChainLink | undefined> {
    const last = await this.records.findOne({}, { sort: { _id: -1 }, projection: { seq: 1, hash: 1 } });
    if (last) return { seq: last.seq, hash: last.hash };
    return this.anchor();
  }

  /** The last record retention removed (the chain goes on from it), when it removed any. */
  async anchor(): Promise<ChainLink | undefined> {
    const anchor = await this.meta.findOne({ _id: 'anchor' });
    return anchor && typeof anchor.seq === 'number' && typeof anchor.hash === 'string' ? { seq: anchor.seq, hash: anchor.hash } : undefined;
  }

  /** Which of these entry ids are recorded already. */
  async recorded(entryIds: string[]): Promise<Set<string>> {
    if (entryIds.length === 0) return new Set();
    const found = await this.records.find({ entryId: { $in: entryIds } }, { projection: { entryId: 1 } });
    return new Set(found.map((r) => r.entryId));
  }

  /**
   * Appends chained records in order. Throws {@link ChainMoved} when a seq is taken (another replica
   * appended first) or an entry is recorded already; the records before it stay appended.
   */
  async append(records: AuditRecord[]): Promise<void> {
    try {
      await this.records.insertMany(records.map((r) => ({ _id: auditRecordId(r.seq), ...r })));
    } catch (err) {
      if (isAppError(err) && err.code === 'STORE_DUPLICATE_KEY') {
        const details = err.details as DuplicateKeyDetails | undefined;
        throw new ChainMoved(details?.insertedCount ?? 0, details?.index !== undefined && details.index !== '_id_');
      }
      throw err;
    }
  }

  /** A page of records for `GET /audit`, newest first unless sorted otherwise. */
  async list(options: ListQueryOptions, filters: AuditFilters): Promise<{ results: StoredAuditRecord[]; total: number }> {
    const sortOn = options.sort === 'seq' ? { ...options, sort: undefined } : options;
    const query = toListQuery(sortOn, AUDIT_LIST_FIELDS, filterClauses(filters));
    const sort = options.sort === 'seq' ? { _id: options.order === 1 ? (1 as const) : (-1 as const) } : query.sort;
    const [results, total] = await Promise.all([
      this.records.find(query.filter, { sort, skip: query.skip, limit: query.limit }),
      this.records.countDocuments(query.filter),
    ]);
    return { results, total };
  }

  /**
   * Recomputes the chain of every kept record, from the retention anchor (or the first record ever),
   * a page at a time; the first record that does not hold ends it. In the audit thread when there is
   * one, so that hashing a long trail takes nothing from the requests.
   */
  async verify(): Promise<AuditVerification> {
    const verifier = new ChainVerifier((await this.anchor()) ?? GENESIS);
    for (;;) {
      const page = await this.page(verifier.position.seq, VERIFY_PAGE);
      if (!verifier.check(page) || page.length < VERIFY_PAGE) return verifier.result();
    }
  }

  /** Records after `afterSeq` in chain order, at most `limit`, within `since`/`until` when given. */
  page(afterSeq: number, limit: number, range: { since?: string; until?: string } = {}): Promise<StoredAuditRecord[]> {
    const clauses: Filter[] = [{ _id: { $gt: auditRecordId(afterSeq) } }, ...timeClauses(range.since, range.until)];
    return this.records.find(clauses.length === 1 ? (clauses[0] as Filter) : { $and: clauses }, { sort: { _id: 1 }, limit });
  }

  /** The oldest records, in chain order (what retention looks at). */
  oldest(limit: number): Promise<StoredAuditRecord[]> {
    return this.records.find({}, { sort: { _id: 1 }, limit, projection: { seq: 1, hash: 1, timestamp: 1 } });
  }

  /** Moves the anchor to `link`, before the records up to it are removed (retention, which one replica runs at a time). */
  async setAnchor(link: ChainLink): Promise<void> {
    await this.meta.updateOne({ _id: 'anchor' }, { $set: { seq: link.seq, hash: link.hash } }, { upsert: true });
  }

  /** Removes the records up to `seq` (retention, after the anchor moved past them); how many went. */
  removeThrough(seq: number): Promise<number> {
    return this.records.deleteMany({ _id: { $lte: auditRecordId(seq) } });
  }

  /** The seq of the last record whose event was published (0 when none). */
  async publishedThrough(): Promise<number> {
    const doc = await this.meta.findOne({ _id: 'published' });
    return typeof doc?.seq === 'number' ? doc.seq : 0;
  }

  /** Records that the events up to `seq` are published. */
  async markPublished(seq: number): Promise<void> {
    await this.meta.updateOne({ _id: 'published' }, { $max: { seq } }, { upsert: true });
  }

  /** Claims the retention run for `owner` until `until` (epoch ms) when no one holds it; false when someone does. */
  async claimRetention(owner: string, now: number, until: number): Promise<boolean> {
    try {
      const claimed = await this.meta.findOneAndUpdate(
        { _id: 'retention', $or: [{ claimedUntil: { $lt: now } }, { claimedBy: owner }] },
        { $set: { claimedBy: owner, claimedUntil: until } },
        { upsert: true, returnDocument: 'after' },
      );
      return claimed?.claimedBy === owner;
    } catch (err) {
      // the upsert of a claim held by another owner collides with the document that exists
      if (isAppError(err) && err.code === 'STORE_DUPLICATE_KEY') return false;
      throw err;
    }
  }

  /** Lets go of the retention claim. */
  async releaseRetention(owner: string): Promise<void> {
    await this.meta.updateOne({ _id: 'retention', claimedBy: owner }, { $set: { claimedUntil: 0 } });
  }
}

function timeClauses(since: string | undefined, until: string | undefined): Filter[] {
  const range: Record<string, string> = {};
  if (since !== undefined) range.$gte = isoOf(since, 'since');
  if (until !== undefined) range.$lt = isoOf(until, 'until');
  return Object.keys(range).length > 0 ? [{ timestamp: range }] : [];
}

/** A time of the query as stored (`toISOString`), so that text comparison orders it; 400 naming the member when it is no time. */
function isoOf(value: string, member: string): string {
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) {
    throw new AppError('VALIDATION_FAILED', `${member} "${value}" is not an ISO 8601 time`, {
      details: [{ member: `query.${member}`, message: 'must be an ISO 8601 time' }],
    });
  }
  return new Date(ms).toISOString();
}

/** The audit filters as store clauses; values are matched as text, never as operators. */
function filterClauses(filters: AuditFilters): Filter[] {
  const clauses: Filter[] = [...timeClauses(filters.since, filters.until)];
  if (filters.actor !== undefined) {
    clauses.push({ 'actor.username': { $eq: filters.actor } });
  }
  if (filters.operation !== undefined) clauses.push({ operation: { $eq: filters.operation } });
  if (filters.targetId !== undefined) clauses.push({ 'target.id': { $eq: filters.targetId } });
  if (filters.outcome !== undefined) clauses.push(outcomeClause(filters.outcome));
  return clauses;
}

function outcomeClause(outcome: string): Filter {
  if (/^\d{3}$/.test(outcome)) return { 'outcome.status': { $eq: Number(outcome) } };
  if (outcome === 'success') return { 'outcome.status': { $lt: 400 } };
  if (outcome === 'failure') return { 'outcome.status': { $gte: 400 } };
  if (/^[A-Z][A-Z0-9_]*$/.test(outcome)) return { 'outcome.code': { $eq: outcome } };
  throw new AppError(
    'VALIDATION_FAILED',
    `outcome "${outcome}" is neither a status (403), an error code (FORBIDDEN), success nor failure`,
    {
      details: [{ member: 'query.outcome', message: 'must be a status, an error code, success or failure' }],
    },
  );
}
