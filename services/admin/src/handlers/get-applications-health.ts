import type { Handler } from '@nap/bus';
import { MAX_LIST_LIMIT, listDocuments, toListQuery } from '@nap/store';
import type { ListFields } from '@nap/store';
import { applicationsHealth } from '../steps/applications';
import type { AdminContext } from '../context';

/** `GET /health/applications`: filtered and sorted on id, name, state, service, version and type with the shared list options. */
export function getApplicationsHealth(svc: AdminContext): Handler<'admin.getApplicationsHealth'> {
  return async (input) => {
    const rows = (await applicationsHealth(svc)).map((health) => ({ ...health, _id: health.id }));
    const { items, total } = listDocuments(rows, toListQuery(input.query, HEALTH_LIST_FIELDS));
    return { results: items.map(({ _id: _drop, ...health }) => health), total };
  };
}

/** What the application health list filters and sorts on. */
const HEALTH_LIST_FIELDS: ListFields = {
  filter: ['id', 'name', 'state', 'service', 'version', 'type'],
  sort: ['id', 'name', 'state', 'service'],
  defaultSort: { name: 1 },
  defaultLimit: MAX_LIST_LIMIT,
};
