import type { Handler } from '@nap/bus';
import { removeGroup } from '../steps/accounts';
import type { AdminContext } from '../context';

/** `DELETE /user-management/groups/:groupId`: the group leaves every account that was in it (never the last that gives an active account the admin role). */
export function deleteGroup(svc: AdminContext): Handler<'admin.deleteGroup'> {
  return async (input, ctx) => removeGroup(svc, input.params.groupId, ctx.caller, ctx.deadline);
}
