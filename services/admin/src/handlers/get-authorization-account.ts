import type { Handler } from '@nap/bus';
import { viewAccount } from '../steps/accounts';
import type { AdminContext } from '../context';

/** `GET /authorization/accounts/:accountId`: the same account as `GET /user-management/accounts/:accountId`, under the platform's own name. */
export function getAuthorizationAccount(svc: AdminContext): Handler<'admin.getAuthorizationAccount'> {
  return async (input) => viewAccount(svc, await svc.accounts.get(input.params.accountId));
}
