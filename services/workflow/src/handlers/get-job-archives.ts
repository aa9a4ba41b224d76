import type { Handler } from '@nap/bus';
import { toListQuery } from '@nap/store';
import type { ListFields } from '@nap/store';
import { archiveView } from '../domain/job-archive';
import type { WorkflowContext } from '../context';

/** What the archive list filters and sorts on. */
const ARCHIVE_LIST_FIELDS: ListFields = {
  filter: ['_id', 'state', 'origin', 'requestedBy'],
  sort: ['createdAt', 'completedAt', 'jobs', 'bytes'],
  defaultSort: { createdAt: -1 },
};

/** `GET /operations-manager/jobs/archives`: a page of archives, newest first. */
export function getJobArchives(svc: WorkflowContext): Handler<'workflow.getJobArchives'> {
  return async (input) => {
    const { items, total } = await svc.archives.page(toListQuery(input.query, ARCHIVE_LIST_FIELDS));
    return { results: items.map(archiveView), total };
  };
}
