import type { IncomingMessage } from 'node:http';
import { AppError } from '@nap/contracts';
import type { Caller } from '@nap/contracts';
import type { Authenticator } from './auth/authenticator';
import { readCredentials } from './auth/authenticator';

/**
 * Who is calling: the caller of the request's credentials (a Bearer token, the `token` cookie,
 * `?token=` or Basic), decided before the body is read.
 *
 * Errors: `UNAUTHENTICATED` without credentials or with credentials the authenticator refuses.
 */
export async function authenticate(authenticator: Authenticator, req: IncomingMessage, query: Record<string, unknown>): Promise<Caller> {
  const credentials = readCredentials(req.headers, query.token);
  if (!credentials) throw new AppError('UNAUTHENTICATED', 'Credentials are required: a Bearer token, the token cookie, ?token= or Basic');
  return authenticator.authenticate(credentials);
}
