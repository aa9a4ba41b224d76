import type { Handler } from '@nap/bus';
import { ROLES, ROLE_NAMES } from '@nap/contracts';
import { MAX_LIST_LIMIT, listDocuments, toListQuery } from '@nap/store';
import type { ListFields } from '@nap/store';
import type { AdminContext } from '../context';

/** What the role list filters and sorts on; unsorted, the roles come in their own order (admin first). */
const ROLE_LIST_FIELDS: ListFields = {
  filter: ['name', 'description'],
  sort: ['name'],
  defaultSort: {},
  defaultLimit: MAX_LIST_LIMIT,
};

/** `GET /user-management/roles`: the roles a group can give, with what each allows, by the shared list options. */
export function getAssignableRoles(_svc: AdminContext): Handler<'admin.getAssignableRoles'> {
  return async (input) => {
    const roles = ROLE_NAMES.map((name) => ({ _id: name, name, description: ROLES[name] }));
    const { items, total } = listDocuments(roles, toListQuery(input.query, ROLE_LIST_FIELDS));
    return { results: items.map(({ name, description }) => ({ name, description })), total };
  };
}
