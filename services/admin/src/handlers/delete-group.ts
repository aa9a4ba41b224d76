import type { Handler } from '@nap/bus';
import { changingAdministrators, keepAdminRole } from '../steps/accounts';
import type { AdminContext } from '../context';

/** `DELETE /user-management/groups/:groupId`: the group leaves every account that was in it (never the last that gives an active account the admin role). */
export function deleteGroup(svc: AdminContext): Handler<'admin.deleteGroup'> {
  return async (input, ctx) => {
    const id = input.params.groupId;
    const data = await changingAdministrators(svc, ctx.deadline, async (held) => {
      const group = await svc.groups.get(id);
      if (group.roles.includes('admin')) await keepAdminRole(svc, id);
      await held.confirm();
      await svc.groups.delete(id);
      await svc.accounts.removeGroup(id);
      return group;
    });
    await svc.events.groupChanged({ groupId: id });
    return { status: 'success', message: `Group "${data.name}" deleted`, data };
  };
}
