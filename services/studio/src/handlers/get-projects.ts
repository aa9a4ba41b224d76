import type { Handler } from '@nap/bus';
import { pageLinks, toListQuery } from '@nap/store';
import { componentKinds } from '../context';
import type { StudioContext } from '../context';
import { PROJECT_LIST_FIELDS } from '../domain/list-fields';
import { withoutJournals } from '../domain/project-components';
import { visibleToCaller } from '../domain/projects';

/**
 * `GET /automation-studio/projects`: a page of projects, `{ data, metadata: { total } }`; imports
 * still running are left out, and so are the components the caller may not see.
 */
export function getProjects(svc: StudioContext): Handler<'studio.getProjects'> {
  return async (input) => {
    const query = toListQuery(input.query, PROJECT_LIST_FIELDS, [{ importing: { $exists: false } }]);
    const { items, total, skip, limit } = await svc.projects.page(query);
    const data = (await visibleToCaller(componentKinds(svc), items.map(withoutJournals), input.caller)).map((p) => p.project);
    return {
      message: 'Successfully retrieved items',
      data,
      metadata: { total, skip, limit, currentPageSize: data.length, ...pageLinks(skip, limit, total) },
    };
  };
}
