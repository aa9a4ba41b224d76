import type { JobErrorEntry } from '@nap/contracts';
import type { Collection, Filter, Projection, SortSpec } from '@nap/store';
import { ARCHIVABLE_JOB_STATUSES, hasCode } from '@nap/contracts';
import type { ArchiveCheck, ArchiveCursor } from '../domain/job-archive';
import { ACTIVE_STATUSES, isActiveStatus } from '../domain/job-model';
import { afterToken, keysetAfterJob } from '../domain/job-page';
import { jobsWithinBytes, listValueBytes } from '../domain/job-values';
import type { FinishRequest, JobRecord, JobTask, OutboxEntry } from '../domain/job-model';
import { VALUE_MEMBERS } from './job-sealer';
import type { JobSealer, SealingSource } from './job-sealer';
import type { JobValueRepository } from './job-value-repository';

/** `{ _id, name, status }` of a job: what a reference to another job shows. */
export interface JobSummary {
  _id: string;
  name: string;
  status: string;
}

/** A child job as its parent's childJob task reports it. */
export interface ChildJobSummary extends JobSummary {
  variables: Record<string, unknown>;
  error?: JobErrorEntry[];
}

/** How a page of jobs is read: the filter is built by the domain (`job-query`), never taken from a request as is. */
export interface JobPageQuery {
  /** What the jobs of the list match: `total` counts it. */
  filter: Filter;
  /** `filter` with the keyset position of the page (`after`), when it has one. */
  pageFilter?: Filter;
  sort: SortSpec;
  skip: number;
  limit: number;
  projection?: Projection;
  /** Matches counted at most; past it `total` stops there and `totalExact` is false. */
  countLimit: number;
}

/** A page of jobs: the items, the count of matches (exact up to the count limit), and whether and how to go on. */
export interface JobPageResult<T> {
  items: T[];
  total: number;
  totalExact: boolean;
  /** More jobs follow the page. */
  hasMore: boolean;
  /** The keyset token (`after`) of the next page; null on the last page. */
  nextAfter: string | null;
  /**
   * Set when the page holds fewer jobs than its limit although more match: the bytes of the large
   * values of its jobs reached this many (see `listValueBytes`), and the page stops before the job
   * that would pass them (it holds one job at least).
   */
  cutAtBytes?: number;
}

const ACTIVE = { $in: [...ACTIVE_STATUSES] };

/** What is read of a job to decide whether it may be archived now (see `mayArchive`). */
const ARCHIVE_CHECK_PROJECTION: Projection = { _id: 1, status: 1, lease: 1, outbox: 1, archive: 1, 'metrics.end_time': 1 };

function archiveCheckOf(job: Pick<JobRecord, '_id' | 'status' | 'lease' | 'outbox' | 'archive'>): ArchiveCheck {
  return {
    _id: job._id,
    status: job.status,
    ...(job.lease !== undefined ? { lease: job.lease } : {}),
    ...(job.outbox !== undefined ? { outbox: job.outbox } : {}),
    ...(job.archive !== undefined ? { archive: job.archive } : {}),
  };
}

/** A root job that may go into an archive, with its end time (the order archives take them in). */
export type ArchiveCandidate = ArchiveCheck & { endTime: number };

/** Newest first, as the job lists' default sort (`domain/job-page`), which their indexes serve. */
const RECENT_FIRST: SortSpec = { 'metrics.start_time': -1, _id: -1 };

/** Matches a count kept on a job (events published, steps written): jobs stored before the count existed have none. */
function countIs(count: number): unknown {
  return count === 0 ? { $in: [0, null] } : count;
}

/** The outbox of a job at one moment: its entries, how many events left it before, the job's status. */
export interface OutboxState {
  outbox: OutboxEntry[];
  published: number;
  status: string;
}

const OUTBOX_PROJECTION: Projection = { outbox: 1, eventsPublished: 1, status: 1 };

/**
 * `projection` that also reads `secretInputs`, which tells whether a job holds sealed values (see
 * {@link JobSealer}), and whether that member is to be left out of what is returned (the caller did not ask for it).
 */
function readingSecretInputs(projection: Projection | undefined): { projection: Projection | undefined; strip: boolean } {
  if (projection === undefined) return { projection, strip: false };
  if (Object.values(projection).some((v) => v === 1)) {
    return projection.secretInputs === 1 ? { projection, strip: false } : { projection: { ...projection, secretInputs: 1 }, strip: true };
  }
  if (projection.secretInputs !== 0) return { projection, strip: false };
  const { secretInputs: _left, ...rest } = projection;
  return { projection: rest, strip: true };
}

function outboxState(job: Pick<JobRecord, 'outbox' | 'eventsPublished' | 'status'>): OutboxState {
  return { outbox: job.outbox ?? [], published: job.eventsPublished ?? 0, status: job.status };
}

/**
 * The `jobs` collection: every query and update of job documents, the engine's leases and outbox
 * among them. A job with work for an engine carries that engine's id in `lease` (and, while active,
 * in `metrics.server_id`); every write of a runner is conditional on `metrics.server_id`, so an
 * engine whose job was taken over changes nothing. Events are written in the same update as the
 * state they describe (`$push` to `outbox`) and leave the outbox once the bus acknowledged them.
 * Reads that project return only what they read, typed so. With `values`, large task outputs and
 * variables live in `job_values` (see `domain/job-values`): every write moves them out of the job
 * document and every read that returns them puts them back. With `sealer`, the secret values of
 * jobs that have some are sealed in every write and opened in every read that returns them (see
 * {@link JobSealer}): the store never holds them in clear, and what reads jobs gets them as the
 * engine wrote them. Writes of values made for a job already stored are given that job
 * ({@link SealingSource}: its secrets, as the engine or a handler holds it).
 */
export class JobRepository {
  constructor(
    private readonly jobs: Collection<JobRecord>,
    private readonly values?: JobValueRepository,
    private readonly sealer?: JobSealer,
  ) {}

  /** Puts the large values of jobs (or projections of them) back in place, and opens their sealed values. */
  private async resolved<T extends { variables?: unknown; tasks?: unknown }>(docs: T[], stripSecretInputs = false): Promise<T[]> {
    const out = this.values ? await this.values.resolve(docs) : docs;
    if (this.sealer === undefined) return out;
    for (const doc of out) {
      if (doc === null || doc === undefined) continue;
      const record = doc as Record<string, unknown>;
      this.sealer.openJob(record);
      if (stripSecretInputs) delete record.secretInputs;
    }
    return out;
  }

  /** `projection` as a read that returns values makes it (see {@link readingSecretInputs}); as given without a sealer. */
  private reading(projection: Projection | undefined): { projection: Projection | undefined; strip: boolean } {
    return this.sealer === undefined ? { projection, strip: false } : readingSecretInputs(projection);
  }

  /** `set`, a write of values to job `job`, with its secret values sealed (see {@link JobSealer}). */
  private sealedSet(job: SealingSource | undefined, set: Record<string, unknown>): Record<string, unknown> {
    return this.sealer === undefined || job === undefined ? set : this.sealer.sealSet(job, set);
  }

  /**
   * {@link sealedSet} of a step of the engine. A job that had no secrets and now writes a member of a
   * secret name (a task's output with a `token`, a variable a task set) takes an empty `secretInputs`,
   * in the store and in `job` as the engine holds it: from this write on, its writes are sealed.
   */
  private sealedStep(job: SealingSource | undefined, set: Record<string, unknown>): Record<string, unknown> {
    if (this.sealer === undefined || job === undefined) return set;
    if (job.secretInputs === undefined) {
      if (!this.sealer.holdsSecretMember(set)) return set;
      job.secretInputs = [];
    }
    // a job that took its secrets during its run says so with each write: a write refused and made
    // again carries it too, so the store never holds a sealed value of a job it does not open
    return this.sealer.sealSet(job, job.secretInputs.length === 0 ? { ...set, secretInputs: [] } : set);
  }

  private async resolvedOne<T extends { variables?: unknown; tasks?: unknown }>(doc: T | null): Promise<T | null> {
    if (doc === null) return null;
    const [out] = await this.resolved([doc]);
    return out ?? null;
  }

  private async outOfLine(jobId: string, set: Record<string, unknown>, inlineBytes?: number): Promise<Record<string, unknown>> {
    return this.values ? this.values.externalizeSet(jobId, set, inlineBytes) : set;
  }

  /** Stores a new job. */
  async insert(job: JobRecord): Promise<void> {
    const sealed = this.sealer ? this.sealer.sealJob(job) : job;
    // only the id back: a job-sized copy for an answer nobody reads is most of what an insert costs
    await this.jobs.insertOneId(this.values ? await this.values.externalizeJob(sealed) : sealed);
  }

  /** The job, or null when there is none with this id. */
  async findById(jobId: string): Promise<JobRecord | null> {
    return this.resolvedOne(await this.jobs.findOne({ _id: jobId }));
  }

  /** `{ _id, name, status }` of a job, or undefined when there is none with this id. */
  async summaryOf(jobId: string): Promise<JobSummary | undefined> {
    const found = await this.jobs.findOne({ _id: jobId }, { projection: { _id: 1, name: 1, status: 1 } });
    return found === null ? undefined : { _id: found._id, name: found.name, status: found.status };
  }

  /** The jobs with these ids that exist. */
  async findByIds(ids: string[]): Promise<JobRecord[]> {
    return this.resolved(await this.jobs.find({ _id: { $in: ids } }));
  }

  /** The status of a job, or undefined when there is none with this id. */
  async statusOf(jobId: string): Promise<string | undefined> {
    const found = await this.jobs.findOne({ _id: jobId }, { projection: { status: 1 } });
    return found?.status;
  }

  // ---- leases -----------------------------------------------------------------------------------

  /** The jobs whose lease engine `serverId` holds, with their status (at most `limit`). */
  async leasedTo(serverId: string, limit: number): Promise<{ _id: string; status: string }[]> {
    const found = await this.jobs.find({ lease: serverId }, { projection: { _id: 1, status: 1 }, limit });
    return found.map((j) => ({ _id: j._id, status: j.status }));
  }

  /** The engine that holds the lease of a job; undefined when the job has none (it ended) or does not exist. */
  async leaseOf(jobId: string): Promise<string | undefined> {
    const found = await this.jobs.findOne({ _id: jobId }, { projection: { lease: 1 } });
    return found?.lease;
  }

  /** The engines that hold leases of jobs (looked at in `limit` jobs at most). */
  async leaseHolders(limit: number): Promise<Set<string>> {
    const found = await this.jobs.find({ lease: { $gt: '' } }, { projection: { lease: 1 }, limit });
    return new Set(found.flatMap((j) => (typeof j.lease === 'string' ? [j.lease] : [])));
  }

  /** Gives active jobs stored without a lease (by an earlier release) the lease of the engine that runs them. */
  async leaseUnleased(limit: number): Promise<void> {
    const found = await this.jobs.find({ status: ACTIVE, lease: { $exists: false } }, { projection: { _id: 1, metrics: 1 }, limit });
    for (const job of found) {
      const holder = job.metrics?.server_id ?? '';
      await this.jobs.updateOne({ _id: job._id, lease: { $exists: false } }, { $set: { lease: holder } });
    }
  }

  /**
   * Moves the lease of a job from engine `from` to `to` at `now` (atomic); an active job also gets
   * `to` as its `metrics.server_id`, which fences every later write of `from`. The job after the
   * move, or null when `from` no longer holds it.
   */
  async takeLease(jobId: string, from: string, to: string, now: number): Promise<JobRecord | null> {
    const active = await this.jobs.findOneAndUpdate(
      { _id: jobId, lease: from, status: ACTIVE },
      { $set: { lease: to, 'metrics.server_id': to, 'metrics.claim_time': now } },
      { returnDocument: 'after' },
    );
    if (active !== null) return this.resolvedOne(active);
    return this.resolvedOne(
      await this.jobs.findOneAndUpdate({ _id: jobId, lease: from }, { $set: { lease: to } }, { returnDocument: 'after' }),
    );
  }

  /**
   * Writes a runner's changes (`$set` by path) and its events while `serverId` still owns the active
   * job, counting one more step: the write is made only while the job's count of steps is `steps`
   * (the count before it), so a write whose answer was lost is never applied twice, and
   * {@link stepsOf} tells whether it was. With events, the job's outbox as this update left it (for
   * the relay, which then need not read it back); `true` without events; false when the engine no
   * longer owns the job (or the count moved). `options.job` is the job as the engine holds it, whose
   * secrets the write seals. Events are written as they are: their payloads hold no variables or
   * task values (names, statuses, times, and error entries, whose secrets the engine masked).
   */
  async writeClaimed(
    jobId: string,
    serverId: string,
    changes: Record<string, unknown>,
    events: OutboxEntry[],
    options: { steps: number; inlineBytes?: number; job?: SealingSource },
  ): Promise<OutboxState | boolean> {
    const set = await this.outOfLine(jobId, this.sealedStep(options.job, changes), options.inlineBytes);
    set.steps = options.steps + 1;
    const filter = { _id: jobId, 'metrics.server_id': serverId, status: ACTIVE, steps: countIs(options.steps) };
    if (events.length === 0) return (await this.jobs.updateOne(filter, { $set: set })).matchedCount > 0;
    const after = await this.jobs.findOneAndUpdate(
      filter,
      { $set: set, $push: { outbox: { $each: events } } },
      { returnDocument: 'after', projection: OUTBOX_PROJECTION },
    );
    return after === null ? false : outboxState(after);
  }

  /**
   * How many steps of the job are stored, with its status and owner (what a runner reads after a
   * write of its whose outcome it did not learn); null when there is no such job.
   */
  async stepsOf(jobId: string): Promise<{ steps: number; status: string; serverId?: string } | null> {
    const found = await this.jobs.findOne({ _id: jobId }, { projection: { steps: 1, status: 1, 'metrics.server_id': 1 } });
    if (found === null) return null;
    const serverId = found.metrics?.server_id;
    return { steps: found.steps ?? 0, status: found.status, ...(serverId === undefined ? {} : { serverId }) };
  }

  /**
   * Ends an active job that `serverId` owns in error with `entry`, writing `event` with it, in one
   * small update (for a job whose next step cannot be written); false when the engine no longer owns it.
   */
  async failActive(jobId: string, serverId: string, entry: JobErrorEntry, now: number, event: OutboxEntry): Promise<boolean> {
    const res = await this.jobs.updateOne(
      { _id: jobId, 'metrics.server_id': serverId, status: ACTIVE },
      {
        $set: { status: 'error', 'metrics.end_time': now, 'metrics.finish_state': 'error', last_updated: new Date(now).toISOString() },
        $push: { error: entry, outbox: event },
      },
    );
    return res.matchedCount > 0;
  }

  // ---- outbox ---------------------------------------------------------------------------------

  /** What the outbox of a job holds, with the count of acknowledged events and the job's status; null when there is no such job. */
  async outboxOf(jobId: string): Promise<OutboxState | null> {
    const found = await this.jobs.findOne({ _id: jobId }, { projection: OUTBOX_PROJECTION });
    return found === null ? null : outboxState(found);
  }

  /**
   * Removes the first events of the outbox, `ids`, which the bus acknowledged, and counts them as
   * published, unless another publisher did so first (the count is no longer `published`).
   * `outbox` is the outbox as the caller knows it (it starts with `ids`): when the job's outbox still
   * has that length, what follows `ids` is set in one plain `$set`; when other writers appended
   * since, the entries are pulled by id instead (they are still the outbox's first ones).
   */
  async ackOutbox(jobId: string, published: number, ids: string[], outbox: OutboxEntry[]): Promise<boolean> {
    const count = { eventsPublished: published + ids.length };
    const unchanged = await this.jobs.updateOne(
      { _id: jobId, eventsPublished: countIs(published), outbox: { $size: outbox.length } },
      { $set: { outbox: outbox.slice(ids.length), ...count } },
    );
    if (unchanged.matchedCount > 0) return true;
    const res = await this.jobs.updateOne(
      { _id: jobId, eventsPublished: countIs(published) },
      { $pull: { outbox: { id: { $in: ids } } }, $set: count },
    );
    return res.matchedCount > 0;
  }

  /**
   * For a job that ended: removes its last events, `ids` (the whole outbox as read), counts them as
   * published and ends its lease, in one update; false when anything changed since the outbox was
   * read (another publisher, a new event, the job running again), which `ackOutbox` then handles.
   */
  async ackLastEvents(jobId: string, published: number, ids: string[]): Promise<boolean> {
    const res = await this.jobs.updateOne(
      { _id: jobId, eventsPublished: countIs(published), status: { $nin: [...ACTIVE_STATUSES] }, outbox: { $size: ids.length } },
      { $set: { outbox: [], eventsPublished: published + ids.length }, $unset: { lease: '' } },
    );
    return res.matchedCount > 0;
  }

  /** Ends the lease of a job that ended and whose events are all out. */
  async releaseLease(jobId: string): Promise<void> {
    await this.jobs.updateOne(
      { _id: jobId, status: { $nin: [...ACTIVE_STATUSES] }, 'outbox.0': { $exists: false } },
      { $unset: { lease: '' } },
    );
  }

  // ---- job control ----------------------------------------------------------------------------

  /** Cancels `job` (as read) and its running or pending tasks, at `now`, if it is still active, writing `event` with it; false when it is not. */
  async cancel(job: JobRecord, by: string, now: number, event: OutboxEntry): Promise<boolean> {
    const set: Record<string, unknown> = {
      status: 'canceled',
      'metrics.end_time': now,
      'metrics.run_time': now - (job.metrics?.start_time ?? now),
      'metrics.finish_state': 'canceled',
      last_updated: new Date(now).toISOString(),
      last_updated_by: by,
    };
    for (const [id, task] of Object.entries(job.tasks)) {
      if (task.status === 'running' || task.status === 'pending') {
        set[`tasks.${id}.status`] = 'canceled';
        set[`tasks.${id}.metrics`] = { ...(task.metrics ?? {}), end_time: now, finish_state: 'canceled' };
      }
    }
    const res = await this.jobs.updateOne({ _id: job._id, status: ACTIVE }, { $set: set, $push: { outbox: event } });
    return res.matchedCount > 0;
  }

  /** Ids of the active children of a job. */
  async activeChildIds(parentId: string): Promise<string[]> {
    const found = await this.jobs.find({ 'parent.job': parentId, status: ACTIVE }, { projection: { _id: 1 } });
    return found.map((j) => j._id);
  }

  /** Moves a job from status `from` to `to`, writing `event` with it; the job after the change, or null when it was not in `from`. */
  async changeStatus(jobId: string, from: string, to: string, by: string, event: OutboxEntry): Promise<JobRecord | null> {
    return this.resolvedOne(
      await this.jobs.findOneAndUpdate(
        { _id: jobId, status: from },
        { $set: { status: to, last_updated: new Date().toISOString(), last_updated_by: by }, $push: { outbox: event } },
        { returnDocument: 'after' },
      ),
    );
  }

  /**
   * Leaves a person's answer on a waiting manual task for its owner to apply; the job after, or null
   * when the task is not waiting. `job` is the job as read before (its secrets seal the answer's);
   * a job that had none gets an empty `secretInputs` when the answer holds one (a password): from
   * then on its writes are sealed too.
   */
  async requestFinish(jobId: string, taskId: string, request: FinishRequest, job?: SealingSource): Promise<JobRecord | null> {
    let set: Record<string, unknown> = { [`tasks.${taskId}.finishRequest`]: request };
    if (this.sealer !== undefined && job !== undefined) {
      const secretInputs = job.secretInputs ?? (this.sealer.holdsSecrets(request.variables) ? [] : undefined);
      if (secretInputs !== undefined) {
        set = this.sealer.sealSet({ ...job, secretInputs }, set);
        if (job.secretInputs === undefined) set = { ...set, secretInputs };
      }
    }
    return this.resolvedOne(
      await this.jobs.findOneAndUpdate(
        { _id: jobId, status: ACTIVE, [`tasks.${taskId}.status`]: 'running', [`tasks.${taskId}.finishRequest`]: { $exists: false } },
        { $set: set },
        { returnDocument: 'after' },
      ),
    );
  }

  /**
   * Puts a job in error back to running with `task` replacing task `taskId`, its errors and end
   * cleared, leased to `serverId` at `now`, writing `event` with it; the job after, or null when it
   * is no longer in error. `job` is the job as read before: its secrets seal the task's.
   */
  async restartTask(
    jobId: string,
    taskId: string,
    task: JobTask,
    serverId: string,
    now: number,
    by: string,
    event: OutboxEntry,
    job?: SealingSource,
  ): Promise<JobRecord | null> {
    const stored = await this.outOfLine(jobId, this.sealedSet(job, { [`tasks.${taskId}`]: task }));
    const after = await this.jobs.findOneAndUpdate(
      // a job an archive batch holds no longer changes
      { _id: jobId, status: 'error', archive: { $exists: false } },
      {
        $set: {
          ...stored,
          status: 'running',
          error: [],
          lease: serverId,
          'metrics.server_id': serverId,
          'metrics.claim_time': now,
          last_updated: new Date(now).toISOString(),
          last_updated_by: by,
        },
        $unset: { 'metrics.end_time': '', 'metrics.finish_state': '', 'metrics.run_time': '' },
        $push: { outbox: event },
      },
      { returnDocument: 'after' },
    );
    return this.resolvedOne(after);
  }

  // ---- child jobs -----------------------------------------------------------------------------

  /** Status by id of those of `ids` that exist. */
  async statusesOf(ids: string[]): Promise<Map<string, string>> {
    const found = await this.jobs.find({ _id: { $in: ids } }, { projection: { _id: 1, status: 1 } });
    return new Map(found.map((j) => [j._id, j.status]));
  }

  /**
   * Counts `count` more descendant jobs in the tree of root job `rootId`, in one conditional update,
   * unless the tree would then hold more than `limit` (see {@link JobRecord.treeJobs}); engines
   * counting in one tree at once never pass it together. When refused: the count the tree has, or
   * null when the root job no longer exists.
   */
  async countTreeJobs(rootId: string, count: number, limit: number): Promise<{ counted: true } | { counted: false; total: number | null }> {
    if (count <= limit) {
      const res = await this.jobs.updateOne(
        { _id: rootId, $or: [{ treeJobs: { $exists: false } }, { treeJobs: { $lte: limit - count } }] },
        { $inc: { treeJobs: count } },
      );
      if (res.matchedCount > 0) return { counted: true };
    }
    // a root job that counted none yet holds no treeJobs: its total is 0, null only when it is gone
    const root = await this.jobs.findOne({ _id: rootId }, { projection: { treeJobs: 1 } });
    return { counted: false, total: root === null ? null : (root.treeJobs ?? 0) };
  }

  /** Those of `ids` that exist, as a childJob task reports them. */
  async childSummaries(ids: string[]): Promise<ChildJobSummary[]> {
    const found = await this.resolved(
      await this.jobs.find(
        { _id: { $in: ids } },
        { projection: { _id: 1, name: 1, status: 1, variables: 1, error: 1, ...(this.sealer ? { secretInputs: 1 } : {}) } },
      ),
    );
    return found.map((j) => ({
      _id: j._id,
      name: j.name,
      status: j.status,
      variables: j.variables,
      ...(j.error !== undefined ? { error: j.error } : {}),
    }));
  }

  // ---- reads of the operations manager --------------------------------------------------------

  /** A page of whole jobs, the count of those that match and how to go on (see {@link page}). */
  list(query: Omit<JobPageQuery, 'projection'>): Promise<JobPageResult<JobRecord>> {
    return this.readPage(query);
  }

  /**
   * A page of jobs with only the projected members, as plain objects, the count of those that
   * match (up to `countLimit`) and how to go on. One more job than the page is read to tell whether
   * more follow; the keyset token of the next page is made from the last job's sort values.
   */
  page(query: JobPageQuery): Promise<JobPageResult<Record<string, unknown>>> {
    return this.readPage(query);
  }

  private async readPage(query: JobPageQuery): Promise<JobPageResult<JobRecord>> {
    const { projection, strip } = this.reading(query.projection);
    const options = {
      sort: query.sort,
      skip: query.skip,
      limit: query.limit + 1,
      ...(projection ? { projection } : {}),
    };
    const [found, counted] = await Promise.all([
      this.jobs.find(query.pageFilter ?? query.filter, options),
      this.jobs.countDocuments(query.filter, { limit: query.countLimit + 1 }),
    ]);
    let items = found.length > query.limit ? found.slice(0, query.limit) : found;
    // jobs whose large values would make the page larger than any answer can carry wait for the next page
    const budget = this.listBytes();
    const fitting = budget === undefined ? items.length : jobsWithinBytes(items, budget);
    const cut = fitting < items.length;
    if (cut) items = items.slice(0, fitting);
    const hasMore = found.length > query.limit || cut;
    const last = items[items.length - 1];
    let nextAfter: string | null = null;
    if (hasMore && last !== undefined) {
      // the page may be projected without its sort fields: read them from the job itself
      const fields: Projection = Object.fromEntries(Object.keys(query.sort).map((f) => [f, 1] as const));
      const keyed = await this.jobs.findOne({ _id: last._id }, { projection: { ...fields, _id: 1 } });
      nextAfter = (keyed && afterToken(keyed, query.sort)) ?? null;
    }
    return {
      items: await this.resolved(items, strip),
      total: Math.min(counted, query.countLimit),
      totalExact: counted <= query.countLimit,
      hasMore,
      nextAfter,
      ...(cut && budget !== undefined ? { cutAtBytes: budget } : {}),
    };
  }

  /** The bytes of large values a list of jobs reads back at once at most; undefined without `values`. */
  private listBytes(): number | undefined {
    return this.values === undefined ? undefined : listValueBytes(this.values.limits);
  }

  /** `{ _id, name, status }` by id of those of `ids` that exist. */
  async summaries(ids: string[]): Promise<Map<string, JobSummary>> {
    const found = await this.jobs.find({ _id: { $in: ids } }, { projection: { _id: 1, name: 1, status: 1 } });
    return new Map(found.map((j) => [j._id, { _id: j._id, name: j.name, status: j.status }]));
  }

  // ---- reads of the operator routes (metrics, tasks) ------------------------------------------

  /**
   * Every job matching `filter`, in batches of `batch` by id, with only the projected members: a
   * scan of the whole store that holds one batch in memory at a time (the metrics routes).
   */
  async *scan(
    filter: Filter,
    projection: Projection,
    batch = 500,
    options: { values?: boolean } = {},
  ): AsyncGenerator<Record<string, unknown>[]> {
    const reading = this.reading({ ...projection, _id: 1 });
    let after: string | undefined;
    for (;;) {
      const page: Record<string, unknown>[] = await this.jobs.find(
        after === undefined ? filter : { $and: [filter, { _id: { $gt: after } }] },
        { sort: { _id: 1 }, limit: batch, ...(reading.projection ? { projection: reading.projection } : {}) },
      );
      if (page.length === 0) return;
      if (options.values === false) {
        if (reading.strip) for (const job of page) delete job.secretInputs;
        yield page;
      } else yield await this.resolved(page, reading.strip);
      const last = page[page.length - 1]?._id;
      if (page.length < batch || typeof last !== 'string') return;
      after = last;
    }
  }

  /**
   * The jobs matching `filter`, most recently started first, in batches of at most `batch` (and at
   * most `limit` in all), with the projected members (and `_id` and the start time). Each batch is
   * read from the index right after the last job of the one before (keyset, as the job lists'
   * `after`), so a batch costs the same however deep, and only one is held in memory at a time.
   */
  async *newestFirst(
    filter: Filter,
    projection: Projection,
    options: { batch: number; limit?: number },
  ): AsyncGenerator<Record<string, unknown>[]> {
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    const reading = this.reading({ ...projection, _id: 1, 'metrics.start_time': 1 });
    const fields = reading.projection ?? {};
    let read = 0;
    let after: Filter | undefined;
    while (read < limit) {
      const size = Math.min(options.batch, limit - read);
      const found: Record<string, unknown>[] = await this.jobs.find(after === undefined ? filter : { $and: [filter, after] }, {
        sort: RECENT_FIRST,
        limit: size,
        projection: fields,
      });
      if (found.length === 0) return;
      read += found.length;
      const last = found[found.length - 1];
      // read back a part of the batch at a time: a batch of jobs that copy large values holds many times what the store does
      const budget = this.listBytes();
      for (let rest = found; rest.length > 0;) {
        const part = budget === undefined ? rest.length : jobsWithinBytes(rest, budget);
        yield await this.resolved(rest.slice(0, part), reading.strip);
        rest = rest.slice(part);
      }
      if (found.length < size || last === undefined) return;
      after = keysetAfterJob(last, RECENT_FIRST);
      // a start time that is neither a number nor text has no place in the index order to go on from
      if (after === undefined) throw new Error(`job ${String(last._id)} has a start time that cannot be paged from`);
    }
  }

  /**
   * Gives the jobs stored before `visibleTo` existed their tokens (`tokensOf`), a batch at a time
   * (found through the visibleTo index, where they have none); how many. Run at start: once every
   * job has them it reads one index key.
   */
  async backfillVisibleTo(tokensOf: (job: Pick<JobRecord, 'groups' | 'metrics' | 'runAs'>) => string[], batch = 500): Promise<number> {
    let updated = 0;
    for (;;) {
      const found = await this.jobs.find(
        { visibleTo: null },
        { sort: RECENT_FIRST, limit: batch, projection: { _id: 1, groups: 1, metrics: 1, runAs: 1 } },
      );
      for (const job of found) {
        const res = await this.jobs.updateOne({ _id: job._id, visibleTo: null }, { $set: { visibleTo: tokensOf(job) } });
        updated += res.modifiedCount;
      }
      if (found.length < batch) return updated;
    }
  }

  /**
   * One batch of the sealing of jobs stored before job sealing (see {@link JobSealer.resealStored}):
   * the jobs not held by an archive whose ids follow `after` (at most `limit`, in id order), each
   * finished one whose store holds a secret in clear written again sealed, with its large values.
   * Each write is made only while the job is as it was read (its status, count of steps, last
   * update, no archive mark): a write, restart, archive or delete since wins, and the job is left to
   * it. What was read and sealed, and the last id read (where the next batch starts); `unreadable`
   * counts the jobs that cannot be read whole (a sealed value this key does not open, a large value
   * missing), left as they are; `waiting` names the jobs to seal once they are done
   * ({@link sealStoredJobs}): those read running or paused, whose engine writes only what a step
   * changes, and those changed between their read and their write.
   */
  async sealStoredBatch(
    after: string | undefined,
    limit: number,
  ): Promise<{ read: number; sealed: number; unreadable: number; last: string | undefined; waiting: string[] }> {
    // every job of the range, active ones too, each read once: none is missed by changing status between two reads
    const found = await this.jobs.find(
      { archive: { $exists: false }, ...(after === undefined ? {} : { _id: { $gt: after } }) },
      { sort: { _id: 1 }, limit },
    );
    const waiting = found.filter((job) => isActiveStatus(job.status)).map((job) => job._id);
    const counts = await this.sealEach(
      found.filter((job) => !isActiveStatus(job.status)),
      waiting,
    );
    return { read: found.length, ...counts, last: found[found.length - 1]?._id, waiting };
  }

  /**
   * The jobs of `ids` that {@link sealStoredBatch} left waiting, sealed as it seals them once they are
   * finished. Their statuses are read first (small), and only the finished ones whole. What was
   * sealed, and `waiting`: those still running or paused, or changed or restarted since their status
   * was read (looked at again later); the others are settled (sealed, nothing in clear, unreadable
   * and counted so, held by an archive, gone).
   */
  async sealStoredJobs(ids: string[]): Promise<{ sealed: number; unreadable: number; waiting: string[] }> {
    const states = await this.jobs.find({ _id: { $in: ids } }, { projection: { _id: 1, status: 1, archive: 1 } });
    const waiting: string[] = [];
    const finished = new Set<string>();
    for (const job of states) {
      if (job.archive !== undefined) continue;
      if (isActiveStatus(job.status)) waiting.push(job._id);
      else finished.add(job._id);
    }
    if (finished.size === 0) return { sealed: 0, unreadable: 0, waiting };
    const found = await this.jobs.find(
      { _id: { $in: [...finished] }, status: { $in: [...ARCHIVABLE_JOB_STATUSES] }, archive: { $exists: false } },
      { sort: { _id: 1 } },
    );
    for (const job of found) finished.delete(job._id);
    // restarted (or archived) since its status was read: the next look tells
    waiting.push(...finished);
    return { ...(await this.sealEach(found, waiting)), waiting };
  }

  /** Seals each of `jobs` (finished, as read: {@link sealStored}), adding those changed since their read to `waiting`. */
  private async sealEach(jobs: JobRecord[], waiting: string[]): Promise<{ sealed: number; unreadable: number }> {
    let sealed = 0;
    let unreadable = 0;
    for (const job of jobs) {
      const outcome = await this.sealStored(job);
      if (outcome === 'sealed') sealed++;
      else if (outcome === 'unreadable') unreadable++;
      else if (outcome === 'changed') waiting.push(job._id);
    }
    return { sealed, unreadable };
  }

  /** What the sealing of a finished job came to: `changed` when another write came between its read and its write (which then wins). */
  private async sealStored(stored: JobRecord): Promise<'sealed' | 'unreadable' | 'changed' | undefined> {
    if (this.sealer === undefined) return undefined;
    const refs = this.values?.refsOf(stored) ?? new Set<string>();
    let job: JobRecord | undefined;
    try {
      if (refs.size > 0) await this.values?.resolve([stored]);
      job = this.sealer.resealStored(stored);
    } catch (err) {
      if (hasCode(err, 'INTERNAL')) return 'unreadable';
      throw err;
    }
    if (job === undefined) return undefined;
    const filter: Filter = {
      _id: stored._id,
      status: stored.status,
      archive: { $exists: false },
      steps: countIs(stored.steps ?? 0),
      last_updated: stored.last_updated === undefined ? { $exists: false } : stored.last_updated,
    };
    let written: Record<string, unknown>;
    let matched: number;
    try {
      written = await this.storedValues(job);
      matched = (await this.jobs.updateOne(filter, { $set: written })).matchedCount;
    } catch (err) {
      if (this.values === undefined || !hasCode(err, 'STORE_DOCUMENT_TOO_LARGE')) throw err;
      // as the engine does for a job that grew too large: every value out of the document
      written = await this.storedValues(job, 0);
      matched = (await this.jobs.updateOne(filter, { $set: written })).matchedCount;
    }
    if (matched === 0) return 'changed';
    if (this.values !== undefined && refs.size > 0) {
      // the values in clear the job referred to before (the sealed ones are stored under other ids)
      const kept = this.values.refsOf(written);
      await this.values.deleteValues([...refs].filter((id) => !kept.has(id)));
    }
    return 'sealed';
  }

  /** The `$set` of the members of `job` (sealed) that hold values, and its `secretInputs`, its large values stored first. */
  private async storedValues(job: JobRecord, inlineBytes?: number): Promise<Record<string, unknown>> {
    const doc = this.values ? await this.values.externalizeJob(job, inlineBytes) : job;
    const set: Record<string, unknown> = { secretInputs: job.secretInputs ?? [] };
    for (const member of VALUE_MEMBERS) if (doc[member] !== undefined) set[member] = doc[member];
    return set;
  }

  /** Who may see each of the jobs that exist among `ids`: groups, owner and initiator. */
  accessOf(ids: string[]): Promise<Pick<JobRecord, '_id' | 'groups' | 'metrics' | 'runAs'>[]> {
    return this.jobs.find({ _id: { $in: ids } }, { projection: { _id: 1, groups: 1, metrics: 1, runAs: 1 } });
  }

  /**
   * What decides whether an event of the job may fire an event trigger: who may see the job, the
   * triggers that led to it, and its ancestors (a child job's chain is its root's); null when it does not exist.
   */
  async firingContextOf(
    id: string,
  ): Promise<Pick<JobRecord, '_id' | 'groups' | 'metrics' | 'runAs' | 'triggerChain' | 'ancestors'> | null> {
    const [found] = await this.jobs.find(
      { _id: id },
      { projection: { _id: 1, groups: 1, 'metrics.owner': 1, runAs: 1, triggerChain: 1, ancestors: 1 }, limit: 1 },
    );
    return found ?? null;
  }

  // ---- archiving (see engine/job-archiver) -------------------------------------------------------

  /**
   * Root jobs in one of `statuses` that ended before `before`, not held by an archive, in order of
   * end time then id, after `cursor` (at most `limit`), with what decides whether each may leave now.
   */
  async archiveCandidates(
    before: number,
    statuses: readonly string[],
    cursor: ArchiveCursor | null,
    limit: number,
  ): Promise<ArchiveCandidate[]> {
    const base = { status: { $in: [...statuses] }, parent: { $exists: false }, archive: { $exists: false } };
    const options = { projection: ARCHIVE_CHECK_PROJECTION, limit };
    const found: JobRecord[] = [];
    if (cursor !== null)
      found.push(
        ...(await this.jobs.find(
          { ...base, 'metrics.end_time': cursor.endTime, _id: { $gt: cursor.id } },
          { ...options, sort: { _id: 1 } },
        )),
      );
    if (found.length < limit) {
      const endTime = cursor === null ? { $lt: before } : { $gt: cursor.endTime, $lt: before };
      found.push(
        ...(await this.jobs.find(
          { ...base, 'metrics.end_time': endTime },
          { ...options, limit: limit - found.length, sort: { 'metrics.end_time': 1, _id: 1 } },
        )),
      );
    }
    return found.map((j) => ({ ...archiveCheckOf(j), endTime: j.metrics?.end_time ?? 0 }));
  }

  /** Every job below `rootIds` (their children, the children's children…), with what decides whether each may leave now. */
  async descendantsOf(rootIds: string[]): Promise<(ArchiveCheck & { parent: string })[]> {
    const out: (ArchiveCheck & { parent: string })[] = [];
    const seen = new Set(rootIds);
    let level = rootIds;
    while (level.length > 0) {
      const children = await this.jobs.find({ 'parent.job': { $in: level } }, { projection: { ...ARCHIVE_CHECK_PROJECTION, parent: 1 } });
      level = [];
      for (const child of children) {
        if (seen.has(child._id) || child.parent === undefined) continue;
        seen.add(child._id);
        out.push({ ...archiveCheckOf(child), parent: child.parent.job });
        level.push(child._id);
      }
    }
    return out;
  }

  /**
   * Marks with `mark` (an archive batch) those of `ids` that may leave the store now (finished, no
   * events left, no lease, no other mark): from then on they cannot change. Answers the mark each of
   * `ids` carries afterwards (absent: not marked).
   */
  async markForArchive(ids: string[], mark: string): Promise<Map<string, string>> {
    await this.jobs.updateMany(
      {
        _id: { $in: ids },
        status: { $in: [...ARCHIVABLE_JOB_STATUSES] },
        archive: { $exists: false },
        lease: { $exists: false },
        'outbox.0': { $exists: false },
      },
      { $set: { archive: mark } },
    );
    const found = await this.jobs.find({ _id: { $in: ids } }, { projection: { _id: 1, archive: 1 } });
    return new Map(found.flatMap((j) => (typeof j.archive === 'string' ? [[j._id, j.archive] as const] : [])));
  }

  /** Takes the mark `mark` off those of `ids` that carry it (a family that could not be marked whole). */
  async unmarkArchive(ids: string[], mark: string): Promise<void> {
    if (ids.length > 0) await this.jobs.updateMany({ _id: { $in: ids }, archive: mark }, { $unset: { archive: '' } });
  }

  /** Removes those of `ids` that carry the mark `mark` (written to their archive), and their large values; how many jobs went. */
  async removeArchived(ids: string[], mark: string): Promise<number> {
    if (ids.length === 0) return 0;
    // the jobs first: a job never refers to a value that is gone
    const removed = await this.jobs.deleteMany({ _id: { $in: ids }, archive: mark });
    await this.values?.deleteOfJobs(ids);
    this.sealer?.forget(ids);
    return removed;
  }

  /** Every job stored, whatever its status, from the store's own count (no job is read; see `estimatedCount`). */
  countAll(): Promise<number> {
    return this.jobs.estimatedCount();
  }

  /** How many jobs are in `status`, or in any of `status` when it lists several (the metrics' gauges). */
  countByStatus(status: string | readonly string[]): Promise<number> {
    return this.jobs.countDocuments({ status: typeof status === 'string' ? status : { $in: [...status] } });
  }
}
