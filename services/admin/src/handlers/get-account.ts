import type { Handler } from '@nap/bus';
import { viewAccount } from '../steps/accounts';
import type { AdminContext } from '../context';

/** `GET /user-management/accounts/:accountId`: get an account. */
export function getAccount(svc: AdminContext): Handler<'admin.getAccount'> {
  return async (input) => viewAccount(svc, await svc.accounts.get(input.params.accountId));
}
