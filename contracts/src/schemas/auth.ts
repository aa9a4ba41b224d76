import type { TokenPublicKey } from '../auth-token';
import type { Caller } from '../messages';
import { ROLE_NAMES } from '../roles';
import type { JsonSchema } from '../catalog/types';
import { arr, closed, int, name, obj, str, strings, timestamp } from './common';

/** Who is calling (the `caller` of every bus request); the same type as `Caller` of messages.ts. */
export type Identity = Caller;

/** Body of `POST /login`: nested under `user`, or flat. */
export type LoginBody = { user: { username: string; password: string } } | { username: string; password: string };

/** Body of `POST /oauth/token` (form-encoded). */
export interface OAuthTokenBody {
  grant_type: 'client_credentials';
  client_id: string;
  client_secret: string;
  scope?: string;
}

/** Answer of `POST /oauth/token`. */
export interface OAuthTokenResult {
  access_token: string;
  token_type: 'Bearer';
  /** Seconds. */
  expires_in: number;
}

/** The session behind the calling credentials, as `GET /mySession` answers it. */
export interface Session {
  /** How the caller authenticated: `login`, `oauth` or `basic`. */
  method: string;
  /** Absent for Basic credentials, which have no session. */
  sid?: string;
  /** ISO 8601. */
  created?: string;
  /** ISO 8601. */
  expires?: string;
  /** The account record of the caller. */
  account: Record<string, unknown>;
}

/** Answer of `admin.getTokenKeys`. */
export interface TokenKeys {
  keys: TokenPublicKey[];
}

function roleList(): JsonSchema {
  return arr({ type: 'string', enum: [...ROLE_NAMES] }, { uniqueItems: true });
}

/** Identity of a caller. */
export const identitySchema: JsonSchema = {
  $id: 'nap:schemas/identity',
  ...obj(
    { id: str({ description: 'account id' }), username: str(), roles: roleList(), groups: strings({ description: 'group ids' }), sid: str() },
    ['id', 'username', 'roles', 'groups'],
  ),
};

function credentials(): JsonSchema {
  return obj({ username: name(), password: { type: 'string', minLength: 1, description: 'never logged' } }, ['username', 'password']);
}

/** Body of `POST /login`: `{ user: { username, password } }` or `{ username, password }`. */
export const loginBodySchema: JsonSchema = {
  $id: 'nap:schemas/login-body',
  type: 'object',
  properties: { user: credentials(), username: name(), password: { type: 'string', minLength: 1 } },
  anyOf: [{ required: ['user'] }, { required: ['username', 'password'] }],
};

/** Answer of `POST /login`: the token as a bare JSON string. */
export const loginResultSchema: JsonSchema = { $id: 'nap:schemas/login-result', type: 'string', minLength: 1 };

/** Body of `POST /oauth/token` (client credentials grant). */
export const oauthTokenBodySchema: JsonSchema = {
  $id: 'nap:schemas/oauth-token-body',
  ...obj(
    { grant_type: { type: 'string', const: 'client_credentials' }, client_id: name(), client_secret: { type: 'string', minLength: 1 }, scope: str() },
    ['grant_type', 'client_id', 'client_secret'],
  ),
};

/** Answer of `POST /oauth/token`. */
export const oauthTokenResultSchema: JsonSchema = {
  $id: 'nap:schemas/oauth-token-result',
  ...obj(
    { access_token: name(), token_type: { const: 'Bearer' }, expires_in: int({ minimum: 0, description: 'seconds' }) },
    ['access_token', 'token_type', 'expires_in'],
  ),
};

/** Session of the calling credentials. */
export const sessionSchema: JsonSchema = {
  $id: 'nap:schemas/session',
  ...obj(
    {
      method: str({ description: 'how the caller authenticated: login, oauth or basic' }),
      sid: str({ description: 'absent for Basic credentials' }),
      created: timestamp(),
      expires: timestamp(),
      account: obj({ _id: str(), username: str() }, [], { description: 'the account record of the caller, without secrets' }),
    },
    ['method', 'account'],
  ),
};

/**
 * Answer of `GET /whoami`: the caller's account (or, for the system caller, the caller itself).
 * Only `username` is required because both shapes carry it.
 */
export const whoamiSchema: JsonSchema = {
  $id: 'nap:schemas/whoami',
  ...obj({ id: str(), _id: str(), username: str(), roles: roleList(), groups: strings({ description: 'group ids' }) }, ['username']),
};

/** Bus body of `admin.authenticate`: the credentials to check. */
export const authenticateBodySchema: JsonSchema = { $id: 'nap:schemas/authenticate-body', ...credentials() };

/** Bus body of `admin.resolveSession`. */
export const resolveSessionBodySchema: JsonSchema = { $id: 'nap:schemas/resolve-session-body', ...closed({ sid: name('session id') }, ['sid']) };

/** Answer of `admin.getTokenKeys`: the public keys that verify tokens (see auth-token.ts), newest first. */
export const tokenKeysSchema: JsonSchema = {
  $id: 'nap:schemas/token-keys',
  ...obj({ keys: arr(obj({ kid: name('key id, the kid claim of tokens'), publicKeyPem: name('Ed25519 public key, PEM (SPKI)') }, ['kid', 'publicKeyPem'])) }, ['keys']),
};
