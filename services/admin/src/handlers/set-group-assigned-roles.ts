import type { Handler } from '@nap/bus';
import { auditChanges } from '@nap/contracts';
import { changingCustomRoles, checkAssignedRoles } from '../steps/roles';
import type { AdminContext } from '../context';
import { refuseChangeOfStrongerGroup, refuseRolesBeyondCaller } from '../steps/delegation';

/** `PUT /user-management/groups/:groupId/assigned-roles`: the custom roles the group gives; its members hold them at their next request. */
export function setGroupAssignedRoles(svc: AdminContext): Handler<'admin.setGroupAssignedRoles'> {
  return async (input, ctx) => {
    const id = input.params.groupId;
    const { group, updated } = await changingCustomRoles(svc, ctx.deadline, async (held) => {
      const group = await svc.groups.get(id);
      const assignedRoles = await checkAssignedRoles(svc, input.body.assignedRoles, 'body.assignedRoles');
      await refuseChangeOfStrongerGroup(svc, ctx.caller, group);
      await refuseRolesBeyondCaller(
        svc,
        ctx.caller,
        { roleIds: assignedRoles.map((r) => r.roleId) },
        `The custom roles given to group "${group.name}" give`,
      );
      await held.confirm();
      const updated = await svc.groups.update(id, {
        assignedRoles,
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
