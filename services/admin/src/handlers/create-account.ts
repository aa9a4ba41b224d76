import { addAccount, viewAccount } from '../context';
import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `POST /user-management/accounts`: Create a service account. */
export function createAccount(svc: AdminContext): Handler<'admin.createAccount'> {
  return async (input, ctx) => {
    const data = await viewAccount(svc, await addAccount(svc, input.body.account, ctx.caller.username));
    return { status: 'Created', message: `Account "${data.username}" created`, data };
  };
}
