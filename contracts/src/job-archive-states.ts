/**
 * The statuses and states of job archives, in words the platform, the console and the CLI share.
 * Pure: no imports, so that the console and the CLI may carry it.
 */

/** Statuses a job may be archived in: finished ones. A running or paused job is never archived. */
export const ARCHIVABLE_JOB_STATUSES = ['complete', 'error', 'canceled'] as const;
/** One of {@link ARCHIVABLE_JOB_STATUSES}. */
export type ArchivableJobStatus = (typeof ARCHIVABLE_JOB_STATUSES)[number];

/**
 * States of an archive: `running` while jobs are moved into it (resumed by another replica if its
 * holder dies), then `complete`; `deleted` once an administrator deleted its file (its jobs still
 * count in the job and task metrics).
 */
export const JOB_ARCHIVE_STATES = ['running', 'complete', 'deleted'] as const;
/** One of {@link JOB_ARCHIVE_STATES}. */
export type JobArchiveState = (typeof JOB_ARCHIVE_STATES)[number];
