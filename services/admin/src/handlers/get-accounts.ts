import type { Handler } from '@nap/bus';
import { listAccounts } from '../steps/accounts';
import type { AdminContext } from '../context';

/** `GET /user-management/accounts`: a page of accounts by the shared list options (every account up to 500 when no limit is given). */
export function getAccounts(svc: AdminContext): Handler<'admin.getAccounts'> {
  return async (input) => listAccounts(svc, input.query);
}
