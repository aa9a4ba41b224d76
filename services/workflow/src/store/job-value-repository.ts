import { createHash } from 'node:crypto';
import { AppError } from '@nap/contracts';
import type { Collection } from '@nap/store';
import type { JobTask } from '../domain/job-model';
import {
  DEFAULT_VALUE_LIMITS,
  VALUE_REF,
  copyForSlots,
  isValueRef,
  jobValueSlots,
  taskValueSlots,
  valueTooLargeMessage,
  type ValueLimits,
  type ValueRef,
  type ValueSlot,
} from '../domain/job-values';

/** A value kept outside its job document: its JSON text (so its size in the store is what was measured). */
export type JobValueRecord = {
  /** `<job id>:<SHA-256 of the JSON>`: the same value of a job is stored once, however often it is written. */
  _id: string;
  job: string;
  json: string;
  bytes: number;
};

/** The JSON of a value larger than `inlineBytes` (it leaves the job document), with its size; undefined for one that stays. */
function outOfLine(value: unknown, inlineBytes: number): { json: string; bytes: number } | undefined {
  if (value === undefined || value === null || isValueRef(value)) return undefined;
  // most values are small: measured only when they could be large
  if (typeof value !== 'object' && (typeof value !== 'string' || value.length * 3 + 2 <= inlineBytes)) return undefined;
  const json = JSON.stringify(value);
  const bytes = Buffer.byteLength(json, 'utf8');
  return bytes <= inlineBytes ? undefined : { json, bytes };
}

/** Ids of values stored lately, so that writing a job again does not write its large values again (bounded). */
const REMEMBERED = 512;

/**
 * The `job_values` collection: the large values of jobs (see `domain/job-values`), stored before
 * the job write that refers to them and read back with the job. Values live as long as their job.
 */
export class JobValueRepository {
  private readonly stored = new Set<string>();

  constructor(
    private readonly values: Collection<JobValueRecord>,
    readonly limits: ValueLimits = DEFAULT_VALUE_LIMITS,
  ) {}

  /**
   * The `$set` of a job write with the large values of the tasks and variables it sets replaced by
   * references, the values stored first. `inlineBytes` overrides the limit (0: every value out, for
   * a job that grew too large all the same). Throws `VALUE_TOO_LARGE` for a value over the maximum.
   */
  async externalizeSet(
    jobId: string,
    set: Record<string, unknown>,
    inlineBytes = this.limits.inlineBytes,
  ): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = { ...set };
    const slots: ValueSlot[] = [];
    for (const [path, value] of Object.entries(set)) {
      if (path === 'variables' && typeof value === 'object' && value !== null) {
        const variables = { ...(value as Record<string, unknown>) };
        out[path] = variables;
        for (const key of Object.keys(variables)) slots.push({ holder: variables, key });
      } else if (/^tasks\.[^.]+$/.test(path) && typeof value === 'object' && value !== null) {
        const task = copyForSlots(value as JobTask);
        out[path] = task;
        slots.push(...taskValueSlots(task));
      }
    }
    await this.moveOut(jobId, slots, inlineBytes);
    return out;
  }

  /**
   * A new job with its large values replaced by references, the values stored first; the job itself
   * (not a copy) when it holds none, as most do: the caller only encodes it. `inlineBytes` overrides
   * the limit (0: every value out, for a job too large all the same).
   */
  async externalizeJob<T extends { _id: string; variables?: unknown; tasks?: unknown }>(
    job: T,
    inlineBytes = this.limits.inlineBytes,
  ): Promise<T> {
    if (!jobValueSlots(job).some((slot) => outOfLine(slot.holder[slot.key], inlineBytes) !== undefined)) return job;
    const copy = { ...job } as T & { variables?: Record<string, unknown>; tasks?: Record<string, JobTask> };
    if (copy.variables) copy.variables = { ...copy.variables };
    if (copy.tasks) copy.tasks = Object.fromEntries(Object.entries(copy.tasks).map(([id, task]) => [id, copyForSlots(task)]));
    await this.moveOut(job._id, jobValueSlots(copy), inlineBytes);
    return copy;
  }

  /** Ids of the values a job (or a projection of it) refers to in place of its large values. */
  refsOf(job: { variables?: unknown; tasks?: unknown }): Set<string> {
    const out = new Set<string>();
    for (const slot of jobValueSlots(job)) {
      const value = slot.holder[slot.key];
      if (isValueRef(value)) out.add(value[VALUE_REF]);
    }
    return out;
  }

  /** Removes the values `ids` (their job no longer refers to them), and forgets that they were stored. */
  async deleteValues(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    for (const id of ids) this.stored.delete(id);
    await this.values.deleteMany({ _id: { $in: [...ids] } });
  }

  /** Replaces the references in jobs (or projections of them) by the values, in place; the same array. */
  async resolve<T extends { variables?: unknown; tasks?: unknown }>(jobs: T[]): Promise<T[]> {
    const slots = jobs
      .flatMap((job) => (job === null || job === undefined ? [] : jobValueSlots(job)))
      .filter((s) => isValueRef(s.holder[s.key]));
    if (slots.length === 0) return jobs;
    const ids = [...new Set(slots.map((s) => (s.holder[s.key] as ValueRef)[VALUE_REF]))];
    const found = new Map((await this.values.find({ _id: { $in: ids } })).map((v) => [v._id, v.json]));
    for (const slot of slots) {
      const id = (slot.holder[slot.key] as ValueRef)[VALUE_REF];
      const json = found.get(id);
      if (json === undefined) throw new AppError('INTERNAL', `The value "${id}" of a job is missing from collection "job_values"`);
      slot.holder[slot.key] = JSON.parse(json) as unknown;
    }
    return jobs;
  }

  /** Removes the values of these jobs (they left the store: archived). */
  async deleteOfJobs(jobIds: string[]): Promise<void> {
    if (jobIds.length > 0) await this.values.deleteMany({ job: { $in: jobIds } });
  }

  private async moveOut(jobId: string, slots: ValueSlot[], inlineBytes: number): Promise<void> {
    for (const slot of slots) {
      const large = outOfLine(slot.holder[slot.key], inlineBytes);
      if (large === undefined) continue;
      const { json, bytes } = large;
      if (bytes > this.limits.maxBytes)
        throw new AppError('VALUE_TOO_LARGE', valueTooLargeMessage(`"${slot.key}"`, bytes, this.limits.maxBytes));
      const id = `${jobId}:${createHash('sha256').update(json).digest('hex')}`;
      if (!this.stored.has(id)) {
        await this.values.updateOne({ _id: id }, { $setOnInsert: { job: jobId, json, bytes } }, { upsert: true });
        this.remember(id);
      }
      const ref: ValueRef = { [VALUE_REF]: id, bytes };
      slot.holder[slot.key] = ref;
    }
  }

  private remember(id: string): void {
    this.stored.add(id);
    if (this.stored.size > REMEMBERED) {
      const oldest = this.stored.values().next().value;
      if (oldest !== undefined) this.stored.delete(oldest);
    }
  }
}
