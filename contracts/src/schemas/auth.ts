import type { Static } from '@sinclair/typebox';
import { ROLE_NAMES } from '../roles';
import { Type, arr, closed, int, literal, name, obj, oneOf, str, strings, timestamp, withId } from './common';

function roleList() {
  return arr(oneOf(ROLE_NAMES), { uniqueItems: true });
}

/**
 * Identity of a caller: what `admin.authenticate` and `admin.resolveSession` answer and what the
 * gateway puts in the `caller` of every bus request. Its type is `Caller` of messages.ts.
 */
export const identitySchema = withId(
  'nap:schemas/identity',
  obj(
    {
      id: str({ description: 'account id; system for work the platform does on its own' }),
      username: str(),
      roles: roleList(),
      groups: strings({ description: 'group ids' }),
      sid: str({ description: 'session id of the token, when the call came from a token' }),
      operations: strings({
        description: 'ids of the operations the custom roles of its groups allow, beside what its roles allow; absent when none',
      }),
    },
    ['id', 'username', 'roles', 'groups'],
  ),
);
/** Who is calling (the `caller` of every bus request); `Caller` of messages.ts is this type. */
export type Identity = Static<typeof identitySchema>;

function credentials() {
  return obj({ username: name(), password: str({ minLength: 1, description: 'never logged' }) }, ['username', 'password']);
}
/** A username and password, as `POST /login` and `admin.authenticate` take them. */
export type Credentials = Static<ReturnType<typeof credentials>>;

/** Body of `POST /login`: nested under `user`, or flat. */
export type LoginBody = { user: Credentials } | Credentials;

/** Body of `POST /login`: `{ user: { username, password } }` or `{ username, password }`. */
export const loginBodySchema = withId(
  'nap:schemas/login-body',
  Type.Unsafe<LoginBody>(
    obj({ user: credentials(), username: name(), password: str({ minLength: 1 }) }, [], {
      anyOf: [{ required: ['user'] }, { required: ['username', 'password'] }],
    }),
  ),
);

/** Answer of `POST /login`: the bare token, as `text/plain`. */
export const loginResultSchema = withId('nap:schemas/login-result', str({ minLength: 1 }));

/** Body of `POST /oauth/token` (client credentials grant, form-encoded). */
export const oauthTokenBodySchema = withId(
  'nap:schemas/oauth-token-body',
  obj({ grant_type: literal('client_credentials'), client_id: name(), client_secret: str({ minLength: 1 }), scope: str() }, [
    'grant_type',
    'client_id',
    'client_secret',
  ]),
);
/** Body of `POST /oauth/token` (form-encoded). */
export type OAuthTokenBody = Static<typeof oauthTokenBodySchema>;

/** Answer of `POST /oauth/token`. */
export const oauthTokenResultSchema = withId(
  'nap:schemas/oauth-token-result',
  obj({ access_token: name(), token_type: literal('Bearer'), expires_in: int({ minimum: 0, description: 'seconds' }) }, [
    'access_token',
    'token_type',
    'expires_in',
  ]),
);
/** Answer of `POST /oauth/token`. */
export type OAuthTokenResult = Static<typeof oauthTokenResultSchema>;

/** Session of the calling credentials, as `GET /mySession` answers it. */
export const sessionSchema = withId(
  'nap:schemas/session',
  obj(
    {
      method: str({ description: 'how the caller authenticated: login, oauth or basic' }),
      sid: str({ description: 'absent for Basic credentials' }),
      created: timestamp(),
      expires: timestamp(),
      account: obj({ _id: str(), username: str() }, [], { description: 'the account record of the caller, without secrets' }),
    },
    ['method', 'account'],
  ),
);
/** The session behind the calling credentials, as `GET /mySession` answers it. */
export type Session = Static<typeof sessionSchema>;

/**
 * Answer of `GET /whoami`: the caller's account (or, for the system caller, the caller itself).
 * Only `username` is required because both shapes carry it.
 */
export const whoamiSchema = withId(
  'nap:schemas/whoami',
  obj(
    {
      id: str(),
      _id: str(),
      username: str(),
      roles: roleList(),
      groups: strings({ description: 'group ids' }),
      provenance: str({
        description:
          'the sign-in method (LDAP, RADIUS, OIDC, SAML) that brought the account in and keeps its password; absent for an account whose password NAP keeps (PUT /whoami/password changes it)',
      }),
    },
    ['username'],
  ),
);

/** Bus body of `admin.authenticate`: the credentials to check. */
export const authenticateBodySchema = withId('nap:schemas/authenticate-body', credentials());

/** Bus body of `admin.resolveSession`. */
export const resolveSessionBodySchema = withId('nap:schemas/resolve-session-body', closed({ sid: name('session id') }, ['sid']));

/** Answer of `admin.getTokenKeys`: the public keys that verify tokens (see auth-token.ts), newest first. */
export const tokenKeysSchema = withId(
  'nap:schemas/token-keys',
  obj(
    {
      keys: arr(
        obj({ kid: name('key id, the kid claim of tokens'), publicKeyPem: name('Ed25519 public key, PEM (SPKI)') }, [
          'kid',
          'publicKeyPem',
        ]),
      ),
    },
    ['keys'],
  ),
);
/** Answer of `admin.getTokenKeys`. */
export type TokenKeys = Static<typeof tokenKeysSchema>;
