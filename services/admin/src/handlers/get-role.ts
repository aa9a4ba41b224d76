import type { Handler } from '@nap/bus';
import { builtInRoles } from '../domain/roles';
import { roleView } from '../steps/roles';
import type { AdminContext } from '../context';

/** `GET /authorization/roles/:roleId`: a custom role by its _id, a built-in one by its name. */
export function getRole(svc: AdminContext): Handler<'admin.getRole'> {
  return async (input) => {
    const builtIn = builtInRoles().find((r) => r._id === input.params.roleId);
    return builtIn ?? roleView(await svc.roles.get(input.params.roleId));
  };
}
