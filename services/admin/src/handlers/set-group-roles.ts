import type { Handler } from '@nap/bus';
import { auditChanges } from '@nap/contracts';
import { changingAdministrators, keepAdminRole } from '../steps/accounts';
import type { AdminContext } from '../context';
import { refuseChangeOfStrongerGroup, refuseRolesBeyondCaller } from '../steps/delegation';

/** `PUT /user-management/groups/:groupId/roles`: the roles every account of the group holds; the admin role stays with at least one active account. */
export function setGroupRoles(svc: AdminContext): Handler<'admin.setGroupRoles'> {
  return async (input, ctx) => {
    const id = input.params.groupId;
    const { roles } = input.body;
    const { group, updated } = await changingAdministrators(svc, ctx.deadline, async (held) => {
      const group = await svc.groups.get(id);
      await refuseChangeOfStrongerGroup(svc, ctx.caller, group);
      await refuseRolesBeyondCaller(svc, ctx.caller, { roles }, `The roles given to group "${group.name}" give`);
      if (group.roles.includes('admin') && !roles.includes('admin')) await keepAdminRole(svc, id);
      await held.confirm();
      const updated = await svc.groups.update(id, {
        roles: [...new Set(roles)],
        lastUpdated: new Date().toISOString(),
        lastUpdatedBy: ctx.caller.username,
      });
      return { group, updated };
    });
    ctx.audit({ target: { kind: 'group', id, name: group.name }, changes: auditChanges(group, updated) });
    await svc.events.groupChanged({ groupId: id });
    return updated;
  };
}
