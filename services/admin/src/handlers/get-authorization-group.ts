import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `GET /authorization/groups/:groupId`: the same group as `GET /user-management/groups/:groupId`, under the platform's own name. */
export function getAuthorizationGroup(svc: AdminContext): Handler<'admin.getAuthorizationGroup'> {
  return async (input) => svc.groups.get(input.params.groupId);
}
