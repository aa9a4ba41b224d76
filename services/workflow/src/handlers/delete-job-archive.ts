import { AppError } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import { archiveView } from '../domain/job-archive';
import type { WorkflowContext } from '../context';

/**
 * `DELETE /operations-manager/jobs/archives/:archiveId`: frees the store of a complete archive's
 * file. The archive is marked deleted before its parts go, so that a download never reads part of
 * a file, and a deletion interrupted between the two is finished by asking again.
 */
export function deleteJobArchive(svc: WorkflowContext): Handler<'workflow.deleteJobArchive'> {
  return async (input, ctx) => {
    const { archiveId } = input.params;
    const archive = await svc.archives.get(archiveId);
    if (archive.state === 'running')
      throw new AppError(
        'JOB_ARCHIVE_NOT_READY',
        `Job archive "${archiveId}" is still being written (${archive.jobs} jobs so far); delete it once it is complete`,
      );
    const deleted = await svc.archives.markDeleted(archiveId, ctx.caller.username, Date.now());
    if (deleted === null) throw new AppError('JOB_ARCHIVE_NOT_FOUND', `No job archive with id "${archiveId}"`);
    await svc.archiveChunks.dropArchive(archiveId);
    return archiveView(deleted);
  };
}
