import type { Handler } from '@nap/bus';
import { pageLinks, toListQuery } from '@nap/store';
import type { ListFields } from '@nap/store';
import type { StudioDeps } from './deps';

const PROJECT_LIST_FIELDS: ListFields = {
  filter: ['name', '_id', 'description', 'createdBy'],
  sort: ['name', '_id', 'created', 'lastUpdated'],
  defaultSort: { name: 1 },
};

/** `GET /automation-studio/projects`: a page of projects, `{ data, metadata: { total } }`. */
export function getProjects(deps: StudioDeps): Handler<'studio.getProjects'> {
  return async (input) => {
    const query = toListQuery(input.query, PROJECT_LIST_FIELDS, [{ importing: { $exists: false } }]);
    const { items, total, skip, limit } = await deps.projectRecords.page(query);
    return {
      message: 'Successfully retrieved items',
      data: items,
      metadata: { total, skip, limit, currentPageSize: items.length, ...pageLinks(skip, limit, total) },
    };
  };
}
