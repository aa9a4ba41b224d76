import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import { isBuiltInName } from '../domain/roles';
import { changingCustomRoles } from '../steps/roles';
import type { AdminContext } from '../context';

/** `DELETE /authorization/roles/:roleId`: a custom role no group is given; 409 `ROLE_IN_USE` naming the groups that are. */
export function deleteRole(svc: AdminContext): Handler<'admin.deleteRole'> {
  return async (input, ctx) => {
    const id = input.params.roleId;
    if (isBuiltInName(id)) throw new AppError('ROLE_BUILT_IN', `"${id}" is a built-in role: it cannot be deleted`);
    const role = await changingCustomRoles(svc, ctx.deadline, async (held) => {
      const role = await svc.roles.get(id);
      const users = await svc.groups.withCustomRole(id);
      if (users.length > 0)
        throw new AppError(
          'ROLE_IN_USE',
          `Role "${role.name}" is given by the groups ${users.map((g) => `"${g.name}"`).join(', ')}; take it from them first`,
          { details: users.map((g) => ({ member: 'roleId', message: `given by group "${g.name}" (${g._id})` })) },
        );
      await held.confirm();
      await svc.roles.delete(id);
      return role;
    });
    ctx.audit({ target: { kind: 'role', id, name: role.name } });
    return { status: 'success', message: `Role "${role.name}" deleted` };
  };
}
