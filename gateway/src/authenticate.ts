import type { IncomingMessage } from 'node:http';
import { AppError } from '@nap/contracts';
import type { Caller } from '@nap/contracts';
import type { Context } from '@nap/telemetry';
import type { Authenticator } from './auth/authenticator';
import { readCredentials } from './auth/authenticator';
import type { RequestLocals } from './exchange';
import type { ClientAddress } from './client-address';

/**
 * Who is calling: the caller of the request's credentials (a Bearer token, the `token` cookie,
 * `?token=` or Basic), decided before the body is read. Basic credentials are a login each time
 * they are checked, counted by the request's address.
 *
 * Errors: `UNAUTHENTICATED` without credentials or with credentials the authenticator refuses;
 * `LOGIN_THROTTLED` for Basic credentials of a username or address that must wait.
 */
export async function authenticate(
  authenticator: Authenticator,
  req: IncomingMessage,
  query: Record<string, unknown>,
  clientAddress: ClientAddress,
  locals?: RequestLocals,
  /** The request's trace context, when the caller has one: the parent of a call to the admin service. */
  trace?: Context,
): Promise<Caller> {
  const credentials = readCredentials(req.headers, query.token);
  if (locals !== undefined) {
    // the audit trail says how the actor authenticated, and whom Basic credentials named when they fail
    locals.credentials = credentials
      ? {
          via: credentials.via ?? (credentials.kind === 'basic' ? 'basic' : 'bearer'),
          ...(credentials.kind === 'basic' ? { username: credentials.username.slice(0, 256) } : {}),
        }
      : { via: 'none' };
  }
  if (!credentials) throw new AppError('UNAUTHENTICATED', 'Credentials are required: a Bearer token, the token cookie, ?token= or Basic');
  const caller = await authenticator.authenticate(
    credentials,
    credentials.kind === 'basic' ? { address: clientAddress(req), trace } : { trace },
  );
  if (locals !== undefined) locals.caller = caller;
  return caller;
}
