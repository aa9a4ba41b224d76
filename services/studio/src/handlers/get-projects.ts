import type { Handler } from '@nap/bus';
import { pageLinks, toListQuery } from '@nap/store';
import type { StudioContext } from '../context';
import { PROJECT_LIST_FIELDS } from '../domain/list-fields';

/** `GET /automation-studio/projects`: a page of projects, `{ data, metadata: { total } }`; imports still running are left out. */
export function getProjects(svc: StudioContext): Handler<'studio.getProjects'> {
  return async (input) => {
    const query = toListQuery(input.query, PROJECT_LIST_FIELDS, [{ importing: { $exists: false } }]);
    const { items, total, skip, limit } = await svc.projects.page(query);
    return {
      message: 'Successfully retrieved items',
      data: items,
      metadata: { total, skip, limit, currentPageSize: items.length, ...pageLinks(skip, limit, total) },
    };
  };
}
