import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `GET /user-management/groups/:groupId`: get a group. */
export function getGroup(svc: AdminContext): Handler<'admin.getGroup'> {
  return async (input) => svc.groups.get(input.params.groupId);
}
