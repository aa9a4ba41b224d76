// Delegated administration: what a caller without the admin role may give and change when its
// custom roles let it manage accounts, groups, roles or profiles (a help desk, a team's lead).
import { AppError, CATALOG } from '@nap/contracts';
import type { Caller, Role } from '@nap/contracts';
import type { AdminContext } from '../context';
import { METHODS, operationsOf } from '../domain/roles';
import type { AccountRecord } from '../store/accounts';
import type { GroupRecord } from '../store/groups';

/**
 * The rule, as Kubernetes RBAC refuses escalation: a caller gives no one more than it may do itself,
 * and changes no account or group that may do more than it may. Without it a custom role that
 * allows `setAccountGroups` lets its holder put itself in `admins`, and one that allows
 * `setAccountPassword` lets it set an administrator's password and sign in as them.
 *
 * What someone "may do" is a set of powers: the operations its built-in roles and custom roles
 * allow, and the admin role itself (which allows more than any list of operations: it sees every
 * group's work). An administrator has every power, so none of this refuses it.
 */
const ADMIN_POWER = 'role:admin';

const builtInPowers = new Map<Role, readonly string[]>();

/** The operations a built-in role allows that a custom role could allow too (HTTP routes that need a role). */
function operationsOfRole(role: Role): readonly string[] {
  let ids = builtInPowers.get(role);
  if (ids === undefined) {
    ids = CATALOG.filter((op) => op.http !== undefined && op.auth !== 'caller' && op.roles.includes(role)).map((op) => op.id);
    builtInPowers.set(role, ids);
  }
  return ids;
}

/** The powers of built-in roles and of the operations custom roles allow. */
function powersOf(roles: readonly Role[], operations: readonly string[] = []): Set<string> {
  const powers = new Set(operations);
  for (const role of roles) {
    if (role === 'admin') powers.add(ADMIN_POWER);
    for (const id of operationsOfRole(role)) powers.add(id);
  }
  return powers;
}

/** True when the caller holds the admin role. */
export function isAdministrator(caller: Caller): boolean {
  return caller.roles.includes('admin');
}

/** A power as a person reads it: `the admin role`, or the method (`OperationsManager getJobs`) of an operation. */
function describePower(power: string): string {
  if (power === ADMIN_POWER) return 'the admin role';
  const method = METHODS.methodOf(power);
  return method === undefined ? `the operation ${power}` : `${method.provenance} ${method.name}`;
}

/**
 * Refuses (403 ESCALATION_REFUSED) when `powers` hold one the caller does not: `what` says what would
 * have it ("Group \"ops\" gives", "Account \"ana\" may do"), the message names the first such power.
 */
function refuseBeyondCaller(caller: Caller, powers: ReadonlySet<string>, what: string): void {
  if (isAdministrator(caller)) return;
  const mine = powersOf(caller.roles, caller.operations ?? []);
  for (const power of powers) {
    if (mine.has(power)) continue;
    throw new AppError(
      'ESCALATION_REFUSED',
      `${what} ${describePower(power)}, which ${caller.username} may not use itself: only a caller who may do all of it (an administrator) makes this change`,
    );
  }
}

/** What the groups give their members: their built-in roles and the operations of their custom roles. */
async function powersOfGroups(svc: AdminContext, groups: readonly GroupRecord[]): Promise<Set<string>> {
  const roleIds = [...new Set(groups.flatMap((g) => (g.assignedRoles ?? []).map((r) => r.roleId)))];
  const operations = roleIds.length === 0 ? [] : operationsOf(await svc.roles.byIds(roleIds));
  return powersOf(
    groups.flatMap((g) => g.roles),
    operations,
  );
}

/** Refuses a change of an account that may do more than the caller (its password, groups, state, sessions, deletion). */
export async function refuseChangeOfStrongerAccount(svc: AdminContext, caller: Caller, account: AccountRecord): Promise<void> {
  if (isAdministrator(caller)) return;
  const groups = account.groups.length === 0 ? [] : await svc.groups.byIds(account.groups);
  refuseBeyondCaller(caller, await powersOfGroups(svc, groups), `Account "${account.username}" may use`);
}

/** Refuses putting an account in groups (by id) that give what the caller may not do. */
export async function refuseGroupsBeyondCaller(svc: AdminContext, caller: Caller, groupIds: readonly string[]): Promise<void> {
  if (isAdministrator(caller) || groupIds.length === 0) return;
  for (const group of await svc.groups.byIds([...groupIds])) {
    refuseBeyondCaller(caller, await powersOfGroups(svc, [group]), `Group "${group.name}" gives`);
  }
}

/** Refuses a change of a group that gives what the caller may not do (its roles, custom roles, deletion). */
export async function refuseChangeOfStrongerGroup(svc: AdminContext, caller: Caller, group: GroupRecord): Promise<void> {
  if (isAdministrator(caller)) return;
  refuseBeyondCaller(caller, await powersOfGroups(svc, [group]), `Group "${group.name}" gives`);
}

/** Refuses giving a group built-in roles and custom roles (by id) that allow what the caller may not do. */
export async function refuseRolesBeyondCaller(
  svc: AdminContext,
  caller: Caller,
  grant: { roles?: readonly Role[]; roleIds?: readonly string[] },
  what: string,
): Promise<void> {
  if (isAdministrator(caller)) return;
  const roleIds = [...new Set(grant.roleIds ?? [])];
  const operations = roleIds.length === 0 ? [] : operationsOf(await svc.roles.byIds(roleIds));
  refuseBeyondCaller(caller, powersOf(grant.roles ?? [], operations), what);
}

/** Refuses a custom role's methods (as operation ids) that allow what the caller may not do. */
export function refuseMethodsBeyondCaller(caller: Caller, operations: readonly string[], what: string): void {
  refuseBeyondCaller(caller, new Set(operations), what);
}

/** What a change of profiles gives, as {@link refuseUnlessAdministrator} names it. */
export const PROFILE_CHANGE = 'Changing profiles (how people sign in, which directory groups give the admin role) takes';

/**
 * Refuses a change only an administrator makes: profiles say how people sign in and which directory
 * groups are administrators, so changing them is as much as holding the admin role.
 */
export function refuseUnlessAdministrator(caller: Caller, what: string): void {
  refuseBeyondCaller(caller, new Set([ADMIN_POWER]), what);
}
