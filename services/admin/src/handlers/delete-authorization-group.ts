import type { Handler } from '@nap/bus';
import { removeGroup } from '../steps/accounts';
import type { AdminContext } from '../context';

/** `DELETE /authorization/groups/:groupId`: as `DELETE /user-management/groups/:groupId` (ipctl's group delete). */
export function deleteAuthorizationGroup(svc: AdminContext): Handler<'admin.deleteAuthorizationGroup'> {
  return async (input, ctx) => removeGroup(svc, input.params.groupId, ctx.caller, ctx.deadline);
}
