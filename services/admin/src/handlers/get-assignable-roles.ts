import type { Handler } from '@nap/bus';
import { ROLES, ROLE_NAMES } from '@nap/contracts';
import type { AdminContext } from '../context';

/** `GET /user-management/roles`: the roles a group can give, with what each allows. */
export function getAssignableRoles(_svc: AdminContext): Handler<'admin.getAssignableRoles'> {
  return async () => ({ results: ROLE_NAMES.map((name) => ({ name, description: ROLES[name] })), total: ROLE_NAMES.length });
}
