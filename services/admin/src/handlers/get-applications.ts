import type { Handler } from '@nap/bus';
import { APPLICATION_NAMES, APPLICATIONS } from '@nap/contracts';
import { MAX_LIST_LIMIT, listDocuments, toListQuery } from '@nap/store';
import type { ListFields } from '@nap/store';
import { applicationRecord } from '../domain/applications';
import type { AdminContext } from '../context';

/** `GET /applications`: filtered and sorted on name, state, service and isActive with the shared list options. */
export function getApplications(svc: AdminContext): Handler<'admin.getApplications'> {
  return async (input) => {
    const view = await svc.reconciler.view();
    const rows = await Promise.all(
      APPLICATION_NAMES.map(async (name) => {
        const service = APPLICATIONS[name].service;
        const record = applicationRecord(name, view, view.states.get(service) ?? (await svc.applicationStates.get(service)));
        return {
          _id: name,
          name,
          state: record.metadata.state,
          service: record.metadata.service,
          isActive: record.metadata.isActive,
          record,
        };
      }),
    );
    const { items, total } = listDocuments(rows, toListQuery(input.query, APPLICATION_LIST_FIELDS));
    return { results: items.map((row) => row.record), total };
  };
}

/** What the application list filters and sorts on (every application on one page unless asked otherwise). */
const APPLICATION_LIST_FIELDS: ListFields = {
  filter: ['name', 'state', 'service', 'isActive'],
  sort: ['name', 'state', 'service'],
  defaultSort: { name: 1 },
  defaultLimit: MAX_LIST_LIMIT,
};
