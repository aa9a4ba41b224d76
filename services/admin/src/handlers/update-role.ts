import type { Handler } from '@nap/bus';
import { AppError, auditChanges } from '@nap/contracts';
import { checkMethods, checkProvenance, checkRoleName, isBuiltInName, operationsOf } from '../domain/roles';
import { announceRoleChange, changingCustomRoles, refuseTakenName, roleView } from '../steps/roles';
import type { AdminContext } from '../context';
import { refuseMethodsBeyondCaller } from '../steps/delegation';

/**
 * `PUT /authorization/roles/:roleId`: the members given replace the role's; the groups given the
 * role are announced changed, so every gateway resolves their members again at their next request.
 */
export function updateRole(svc: AdminContext): Handler<'admin.updateRole'> {
  return async (input, ctx) => {
    const id = input.params.roleId;
    if (isBuiltInName(id)) throw new AppError('ROLE_BUILT_IN', `"${id}" is a built-in role: it cannot be changed`);
    const { role } = input.body;
    if (role.name !== undefined) checkRoleName(role.name, 'body.role.name');
    checkProvenance(role.provenance, 'body.role.provenance');
    const set: Record<string, unknown> = {};
    if (role.name !== undefined) set.name = role.name;
    if (role.description !== undefined) set.description = role.description;
    const allowedMethods = role.allowedMethods === undefined ? undefined : checkMethods(role.allowedMethods, 'body.role.allowedMethods');
    if (allowedMethods !== undefined) set.allowedMethods = allowedMethods;
    if (role.allowedViews !== undefined) set.allowedViews = role.allowedViews.map((v) => ({ provenance: v.provenance, path: v.path }));
    const { before, after } = await changingCustomRoles(svc, ctx.deadline, async (held) => {
      const before = await svc.roles.get(id);
      refuseMethodsBeyondCaller(ctx.caller, operationsOf([before]), `Role "${before.name}" allows`);
      if (allowedMethods !== undefined)
        refuseMethodsBeyondCaller(ctx.caller, operationsOf([{ allowedMethods }]), `Role "${before.name}" would allow`);
      if (role.name !== undefined) await refuseTakenName(svc, role.name, id);
      await held.confirm();
      const after = await svc.roles.update(id, { ...set, lastUpdated: new Date().toISOString(), lastUpdatedBy: ctx.caller.username });
      return { before, after };
    });
    ctx.audit({ target: { kind: 'role', id, name: after.name }, changes: auditChanges(before, after) });
    await announceRoleChange(svc, id);
    return roleView(after);
  };
}
