import { gzipSync } from 'node:zlib';
import { AppError, JOB_ARCHIVE_CONTENT_TYPE } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import { rawReply } from '@nap/bus';
import { archiveFileName } from '../domain/job-archive';
import type { WorkflowContext } from '../context';

/**
 * `GET /operations-manager/jobs/archives/:archiveId`: the archive's file, one stored part per answer
 * (each answer names the next part: the gateway asks for them in turn and sends one body). An
 * archive with no jobs is an empty gzip file.
 */
export function getJobArchive(svc: WorkflowContext): Handler<'workflow.getJobArchive'> {
  return async (input) => {
    const { archiveId } = input.params;
    const archive = await svc.archives.get(archiveId);
    if (archive.state === 'deleted')
      throw new AppError(
        'JOB_ARCHIVE_DELETED',
        `Job archive "${archiveId}" was deleted on ${archive.deletedAt ?? 'an earlier day'} by ${archive.deletedBy ?? 'an administrator'}; its file is gone`,
      );
    if (archive.state !== 'complete')
      throw new AppError(
        'JOB_ARCHIVE_NOT_READY',
        `Job archive "${archiveId}" is still being written (${archive.jobs} jobs so far); download it once it is complete`,
      );
    const { after } = input.query;
    if (after !== undefined && !after.startsWith(`${archiveId}:`))
      throw new AppError('VALIDATION_FAILED', `query.after "${after}" is no part of job archive "${archiveId}"`, {
        details: [{ member: 'query.after', message: `must name a part of archive ${archiveId}` }],
      });
    const [part, next] = await svc.archiveChunks.after(archiveId, after, 2);
    const filename = archiveFileName(archiveId);
    if (part === undefined)
      return rawReply(after === undefined ? gzipSync(Buffer.alloc(0)) : Buffer.alloc(0), JOB_ARCHIVE_CONTENT_TYPE, { filename });
    return rawReply(part.data, JOB_ARCHIVE_CONTENT_TYPE, {
      filename,
      ...(next !== undefined ? { continueWith: { after: part._id } } : {}),
    });
  };
}
