import { AppError, hasCode } from '@nap/contracts';
import { isRecord } from '@nap/util';
import type { Caller } from '@nap/contracts';
import type { SecretBox } from '@nap/runtime';
import type { Collection, Filter, ListQuery, Store } from '@nap/store';
import { maskedFormData } from '../domain/trigger-model';
import type { TriggerError, TriggerRecord } from '../domain/trigger-model';
import { DueClaims } from './due-claims';

/** Members of a trigger the schedule runner writes (the due times, its claim, when it last started a job). */
const RUNNER_MEMBERS = new Set(['nextRunAt', 'lastRunAt', 'lastExecuted', 'fire']);

/**
 * A trigger as the store holds it: a `formData` that holds secrets (the variables a schedule or a
 * manual trigger starts its jobs with: `password`, `api_token`, … by the platform's secret policy)
 * is stored masked, and whole in `sealedFormData`, sealed with the platform's secret key. The
 * repository answers the trigger whole: what starts a job gets the secrets, answers mask them.
 */
type StoredTrigger = TriggerRecord & { sealedFormData?: string };

/** The schedules among triggers: what their due times are claimed among. */
const SCHEDULES = { type: 'schedule', enabled: true };

/**
 * The `triggers` collection. Route names of endpoint triggers are unique (a sparse unique index);
 * a schedule's due time is fired under a claim (`fire`: server id, claim time), taken and released
 * with conditional updates ({@link DueClaims}, shared with the job retention), so that one replica
 * fires each due time.
 */
export class TriggerRepository {
  private readonly triggers: Collection<StoredTrigger>;
  private readonly claims: DueClaims<StoredTrigger>;

  constructor(
    store: Store,
    private readonly secrets: SecretBox,
  ) {
    this.triggers = store.collection<StoredTrigger>('triggers');
    this.claims = new DueClaims(this.triggers);
  }

  /** `doc` as stored: its formData masked and sealed whole when it holds a secret (see {@link StoredTrigger}). */
  private sealed(doc: TriggerRecord): StoredTrigger {
    const { sealedFormData: _stale, ...rest } = doc as StoredTrigger;
    if (!isRecord(rest.formData)) return rest;
    const masked = maskedFormData(rest.formData, rest.secretPaths);
    if (masked === rest.formData) return rest;
    return { ...rest, formData: masked, sealedFormData: this.secrets.seal(JSON.stringify(rest.formData)) };
  }

  /** A stored trigger whole: its sealed formData opened. */
  private opened(doc: StoredTrigger): TriggerRecord;
  private opened(doc: StoredTrigger | null): TriggerRecord | null;
  private opened(doc: StoredTrigger | null): TriggerRecord | null {
    if (doc === null || doc.sealedFormData === undefined) return doc;
    const { sealedFormData, ...rest } = doc;
    let plain: string;
    try {
      plain = this.secrets.open(sealedFormData);
    } catch (err) {
      throw new AppError('INTERNAL', `The formData of trigger "${doc.name}" cannot be opened; was NAP_SECRET_KEY changed?`, { cause: err });
    }
    return { ...rest, formData: JSON.parse(plain) as Record<string, unknown> };
  }

  private openedAll(docs: StoredTrigger[]): TriggerRecord[] {
    return docs.map((doc) => this.opened(doc));
  }

  /**
   * Seals the secrets of triggers an earlier release stored with their formData in clear (see
   * {@link StoredTrigger}): each is written again only if it did not change meanwhile. How many were.
   */
  async sealStoredSecrets(): Promise<number> {
    let count = 0;
    // triggers are few; a filter the embedded store decides without its full query engine
    for (const doc of await this.triggers.find({ sealedFormData: { $exists: false } })) {
      const { formData, sealedFormData } = this.sealed(doc);
      if (sealedFormData === undefined) continue;
      const changed = await this.triggers.updateOne(
        {
          _id: doc._id,
          sealedFormData: { $exists: false },
          ...(doc.lastUpdated !== undefined ? { lastUpdated: { $eq: doc.lastUpdated } } : {}),
        },
        { $set: { formData, sealedFormData } },
      );
      count += changed.modifiedCount;
    }
    return count;
  }

  async insert(doc: TriggerRecord): Promise<TriggerRecord> {
    try {
      return this.opened(await this.triggers.insertOne(this.sealed(doc)));
    } catch (err) {
      throw await this.duplicate(err, doc);
    }
  }

  /**
   * Writes `doc`, an update of the stored trigger `existing` (read before it), and answers the trigger
   * as stored then; null when it is gone. The members of the update are written; what the schedule
   * runner writes (the due times fired, its claim, when the trigger last started a job) is left as
   * the runner left it meanwhile, unless the update moved the due time itself (a new timing, or
   * enabled again): then its due times are written and a claim under way is dropped, so the runner
   * cannot move the old timing on over the new one.
   */
  async update(existing: TriggerRecord, doc: TriggerRecord): Promise<TriggerRecord | null> {
    const set: Record<string, unknown> = {};
    const unset: Record<string, ''> = {};
    const stored: Record<string, unknown> = this.sealed(doc);
    for (const [key, value] of Object.entries(stored))
      if (key !== '_id' && value !== undefined && !RUNNER_MEMBERS.has(key)) set[key] = value;
    for (const key of [...Object.keys(existing), 'sealedFormData'])
      if (stored[key] === undefined && !RUNNER_MEMBERS.has(key)) unset[key] = '';
    if (doc.nextRunAt !== existing.nextRunAt || doc.lastRunAt !== existing.lastRunAt) {
      set.nextRunAt = doc.nextRunAt;
      set.lastRunAt = doc.lastRunAt;
      unset.fire = '';
    }
    try {
      return this.opened(
        await this.triggers.findOneAndUpdate(
          { _id: doc._id },
          Object.keys(unset).length > 0 ? { $set: set, $unset: unset } : { $set: set },
          { returnDocument: 'after' },
        ),
      );
    } catch (err) {
      throw await this.duplicate(err, doc);
    }
  }

  /**
   * A duplicate key said as what clashed: the route name of another endpoint trigger (named, with
   * what to do), else the id. Any other error as it is.
   */
  private async duplicate(err: unknown, doc: TriggerRecord): Promise<unknown> {
    if (!hasCode(err, 'STORE_DUPLICATE_KEY')) return err;
    const route = doc.type === 'endpoint' && typeof doc.routeName === 'string' ? await this.findEndpoint(doc.routeName) : null;
    if (route !== null && route._id !== doc._id)
      return new AppError(
        'TRIGGER_ALREADY_EXISTS',
        `The route name "${String(doc.routeName)}" is taken by endpoint trigger "${route.name}" (${route._id}): give body.routeName another value`,
        { cause: err },
      );
    return new AppError('TRIGGER_ALREADY_EXISTS', `A trigger with id "${doc._id}" exists`, { cause: err });
  }

  async findById(id: string): Promise<TriggerRecord | null> {
    return this.opened(await this.triggers.findOne({ _id: id }));
  }

  /** The trigger with this id; 404 TRIGGER_NOT_FOUND otherwise. */
  async get(id: string): Promise<TriggerRecord> {
    const found = await this.findById(id);
    if (found === null) throw new AppError('TRIGGER_NOT_FOUND', `No trigger with id "${id}"`);
    return found;
  }

  async findEndpoint(routeName: string): Promise<TriggerRecord | null> {
    return this.opened(await this.triggers.findOne({ type: 'endpoint', routeName: { $eq: routeName } }));
  }

  /** A page of triggers as stored, for answers: formData masked, its secrets left sealed (never opened for a list). */
  async page(query: ListQuery): Promise<{ items: TriggerRecord[]; total: number }> {
    const [items, total] = await Promise.all([
      this.triggers.find(query.filter, { sort: query.sort, skip: query.skip, limit: query.limit }),
      this.triggers.countDocuments(query.filter),
    ]);
    // a page is answered, and answers mask: its secrets stay sealed (what it holds of them is masked already)
    return { items: items.map(({ sealedFormData: _sealed, ...shown }) => shown), total };
  }

  /** Enabled triggers matching `filter` (event triggers, schedules due). */
  async enabled(filter: Filter): Promise<TriggerRecord[]> {
    return this.openedAll(await this.triggers.find({ ...filter, enabled: true }));
  }

  async delete(id: string): Promise<number> {
    return this.triggers.deleteOne({ _id: id });
  }

  /** The triggers of an automation, oldest first. */
  async ofAction(actionId: string): Promise<TriggerRecord[]> {
    return this.openedAll(await this.triggers.find({ actionId: { $eq: actionId } }, { sort: { created: 1, _id: 1 } }));
  }

  /**
   * Gives trigger `id` the identity `runAs` (none when undefined: it acts as the platform, as one
   * stored without it did) if it still acts as `from` (its `runAs.id`, or none): whether it did.
   * Nothing else of it changes.
   */
  async setRunAs(id: string, from: string | undefined, runAs: Caller | undefined): Promise<boolean> {
    const filter = from === undefined ? { _id: id, 'runAs.id': { $exists: false } } : { _id: id, 'runAs.id': { $eq: from } };
    const update = runAs === undefined ? { $unset: { runAs: '' } } : { $set: { runAs } };
    return (await this.triggers.updateOne(filter, update)).modifiedCount > 0;
  }

  async deleteByAction(actionId: string): Promise<number> {
    return this.triggers.deleteMany({ actionId: { $eq: actionId } });
  }

  /** Records when a trigger last started a job. */
  async markExecuted(id: string, at: number): Promise<void> {
    await this.triggers.updateOne({ _id: id }, { $set: { lastExecuted: at }, $unset: { lastError: '' } });
  }

  /** Records why the trigger could not start its automation on its own (a schedule's due time, an event): answered as `lastError`. */
  async markFailed(id: string, error: TriggerError): Promise<void> {
    await this.triggers.updateOne({ _id: id }, { $set: { lastError: error } });
  }

  // ---- schedules ------------------------------------------------------------------------------

  /** Ids of enabled schedules due at `now` whose due time nobody holds (or whose holder's claim expired before `expiredBefore`). */
  dueSchedules(now: number, expiredBefore: number, limit = 100): Promise<string[]> {
    return this.claims.due(SCHEDULES, now, expiredBefore, limit);
  }

  /**
   * Claims the due time of a schedule for `serverId` (atomic): only when it is still due, enabled,
   * and unclaimed or claimed longer ago than `leaseMs`. The claimed trigger, or null.
   */
  async claimDue(id: string, serverId: string, now: number, leaseMs: number): Promise<TriggerRecord | null> {
    return this.opened(await this.claims.claim(id, SCHEDULES, serverId, now, leaseMs));
  }

  /** Renews this replica's claim while it fires (long runs of missed due times); false when it lost it. */
  renewClaim(id: string, serverId: string, now: number): Promise<boolean> {
    return this.claims.renew(id, serverId, now);
  }

  /**
   * Moves a schedule on after its due times were fired: the next due time, the last one fired, and
   * the claim released; only while `serverId` still holds it and the timing did not change meanwhile.
   */
  advance(id: string, serverId: string, from: number, next: number | null, lastRunAt: number | null): Promise<boolean> {
    const set: Record<string, unknown> = { nextRunAt: next };
    if (lastRunAt !== null) set.lastRunAt = lastRunAt;
    return this.claims.advance(id, serverId, from, set);
  }

  /** Releases a claim without moving on (the replica stops, or firing failed and should be tried again). */
  release(id: string, serverId: string): Promise<void> {
    return this.claims.release(id, serverId);
  }
}
