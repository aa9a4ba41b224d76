import type { JobErrorEntry } from '@nap/contracts';
import type { Collection, Filter, Projection, SortSpec } from '@nap/store';
import { ACTIVE_STATUSES } from '../domain/job-model';
import type { FinishRequest, JobRecord, JobTask } from '../domain/job-model';

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
  filter: Filter;
  sort: SortSpec;
  skip: number;
  limit: number;
  projection?: Projection;
}

const ACTIVE = { $in: [...ACTIVE_STATUSES] };

/**
 * The `jobs` collection: every query and update of job documents, the engine's claims among them.
 * A job is owned by one engine (`metrics.server_id`) while its claim (`metrics.claim_time`, epoch
 * ms) is renewed; every write of a runner is conditional on that claim, so an engine that lost a job
 * changes nothing. Reads that project return only what they read, typed so.
 */
export class JobRepository {
  constructor(private readonly jobs: Collection<JobRecord>) {}

  /** Stores a new job. */
  async insert(job: JobRecord): Promise<void> {
    await this.jobs.insertOne(job);
  }

  /** The job, or null when there is none with this id. */
  findById(jobId: string): Promise<JobRecord | null> {
    return this.jobs.findOne({ _id: jobId });
  }

  /** The status of a job, or undefined when there is none with this id. */
  async statusOf(jobId: string): Promise<string | undefined> {
    const found = await this.jobs.findOne({ _id: jobId }, { projection: { status: 1 } });
    return found?.status;
  }

  // ---- claims ---------------------------------------------------------------------------------

  /** Active jobs whose claim was last renewed before `expiredBefore`, or that name `serverId` (at most `limit`). */
  async claimableIds(serverId: string, expiredBefore: number, limit = 500): Promise<string[]> {
    const found = await this.jobs.find(
      { status: ACTIVE, $or: [{ 'metrics.claim_time': { $lt: expiredBefore } }, { 'metrics.server_id': serverId }] },
      { projection: { _id: 1 }, limit },
    );
    return found.map((j) => j._id);
  }

  /**
   * Claims an active job for `serverId` at `now` when its claim is older than `leaseMs`, missing, or
   * already this engine's (atomic); the claimed job, or null when another engine holds it or it ended.
   */
  claim(jobId: string, serverId: string, now: number, leaseMs: number): Promise<JobRecord | null> {
    return this.jobs.findOneAndUpdate(
      {
        _id: jobId,
        status: ACTIVE,
        $or: [{ 'metrics.claim_time': { $lt: now - leaseMs } }, { 'metrics.server_id': serverId }, { 'metrics.claim_time': { $exists: false } }],
      },
      { $set: { 'metrics.server_id': serverId, 'metrics.claim_time': now } },
      { returnDocument: 'after' },
    );
  }

  /** Renews the claims of every active job of `serverId`. */
  async renewClaims(serverId: string, now: number): Promise<void> {
    await this.jobs.updateMany({ 'metrics.server_id': serverId, status: ACTIVE }, { $set: { 'metrics.claim_time': now } });
  }

  /** Hands the active jobs of `serverId` back (claim time cleared) so that another engine claims them at once. */
  async handBackClaims(serverId: string): Promise<void> {
    await this.jobs.updateMany({ 'metrics.server_id': serverId, status: ACTIVE }, { $set: { 'metrics.claim_time': 0 } });
  }

  /** Writes a runner's changes (`$set` by path) while `serverId` still owns the active job; false when it does not. */
  async writeClaimed(jobId: string, serverId: string, set: Record<string, unknown>): Promise<boolean> {
    const res = await this.jobs.updateOne({ _id: jobId, 'metrics.server_id': serverId, status: ACTIVE }, { $set: set });
    return res.matchedCount > 0;
  }

  // ---- job control ----------------------------------------------------------------------------

  /** Cancels `job` (as read) and its running or pending tasks, at `now`, if it is still active; false when it is not. */
  async cancel(job: JobRecord, by: string, now: number): Promise<boolean> {
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
    const res = await this.jobs.updateOne({ _id: job._id, status: ACTIVE }, { $set: set });
    return res.matchedCount > 0;
  }

  /** Ids of the active children of a job. */
  async activeChildIds(parentId: string): Promise<string[]> {
    const found = await this.jobs.find({ 'parent.job': parentId, status: ACTIVE }, { projection: { _id: 1 } });
    return found.map((j) => j._id);
  }

  /** Moves a job from status `from` to `to`; the job after the change, or null when it was not in `from`. */
  changeStatus(jobId: string, from: string, to: string, by: string): Promise<JobRecord | null> {
    return this.jobs.findOneAndUpdate(
      { _id: jobId, status: from },
      { $set: { status: to, last_updated: new Date().toISOString(), last_updated_by: by } },
      { returnDocument: 'after' },
    );
  }

  /** Leaves a person's answer on a waiting manual task for its owner to apply; the job after, or null when the task is not waiting. */
  requestFinish(jobId: string, taskId: string, request: FinishRequest): Promise<JobRecord | null> {
    return this.jobs.findOneAndUpdate(
      { _id: jobId, status: ACTIVE, [`tasks.${taskId}.status`]: 'running', [`tasks.${taskId}.finishRequest`]: { $exists: false } },
      { $set: { [`tasks.${taskId}.finishRequest`]: request } },
      { returnDocument: 'after' },
    );
  }

  /**
   * Puts a job in error back to running with `task` replacing task `taskId`, its errors and end
   * cleared, claimed by `serverId` at `now`; the job after, or null when it is no longer in error.
   */
  restartTask(jobId: string, taskId: string, task: JobTask, serverId: string, now: number, by: string): Promise<JobRecord | null> {
    return this.jobs.findOneAndUpdate(
      { _id: jobId, status: 'error' },
      {
        $set: { [`tasks.${taskId}`]: task, status: 'running', error: [], 'metrics.server_id': serverId, 'metrics.claim_time': now, last_updated: new Date(now).toISOString(), last_updated_by: by },
        $unset: { 'metrics.end_time': '', 'metrics.finish_state': '', 'metrics.run_time': '' },
      },
      { returnDocument: 'after' },
    );
  }

  // ---- child jobs -----------------------------------------------------------------------------

  /** Status by id of those of `ids` that exist. */
  async statusesOf(ids: string[]): Promise<Map<string, string>> {
    const found = await this.jobs.find({ _id: { $in: ids } }, { projection: { _id: 1, status: 1 } });
    return new Map(found.map((j) => [j._id, j.status]));
  }

  /** Those of `ids` that exist, as a childJob task reports them. */
  async childSummaries(ids: string[]): Promise<ChildJobSummary[]> {
    const found = await this.jobs.find({ _id: { $in: ids } }, { projection: { _id: 1, name: 1, status: 1, variables: 1, error: 1 } });
    return found.map((j) => ({ _id: j._id, name: j.name, status: j.status, variables: j.variables, ...(j.error !== undefined ? { error: j.error } : {}) }));
  }

  // ---- reads of the operations manager --------------------------------------------------------

  /** A page of whole jobs and the number of jobs that match. */
  async list(query: Omit<JobPageQuery, 'projection'>): Promise<{ jobs: JobRecord[]; total: number }> {
    const [jobs, total] = await Promise.all([this.jobs.find(query.filter, { sort: query.sort, skip: query.skip, limit: query.limit }), this.jobs.countDocuments(query.filter)]);
    return { jobs, total };
  }

  /** A page of jobs with only the projected members, as plain objects, and the number of jobs that match. */
  async page(query: JobPageQuery): Promise<{ items: Record<string, unknown>[]; total: number }> {
    const options = { sort: query.sort, skip: query.skip, limit: query.limit, ...(query.projection ? { projection: query.projection } : {}) };
    const [items, total] = await Promise.all([this.jobs.find(query.filter, options), this.jobs.countDocuments(query.filter)]);
    return { items, total };
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
  async *scan(filter: Filter, projection: Projection, batch = 500): AsyncGenerator<Record<string, unknown>[]> {
    let after: string | undefined;
    for (;;) {
      const page: Record<string, unknown>[] = await this.jobs.find(after === undefined ? filter : { $and: [filter, { _id: { $gt: after } }] }, { sort: { _id: 1 }, limit: batch, projection: { ...projection, _id: 1 } });
      if (page.length === 0) return;
      yield page;
      const last = page[page.length - 1]?._id;
      if (page.length < batch || typeof last !== 'string') return;
      after = last;
    }
  }

  /** The most recently started jobs matching `filter` (at most `limit`), with only the projected members. */
  recent(filter: Filter, projection: Projection, limit: number): Promise<Record<string, unknown>[]> {
    return this.jobs.find(filter, { sort: { 'metrics.start_time': -1 }, limit, projection });
  }

  /** Who may see each of the jobs that exist among `ids`: groups, owner and initiator. */
  accessOf(ids: string[]): Promise<Pick<JobRecord, '_id' | 'groups' | 'metrics' | 'runAs'>[]> {
    return this.jobs.find({ _id: { $in: ids } }, { projection: { _id: 1, groups: 1, metrics: 1, runAs: 1 } });
  }
}
