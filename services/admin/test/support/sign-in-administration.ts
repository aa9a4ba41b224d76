import type { TestPlatform } from '@nap/standalone';

/**
 * What the tests of sign-in methods (LDAP, RADIUS, OpenID, SAML) ask the platform as its
 * administrator: the active profile and its providers, and the accounts and groups a sign-in made.
 */

/** A profile as `GET /profiles/:id` answers it. */
export type Profile = { id: string; authenticationProps?: Record<string, unknown> } & Record<string, unknown>;

/** A group as `GET /user-management/groups` lists it. */
export interface Group {
  _id: string;
  name: string;
  roles: string[];
  provenance?: string;
}

/** An account as `GET /user-management/accounts` lists it (and `/whoami` answers it, groups aside). */
export interface Account {
  _id: string;
  username: string;
  roles: string[];
  groups: string[];
  provenance?: string;
  firstname?: string;
  email?: string;
  lastLogin?: string;
}

/** The calls, bound to the platform and the administrator's token the test has when it makes them. */
export interface SignInAdministration {
  /** The active profile (`default`). */
  activeProfile(): Promise<Profile>;
  /** Replaces the providers of the active profile (secrets answered as ******** are kept). */
  setProviders(providers: Record<string, unknown>): Promise<void>;
  /** The account named `username`; throws when there is none. */
  accountOf(username: string): Promise<Account>;
  /** Every group, by name. */
  groupsByName(): Promise<Map<string, Group>>;
  /** The names of the groups `ids`, sorted (an id no group has stays as it is). */
  groupNames(ids: string[]): Promise<string[]>;
  /** `name:provenance` of the groups `ids`, sorted. */
  groupProvenances(ids: string[]): Promise<string[]>;
}

/**
 * Binds the calls to `session()`, read at each call: the test's platform and administrator token
 * are set in its `beforeAll`, after the calls are bound at the top of the file.
 */
export function signInAdministration(session: () => { platform: TestPlatform; token: string }): SignInAdministration {
  const get = async (route: string): Promise<unknown> => {
    const { platform, token } = session();
    const res = await platform.http('GET', route, { token });
    if (res.status !== 200) throw new Error(`GET ${route}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const activeProfile = async (): Promise<Profile> => ((await get('/profiles/default')) as { profile: Profile }).profile;
  const groupsByName = async (): Promise<Map<string, Group>> =>
    new Map(((await get('/user-management/groups')) as { results: Group[] }).results.map((g) => [g.name, g]));
  const groupsById = async (): Promise<Map<string, Group>> => new Map([...(await groupsByName()).values()].map((g) => [g._id, g]));
  return {
    activeProfile,
    async setProviders(providers) {
      const profile = await activeProfile();
      const { platform, token } = session();
      const res = await platform.http('PUT', '/profiles/default', {
        token,
        body: { properties: { ...profile, authenticationProps: { ...profile.authenticationProps, providers } } },
      });
      if (res.status !== 200) throw new Error(`PUT /profiles/default: ${res.status} ${JSON.stringify(res.body)}`);
    },
    async accountOf(username) {
      const account = ((await get('/user-management/accounts')) as { results: Account[] }).results.find((a) => a.username === username);
      if (!account) throw new Error(`no account ${username}`);
      return account;
    },
    groupsByName,
    async groupNames(ids) {
      const byId = await groupsById();
      return ids.map((id) => byId.get(id)?.name ?? id).sort();
    },
    async groupProvenances(ids) {
      const byId = await groupsById();
      return ids.map((id) => `${byId.get(id)?.name}:${byId.get(id)?.provenance}`).sort();
    },
  };
}
