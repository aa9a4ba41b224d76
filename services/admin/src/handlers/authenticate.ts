import type { Handler } from '@nap/bus';
import { checkCredentials, loginAttempt } from '../steps/sign-in';
import type { AdminContext } from '../context';

/** Bus only: checks basic credentials for a gateway (throttled like a login); answers the caller they stand for. */
export function authenticate(svc: AdminContext): Handler<'admin.authenticate'> {
  return async (input, ctx) => checkCredentials(svc, input.body.username, input.body.password, loginAttempt(svc, ctx, 'basic'));
}
