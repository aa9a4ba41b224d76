// Steps on accounts and groups that several handlers share: views, the caller an account stands
// for, group checks, keeping an administrator.
import type { Caller, ListQueryOptions } from '@nap/contracts';
import type { AdminContext } from '../context';
import type { HeldClaim } from '../engine/serialized-changes';
import type { AccountView } from '../domain/accounts';
import { accountView, callerOf, checkedGroups, lastAdmin, losesAdmin } from '../domain/accounts';
import { attemptId, throttleState } from '../domain/login-throttle';
import { operationsOf } from '../domain/roles';
import { refuseChangeOfStrongerGroup } from './delegation';
import type { AccountRecord } from '../store/accounts';
import type { GroupRecord } from '../store/groups';

/** An account as answered, its roles resolved from its groups, with the failed logins counted for it now. */
export async function viewAccount(svc: AdminContext, account: AccountRecord): Promise<AccountView> {
  const [groups, count] = await Promise.all([
    account.groups.length ? svc.groups.byIds(account.groups) : Promise.resolve([] as GroupRecord[]),
    svc.loginAttempts.find(attemptId('account', account.username)),
  ]);
  return accountView(account, new Map(groups.map((g) => [g._id, g])), throttleState(count, svc.now()));
}

/** A page of accounts as answered (`GET /user-management/accounts`, `GET /authorization/accounts`): one read of the counts for the page. */
export async function listAccounts(svc: AdminContext, query: ListQueryOptions): Promise<{ results: AccountView[]; total: number }> {
  const { results, total } = await svc.accounts.list(query);
  const [groups, counts] = await Promise.all([
    svc.groups.all(),
    results.length ? svc.loginAttempts.findMany(results.map((r) => attemptId('account', r.username))) : Promise.resolve([]),
  ]);
  const byGroup = new Map(groups.map((g) => [g._id, g]));
  const byCount = new Map(counts.map((c) => [c._id, c]));
  const now = svc.now();
  return {
    results: results.map((r) => accountView(r, byGroup, throttleState(byCount.get(attemptId('account', r.username)), now))),
    total,
  };
}

/** The group ids, each once; 400 naming `member` when some group does not exist. */
export async function checkGroups(svc: AdminContext, ids: string[], member: string): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  return checkedGroups(unique, await svc.groups.existing(unique), member);
}

/**
 * Runs `change` of accounts or groups that may take the admin role from someone, one at a time
 * across every replica (the `administrators` claim): it reads the records it changes, checks them
 * with {@link keepAnAdmin} / {@link keepAdminRole}, calls `held.confirm()` and writes, and no other
 * such change runs in between. Without it two changes each see the other's administrator and both
 * pass, leaving none. `deadline`: the request's (epoch ms).
 */
export function changingAdministrators<T>(svc: AdminContext, deadline: number, change: (held: HeldClaim) => Promise<T>): Promise<T> {
  return svc.serialized.run('administrators', deadline, change);
}

/** Refuses moving an account from groups `before` to `after` when that leaves no active account with the admin role. */
export async function keepAnAdmin(svc: AdminContext, accountId: string, before: string[], after: string[]): Promise<void> {
  const adminGroups = await svc.groups.withRole('admin');
  if (!losesAdmin(before, after, adminGroups)) return;
  if ((await svc.accounts.countActiveIn(adminGroups, accountId)) === 0) throw lastAdmin();
}

/** Refuses taking the admin role from a group when no active account would hold it through another. */
export async function keepAdminRole(svc: AdminContext, groupId: string): Promise<void> {
  const otherAdminGroups = await svc.groups.withRole('admin', groupId);
  const others = otherAdminGroups.length ? await svc.accounts.countActiveIn(otherAdminGroups) : 0;
  if (others === 0) throw lastAdmin();
}

/** The caller an account stands for, with its groups' roles, and the operations of their custom roles, as they are now. */
export async function callerOfAccount(svc: AdminContext, account: AccountRecord): Promise<Caller> {
  const groups = account.groups.length === 0 ? [] : await svc.groups.byIds(account.groups);
  const roleIds = [...new Set(groups.flatMap((g) => (g.assignedRoles ?? []).map((r) => r.roleId)))];
  return callerOf(account, groups, roleIds.length === 0 ? [] : operationsOf(await svc.roles.byIds(roleIds)));
}

/**
 * Deletes a group (`DELETE /user-management/groups/:groupId`, `DELETE /authorization/groups/:groupId`):
 * it leaves every account that was in it, never the last that gives an active account the admin
 * role; gateways are told. The acknowledgement, with the group as it was.
 */
export async function removeGroup(svc: AdminContext, id: string, caller: Caller, deadline: number) {
  const data = await changingAdministrators(svc, deadline, async (held) => {
    const group = await svc.groups.get(id);
    await refuseChangeOfStrongerGroup(svc, caller, group);
    if (group.roles.includes('admin')) await keepAdminRole(svc, id);
    await held.confirm();
    await svc.groups.delete(id);
    await svc.accounts.removeGroup(id);
    return group;
  });
  await svc.events.groupChanged({ groupId: id });
  return { status: 'success', message: `Group "${data.name}" deleted`, data };
}
