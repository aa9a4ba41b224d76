import { ROLES, ROLE_NAMES } from '@nap/contracts';
import type { HandlerMap } from '@nap/bus';
import type { AdminDomain } from '../domain/admin';

/** `/user-management/groups*` and `/user-management/roles`. */
export function groupHandlers(domain: AdminDomain): HandlerMap<'admin'> {
  return {
    createGroup: async (input, ctx) => {
      const data = await domain.createGroup(input.body.group, ctx.caller.username);
      return { status: 'Created', message: `Group "${data.name}" created`, data };
    },
    getGroup: async (input) => domain.getGroup(input.params.groupId),
    getGroups: async (input) => domain.listGroups(input.query),
    getAuthorizationGroup: async (input) => domain.getGroup(input.params.groupId),
    getAuthorizationGroups: async (input) => domain.listGroups(input.query),
    setGroupRoles: async (input, ctx) => domain.setGroupRoles(input.params.groupId, input.body.roles, ctx.caller.username),
    deleteGroup: async (input) => {
      const data = await domain.deleteGroup(input.params.groupId);
      return { status: 'success', message: `Group "${data.name}" deleted`, data };
    },
    getAssignableRoles: async () => ({ results: ROLE_NAMES.map((name) => ({ name, description: ROLES[name] })), total: ROLE_NAMES.length }),
  };
}
