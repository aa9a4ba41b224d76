// Steps on custom roles that several handlers share: the view, the roles groups are given, and
// telling the gateways when what a group allows changed.
import { AppError, escapeUnprintable } from '@nap/contracts';
import type { Caller, Role } from '@nap/contracts';
import type { AdminContext } from '../context';
import type { HeldClaim } from '../engine/serialized-changes';
import { refuseRolesBeyondCaller } from './delegation';
import { checkGroupName, newGroupRecord } from '../domain/accounts';
import { CUSTOM_PROVENANCE, builtInNamedLike } from '../domain/roles';
import type { RoleView } from '../domain/roles';
import { invalidMember } from '../domain/validation-error';
import type { GroupRecord } from '../store/groups';
import type { RoleRecord } from '../store/roles';

/** A custom role as the routes answer it. */
export function roleView(role: RoleRecord): RoleView {
  return {
    _id: role._id,
    name: role.name,
    description: role.description,
    provenance: CUSTOM_PROVENANCE,
    builtIn: false,
    allowedMethods: role.allowedMethods,
    allowedViews: role.allowedViews,
    created: role.created,
    createdBy: role.createdBy,
    lastUpdated: role.lastUpdated,
    lastUpdatedBy: role.lastUpdatedBy,
  };
}

/**
 * Runs a change of custom roles or of the custom roles groups are given one at a time across every
 * admin replica (the `custom-roles` claim): a role is never deleted while a group is being given it.
 */
export function changingCustomRoles<T>(svc: AdminContext, deadline: number, change: (held: HeldClaim) => Promise<T>): Promise<T> {
  return svc.serialized.run('custom-roles', deadline, change);
}

/** The custom roles a group is to be given, each once; 400 naming `member[i].roleId` when one does not exist. */
export async function checkAssignedRoles(
  svc: AdminContext,
  assigned: readonly { roleId: string }[],
  member: string,
): Promise<{ roleId: string }[]> {
  const ids = [...new Set(assigned.map((r) => r.roleId))];
  const found = new Set((await svc.roles.byIds(ids)).map((r) => r._id));
  const missing = assigned.findIndex((r) => !found.has(r.roleId));
  if (missing >= 0) {
    const roleId = assigned[missing]?.roleId ?? '';
    throw invalidMember(
      `${member}[${missing}].roleId`,
      `"${roleId}" names no custom role (GET /authorization/roles lists them; a built-in role is given with PUT /user-management/groups/:groupId/roles)`,
    );
  }
  return ids.map((roleId) => ({ roleId }));
}

/**
 * Tells every gateway that what the groups given the role allow changed: a `groupChanged` event per
 * group (the event gateways already act on), after which each resolves its callers again.
 */
export async function announceRoleChange(svc: AdminContext, roleId: string): Promise<void> {
  for (const group of await svc.groups.withCustomRole(roleId)) await svc.events.groupChanged({ groupId: group._id });
}

/**
 * A new group (`POST /user-management/groups`, `POST /authorization/groups`): its name one line of
 * text unique whatever its letter case (400 naming `member.name`, 409 `GROUP_ALREADY_EXISTS`), the
 * custom roles it gives checked (400 naming `member.assignedRoles[i].roleId`) under the claim that
 * keeps a role from being deleted meanwhile.
 */
export async function addGroup(
  svc: AdminContext,
  group: { name: string; description?: string; roles?: Role[]; assignedRoles?: { roleId: string }[] },
  caller: Caller,
  deadline: number,
  member: string,
): Promise<GroupRecord> {
  checkGroupName(group.name, `${member}.name`);
  const { assignedRoles = [], ...rest } = group;
  const by = caller.username;
  const insert = async (held?: HeldClaim) => {
    const sameButCase = await svc.groups.findByNameInAnyCase(group.name);
    if (sameButCase !== null)
      throw new AppError(
        'GROUP_ALREADY_EXISTS',
        sameButCase.name === group.name
          ? `A group named "${group.name}" already exists`
          : `A group named "${sameButCase.name}" already exists; group names differ in more than letter case`,
      );
    const checked = assignedRoles.length > 0 ? await checkAssignedRoles(svc, assignedRoles, `${member}.assignedRoles`) : [];
    await refuseRolesBeyondCaller(
      svc,
      caller,
      { roles: rest.roles ?? [], roleIds: checked.map((r) => r.roleId) },
      `Group "${group.name}" would give`,
    );
    await held?.confirm();
    return svc.groups.insert(newGroupRecord(rest, by, new Date().toISOString(), checked));
  };
  return assignedRoles.length > 0 ? changingCustomRoles(svc, deadline, insert) : insert();
}

/** 409 `ROLE_ALREADY_EXISTS` when a built-in role has the name or one read alike (letter case, look-alike letters, invisible characters), or another custom role the name whatever its letter case. */
export async function refuseTakenName(svc: AdminContext, name: string, except?: string): Promise<void> {
  const builtIn = builtInNamedLike(name);
  if (builtIn !== undefined)
    throw new AppError(
      'ROLE_ALREADY_EXISTS',
      builtIn === name.toLowerCase()
        ? `"${builtIn}" is a built-in role; give the role another name`
        : `"${escapeUnprintable(name)}" reads as the built-in role "${builtIn}"; give the role another name`,
    );
  const same = await svc.roles.findByNameInAnyCase(name);
  if (same !== null && same._id !== except)
    throw new AppError(
      'ROLE_ALREADY_EXISTS',
      same.name === name
        ? `A role named "${name}" already exists`
        : `A role named "${same.name}" already exists; role names differ in more than letter case`,
    );
}
