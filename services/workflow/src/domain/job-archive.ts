/**
 * Job archives: finished root jobs, each with its child jobs, moved out of the live job store into
 * a compressed file of newline-delimited JSON. An archive is filled in batches; each batch goes
 * through phases kept in the store (planned → marked → written → done), so that a replica that
 * takes over after a crash carries on from the phase it finds, and no job is lost or archived twice.
 */
import { ARCHIVABLE_JOB_STATUSES } from '@nap/contracts';
import type { ArchivableJobStatus, ArchiveJobsBody, JobArchive, JobArchiveState } from '@nap/contracts';
import type { ArchivedMetricSums } from './archived-metrics';
import { isActiveStatus, toPublicJob } from './job-model';
import type { JobRecord } from './job-model';

/** Where the search for root jobs to archive goes on: after this end time and, at the same end time, after this id. */
export interface ArchiveCursor {
  endTime: number;
  id: string;
}

/** An archive as stored (`job_archives`). */
export type JobArchiveRecord = {
  _id: string;
  state: JobArchiveState;
  origin: 'request' | 'retention';
  /** Epoch ms: root jobs that ended before it. */
  before: number;
  statuses: ArchivableJobStatus[];
  requestedBy: string;
  createdAt: string;
  completedAt: string | null;
  /** Jobs (children included), root jobs and compressed bytes of the batches done. */
  jobs: number;
  roots: number;
  bytes: number;
  /** The batch that comes next, from 0. */
  nextBatch: number;
  /** Where the batch that comes next looks for root jobs; null before the first. */
  cursor: ArchiveCursor | null;
  /**
   * While running: since when the archive waits to be filled (epoch ms); null once complete. With
   * `fire`, the replica that fills it now and when it last said so: another takes over once that is
   * older than the lease (the claims of due times, as schedules fire).
   */
  nextRunAt: number | null;
  fire?: { serverId: string; claimTime: number };
  /** For the retention: the due time the archive was made for (epoch ms). */
  due?: number;
  /** Once its file was deleted: when, and by whom. */
  deletedAt?: string;
  deletedBy?: string;
};

/** Phases of a batch: planned (jobs chosen), marked (jobs frozen), written (the archive holds them), done (removed from the store). */
export const BATCH_PHASES = ['planned', 'marked', 'written', 'done'] as const;
/** One of {@link BATCH_PHASES}. */
export type BatchPhase = (typeof BATCH_PHASES)[number];

/** A root job and every job below it (children, their children…): archived together or not at all. */
export interface JobFamily {
  root: string;
  ids: string[];
}

/** A batch of an archive as stored (`job_archive_batches`). */
export type ArchiveBatchRecord = {
  /** `<archive id>:<seq, six digits>`: also the mark the batch's jobs carry while it moves them. */
  _id: string;
  archive: string;
  seq: number;
  phase: BatchPhase;
  /** The families chosen when the batch was planned. */
  families: JobFamily[];
  /** Where the next batch looks for root jobs. */
  cursorAfter: ArchiveCursor;
  /** Once marked: the jobs the batch archives (whole families whose every job it could mark), in id order. */
  members?: string[];
  roots?: number;
  /** Once written: what the members add to the job and task metrics, kept so that they still count once removed. */
  sums?: ArchivedMetricSums[];
  /** Once written: the members by status (the `nap_jobs{state}` gauge keeps counting them). */
  statusCounts?: Record<string, number>;
  /** Once written: compressed bytes and parts of the batch in `job_archive_chunks`. */
  bytes?: number;
  parts?: number;
};

/** A part of an archive's file as stored (`job_archive_chunks`): parts in `_id` order make the file. */
export type ArchiveChunkRecord = {
  /** `<batch id>:<part, four digits>`. */
  _id: string;
  archive: string;
  batch: string;
  data: Uint8Array;
};

/** The id of batch `seq` of an archive: ids sort in batch order. */
export function batchId(archiveId: string, seq: number): string {
  return `${archiveId}:${String(seq).padStart(6, '0')}`;
}

/** The id of part `part` of a batch: ids sort in file order. */
export function chunkId(batch: string, part: number): string {
  return `${batch}:${String(part).padStart(4, '0')}`;
}

/** Most bytes of one stored part, and of one bus reply of a download: well under NATS's default `max_payload` of 1 MiB. */
export const ARCHIVE_PART_BYTES = 512 * 1024;

/**
 * One line of an archive: the job as `GET /operations-manager/jobs/:jobId` shows it (its large values
 * in place, the engine's own members left out, secrets masked by the platform's policy).
 */
export function archiveLine(job: JobRecord): string {
  return `${JSON.stringify(toPublicJob(job))}\n`;
}

/** The moment `before` names: an ISO 8601 date and time or epoch ms. VALIDATION_FAILED is the caller's: the schema checked the form. */
export function cutoffOf(before: ArchiveJobsBody['before']): number {
  return typeof before === 'number' ? before : Date.parse(before);
}

/** The statuses of root jobs to archive: those given, or every finished one. */
export function statusesOf(status: ArchiveJobsBody['status']): ArchivableJobStatus[] {
  if (status === undefined) return [...ARCHIVABLE_JOB_STATUSES];
  return typeof status === 'string' ? [status] : [...status];
}

/** What decides whether a job may leave the store now: it ended, its events are out, no engine holds it, no archive holds it. */
export interface ArchiveCheck {
  _id: string;
  status: string;
  lease?: string;
  outbox?: unknown[];
  archive?: string;
}

/** True when the job may be archived now (see {@link ArchiveCheck}); a running or paused job never may. */
export function mayArchive(job: ArchiveCheck): boolean {
  return (
    !isActiveStatus(job.status) &&
    (ARCHIVABLE_JOB_STATUSES as readonly string[]).includes(job.status) &&
    job.lease === undefined &&
    (job.outbox === undefined || job.outbox.length === 0) &&
    job.archive === undefined
  );
}

/** A new archive, state running, by request or for a due time of the retention. */
export function newArchiveRecord(input: {
  id: string;
  origin: JobArchiveRecord['origin'];
  before: number;
  statuses: ArchivableJobStatus[];
  requestedBy: string;
  now: number;
  due?: number;
}): JobArchiveRecord {
  return {
    _id: input.id,
    state: 'running',
    origin: input.origin,
    before: input.before,
    statuses: input.statuses,
    requestedBy: input.requestedBy,
    createdAt: new Date(input.now).toISOString(),
    completedAt: null,
    jobs: 0,
    roots: 0,
    bytes: 0,
    nextBatch: 0,
    cursor: null,
    nextRunAt: input.now,
    ...(input.due !== undefined ? { due: input.due } : {}),
  };
}

/** The file name a download is saved as. */
export function archiveFileName(id: string): string {
  return `${id}.ndjson.gz`;
}

/** An archive as the routes answer it. */
export function archiveView(record: JobArchiveRecord): JobArchive {
  return {
    _id: record._id,
    state: record.state,
    origin: record.origin,
    before: record.before,
    statuses: record.statuses,
    requestedBy: record.requestedBy,
    createdAt: record.createdAt,
    completedAt: record.completedAt,
    jobs: record.jobs,
    roots: record.roots,
    bytes: record.bytes,
    fileName: archiveFileName(record._id),
    ...(record.deletedAt !== undefined ? { deletedAt: record.deletedAt } : {}),
    ...(record.deletedBy !== undefined ? { deletedBy: record.deletedBy } : {}),
  };
}

/** The id of the archive the retention makes for a due time: the same on every replica, so a due time makes one archive. */
export function retentionArchiveId(due: number): string {
  return `retention-${new Date(due).toISOString().replace(/[:.]/g, '-')}`;
}

/** The retention's due time at or before `now`: due times are whole multiples of the interval since the epoch, alike on every replica. */
export function retentionDueAt(now: number, intervalMs: number): number {
  return Math.floor(now / intervalMs) * intervalMs;
}

/** A family as found: its jobs (the root first) and whether every one of them may leave now. */
export interface FoundFamily extends JobFamily {
  archivable: boolean;
}

/**
 * The family of each root: the root and every job below it (`below` lists them with their parent),
 * archivable only when every one of them may leave now ({@link mayArchive}): a root is never
 * archived without its child jobs, nor while one of them still runs.
 */
export function familiesOf(roots: ArchiveCheck[], below: (ArchiveCheck & { parent: string })[]): Map<string, FoundFamily> {
  const families = new Map<string, FoundFamily>(roots.map((r) => [r._id, { root: r._id, ids: [r._id], archivable: mayArchive(r) }]));
  const parentOf = new Map(below.map((j) => [j._id, j.parent]));
  for (const job of below) {
    // walk up to the root (bounded: a parent chain never holds more links than there are jobs)
    let root = job.parent;
    for (let hops = 0; !families.has(root) && hops <= below.length; hops += 1) root = parentOf.get(root) ?? root;
    const family = families.get(root);
    if (family === undefined) continue;
    family.ids.push(job._id);
    if (!mayArchive(job)) family.archivable = false;
  }
  return families;
}

/** How many of `jobs` are in each status. */
export function countByStatus(jobs: { status?: unknown }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const job of jobs) if (typeof job.status === 'string') counts[job.status] = (counts[job.status] ?? 0) + 1;
  return counts;
}
