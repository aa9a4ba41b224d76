import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { ARCHIVABLE_JOB_STATUSES, JOB_ARCHIVE_STATES } from '../job-archive-states';
import { arr, closed, embed, epochMs, int, nullable, obj, oneOf, resultsOf, str, timestamp, withId } from './common';

export { ARCHIVABLE_JOB_STATUSES, JOB_ARCHIVE_STATES } from '../job-archive-states';
export type { ArchivableJobStatus, JobArchiveState } from '../job-archive-states';

/**
 * Job archives: finished root jobs (with their child jobs) moved out of the live job store into a
 * compressed file of newline-delimited JSON, one job per line, by request
 * (`POST /operations-manager/jobs/archive`) or by the active profile's retention.
 */

/** Days a finished job stays in the live job store before the retention archives it, unless the active profile says otherwise. */
export const DEFAULT_JOB_RETENTION_DAYS = 90;

/** Media type of a downloaded archive: gzip of newline-delimited JSON. */
export const JOB_ARCHIVE_CONTENT_TYPE = 'application/gzip';

const archivableStatus = oneOf(ARCHIVABLE_JOB_STATUSES);

/** Body of `POST /operations-manager/jobs/archive`. */
export const archiveJobsBodySchema = withId(
  'nap:schemas/archive-jobs-body',
  closed(
    {
      before: Type.Union(
        [
          str({ format: 'date-time', description: 'ISO 8601 date and time with its offset' }),
          int({ minimum: 0, description: 'epoch milliseconds' }),
        ],
        { description: 'root jobs that ended (metrics.end_time) before this moment are archived, with their child jobs' },
      ),
      status: Type.Union([archivableStatus, arr(archivableStatus, { minItems: 1, uniqueItems: true })], {
        description: 'only root jobs in this status (or these statuses); every finished status (complete, error, canceled) when absent',
      }),
    },
    ['before'],
  ),
);
/** Body of `POST /operations-manager/jobs/archive`. */
export type ArchiveJobsBody = Static<typeof archiveJobsBodySchema>;

/** One archive as listed. */
export const jobArchiveSchema = withId(
  'nap:schemas/job-archive',
  obj(
    {
      _id: str({ description: 'the archive id (download: GET /operations-manager/jobs/archives/:id)' }),
      state: oneOf(JOB_ARCHIVE_STATES, {
        description:
          'running while jobs are moved into it; complete once it can be downloaded; deleted once its file was deleted (DELETE /operations-manager/jobs/archives/:id)',
      }),
      origin: oneOf(['request', 'retention'], {
        description: "request: POST /operations-manager/jobs/archive; retention: the active profile's job retention",
      }),
      before: epochMs('root jobs that ended before this moment'),
      statuses: arr(archivableStatus, { description: 'statuses of the root jobs archived' }),
      requestedBy: str({ description: 'who asked: a username, or the platform actor "retention"' }),
      createdAt: timestamp(),
      completedAt: nullable(timestamp()),
      jobs: int({ minimum: 0, description: 'jobs in the archive, child jobs included' }),
      roots: int({ minimum: 0, description: 'root jobs in the archive' }),
      bytes: int({ minimum: 0, description: 'size of the compressed archive' }),
      fileName: str({ description: 'the name a download is saved as' }),
      deletedAt: timestamp('when its file was deleted (state deleted)'),
      deletedBy: str({ description: 'who deleted its file (state deleted)' }),
    },
    ['_id', 'state', 'origin', 'before', 'statuses', 'requestedBy', 'createdAt', 'completedAt', 'jobs', 'roots', 'bytes', 'fileName'],
  ),
);
/** One job archive as listed. */
export type JobArchive = Static<typeof jobArchiveSchema>;

/** `{ results, total }` of `GET /operations-manager/jobs/archives`. */
export const jobArchivePageSchema = withId('nap:schemas/job-archive-page', resultsOf(embed(jobArchiveSchema)));

/** Query of `GET /operations-manager/jobs/archives/:archiveId`. */
export const jobArchiveDownloadQuerySchema = closed({
  after: str({
    minLength: 1,
    maxLength: 200,
    description:
      'the part of the file after this one: an archive is answered over the bus in parts, and the gateway asks for each following part itself, so HTTP clients receive the whole file',
  }),
});
