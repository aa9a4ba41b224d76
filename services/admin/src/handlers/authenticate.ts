import type { Handler } from '@nap/bus';
import { checkCredentials } from '../context';
import type { AdminContext } from '../context';

/** Bus only: checks basic credentials for a gateway; answers the caller they stand for. */
export function authenticate(svc: AdminContext): Handler<'admin.authenticate'> {
  return async (input) => checkCredentials(svc, input.body.username, input.body.password);
}
