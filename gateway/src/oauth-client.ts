import type { IncomingMessage } from 'node:http';
import { AppError } from '@nap/contracts';
import type { OperationDef, OperationId } from '@nap/contracts';
import { isRecord } from '@nap/util';

const OAUTH_TOKEN: OperationId = 'admin.oauthToken';

/**
 * The client credentials of `POST /oauth/token` sent as RFC 6749 §2.3.1 says a client may send them,
 * and must be accepted: `Authorization: Basic` of the client id and secret, each form-encoded
 * first (`client_secret_basic`, what Spring Security and many OAuth libraries send by default). They
 * become the body's `client_id` and `client_secret`, as if they had been sent there, so that the
 * admin service checks them, the login throttle counts them and the audit trail names the account,
 * exactly as for the form members. Any other operation's body is answered as it is.
 *
 * Errors: 400 `VALIDATION_FAILED` naming `body.client_secret` or `body.client_id` when the form
 * sends one that differs from the header's (the RFC allows one way per request);
 * 401 `UNAUTHENTICATED` for a Basic header that holds no `id:secret` when the form holds no secret either.
 */
export function withOAuthClientCredentials(op: OperationDef, req: IncomingMessage, body: unknown): unknown {
  if (op.id !== OAUTH_TOKEN) return body;
  const authorization = req.headers.authorization;
  if (authorization === undefined) return body;
  const space = authorization.indexOf(' ');
  if (authorization.slice(0, space).toLowerCase() !== 'basic') return body;
  const decoded = Buffer.from(authorization.slice(space + 1).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const form = isRecord(body) ? body : {};
  if (colon <= 0) {
    // the form's credentials are what counts then, as before this way was taken
    if (form.client_secret !== undefined) return body;
    throw new AppError('UNAUTHENTICATED', 'The Authorization header of POST /oauth/token is not "Basic <client_id:client_secret>"');
  }
  const id = formDecoded(decoded.slice(0, colon));
  const secret = formDecoded(decoded.slice(colon + 1));
  // the RFC wants one way; clients that send both alike (some libraries do) are taken at their word
  if (form.client_secret !== undefined && form.client_secret !== secret)
    throw invalid('body.client_secret', 'is not the client secret of the Authorization header; send the client secret one way');
  if (form.client_id !== undefined && form.client_id !== id)
    throw invalid('body.client_id', 'is not the client id of the Authorization header; send one client');
  return { ...form, client_id: id, client_secret: secret };
}

/**
 * A client id or secret as RFC 6749 Appendix B encodes it before Basic (`+` a space, `%XX` a byte);
 * as it is when it is no such encoding (a `%` not followed by a byte), as clients that skip the
 * encoding send it.
 */
function formDecoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

function invalid(member: string, message: string): AppError {
  return new AppError('VALIDATION_FAILED', `${member} ${message}`, { details: [{ member, message }] });
}
