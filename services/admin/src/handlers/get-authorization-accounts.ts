import type { Handler } from '@nap/bus';
import { listAccounts } from '../steps/accounts';
import type { AdminContext } from '../context';

/** `GET /authorization/accounts`: the same page as `GET /user-management/accounts`, under the platform's own name. */
export function getAuthorizationAccounts(svc: AdminContext): Handler<'admin.getAuthorizationAccounts'> {
  return async (input) => listAccounts(svc, input.query);
}
