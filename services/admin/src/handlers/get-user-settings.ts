import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import { OWN_PROVENANCE } from '../domain/accounts';
import type { AdminContext } from '../context';

/**
 * `GET /user/settings`: the calling account as the platform's user settings (what ipctl reads to
 * know whom it acts as): its groups as `memberOf`, the custom roles they give as `assignedRoles`.
 */
export function getUserSettings(svc: AdminContext): Handler<'admin.getUserSettings'> {
  return async (_input, ctx) => {
    if (ctx.caller.id === 'system') throw new AppError('NOT_FOUND', 'The system caller has no user settings');
    const account = await svc.accounts.get(ctx.caller.id);
    const groups = account.groups.length ? await svc.groups.byIds(account.groups) : [];
    const roleIds = [...new Set(groups.flatMap((g) => (g.assignedRoles ?? []).map((r) => r.roleId)))];
    return {
      _id: account._id,
      username: account.username,
      ...(account.firstname !== undefined ? { firstname: account.firstname } : {}),
      provenance: account.provenance ?? OWN_PROVENANCE,
      inactive: account.inactive,
      ...(account.lastLogin !== undefined ? { lastLogin: account.lastLogin } : {}),
      memberOf: groups.map((g) => ({ groupId: g._id, aaaManaged: g.provenance !== undefined })),
      assignedRoles: roleIds.map((roleId) => ({ roleId })),
    };
  };
}
