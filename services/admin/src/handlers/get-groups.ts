import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `GET /user-management/groups`: a page of groups by the shared list options (every group up to 500 when no limit is given). */
export function getGroups(svc: AdminContext): Handler<'admin.getGroups'> {
  return async (input) => svc.groups.list(input.query);
}
