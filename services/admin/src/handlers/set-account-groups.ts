import type { Handler } from '@nap/bus';
import { auditChanges } from '@nap/contracts';
import { changingAdministrators, checkGroups, keepAnAdmin, viewAccount } from '../steps/accounts';
import type { AdminContext } from '../context';
import { refuseChangeOfStrongerAccount, refuseGroupsBeyondCaller } from '../steps/delegation';

/** `PUT /user-management/accounts/:accountId/groups`: set groups of an account (never taking the admin role from the last administrator). */
export function setAccountGroups(svc: AdminContext): Handler<'admin.setAccountGroups'> {
  return async (input, ctx) => {
    const id = input.params.accountId;
    const { current, updated } = await changingAdministrators(svc, ctx.deadline, async (held) => {
      const current = await svc.accounts.get(id);
      const groups = await checkGroups(svc, input.body.groups, 'body.groups');
      await refuseChangeOfStrongerAccount(svc, ctx.caller, current);
      await refuseGroupsBeyondCaller(
        svc,
        ctx.caller,
        groups.filter((g) => !current.groups.includes(g)),
      );
      await keepAnAdmin(svc, current._id, current.groups, groups);
      await held.confirm();
      const updated = await svc.accounts.update(id, {
        groups,
        lastUpdated: new Date().toISOString(),
        lastUpdatedBy: ctx.caller.username,
      });
      return { current, updated };
    });
    ctx.audit({ target: { kind: 'account', id, name: current.username }, changes: auditChanges(current, updated) });
    await svc.events.accountChanged({ accountId: id, reason: 'groups' });
    return viewAccount(svc, updated);
  };
}
