import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `GET /authorization/groups`: the same page as `GET /user-management/groups`, under the platform's own name. */
export function getAuthorizationGroups(svc: AdminContext): Handler<'admin.getAuthorizationGroups'> {
  return async (input) => svc.groups.list(input.query);
}
