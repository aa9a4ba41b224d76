import type { Handler } from '@nap/bus';
import { keepAdminRole } from '../steps/accounts';
import type { AdminContext } from '../context';

/** `DELETE /user-management/groups/:groupId`: the group leaves every account that was in it. */
export function deleteGroup(svc: AdminContext): Handler<'admin.deleteGroup'> {
  return async (input) => {
    const id = input.params.groupId;
    const data = await svc.groups.get(id);
    if (data.roles.includes('admin')) await keepAdminRole(svc, id);
    await svc.groups.delete(id);
    await svc.accounts.removeGroup(id);
    await svc.events.groupChanged({ groupId: id });
    return { status: 'success', message: `Group "${data.name}" deleted`, data };
  };
}
