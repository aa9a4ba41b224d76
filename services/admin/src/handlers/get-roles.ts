import type { Handler } from '@nap/bus';
import { MAX_LIST_LIMIT, listDocuments, toListQuery } from '@nap/store';
import type { ListFields } from '@nap/store';
import { builtInRoles } from '../domain/roles';
import { roleView } from '../steps/roles';
import type { AdminContext } from '../context';

const ROLE_LIST_FIELDS: ListFields = {
  filter: ['name', '_id', 'provenance', 'description'],
  sort: ['name'],
  defaultSort: {},
  defaultLimit: MAX_LIST_LIMIT,
};

/** `GET /authorization/roles`: the built-in roles (admin first), then the custom ones by name, by the shared list options. */
export function getRoles(svc: AdminContext): Handler<'admin.getRoles'> {
  return async (input) => {
    const roles = [...builtInRoles(), ...(await svc.roles.all()).map(roleView)];
    const { items, total } = listDocuments(roles, toListQuery(input.query, ROLE_LIST_FIELDS));
    return { results: items as typeof roles, total };
  };
}
