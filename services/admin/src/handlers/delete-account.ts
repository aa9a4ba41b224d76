import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import { changingAdministrators, keepAnAdmin, viewAccount } from '../steps/accounts';
import type { AdminContext } from '../context';
import { refuseChangeOfStrongerAccount } from '../steps/delegation';

/** `DELETE /user-management/accounts/:accountId`: never the caller's own account, nor the last active administrator; its sessions end. */
export function deleteAccount(svc: AdminContext): Handler<'admin.deleteAccount'> {
  return async (input, ctx) => {
    const id = input.params.accountId;
    const data = await changingAdministrators(svc, ctx.deadline, async (held) => {
      const current = await svc.accounts.get(id);
      if (id === ctx.caller.id) throw new AppError('ACCOUNT_PROTECTED', `Account "${current.username}" cannot delete itself`);
      await refuseChangeOfStrongerAccount(svc, ctx.caller, current);
      await keepAnAdmin(svc, current._id, current.groups, []);
      const view = await viewAccount(svc, current);
      await held.confirm();
      await svc.accounts.delete(id);
      return view;
    });
    await svc.sessions.revokeAllOf(id);
    await svc.events.accountChanged({ accountId: id, reason: 'deleted' });
    return { status: 'success', message: `Account "${data.username}" deleted`, data };
  };
}
