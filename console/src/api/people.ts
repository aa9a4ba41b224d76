import type { BodyOf, ResponseOf } from '@nap/contracts';
import { request } from './http';
import type { Query } from './http';

/**
 * Accounts, groups and roles as the People pages use them (`/user-management/…`, and
 * `PATCH /authorization/accounts/:accountId`), typed by `@nap/contracts` (type imports only).
 * Every route is the admin role's; each function is one catalog route.
 */

export type AccountPage = ResponseOf<'admin.getAccounts'>;
export type Account = ResponseOf<'admin.getAccount'>;
export type NewAccount = BodyOf<'admin.createAccount'>['account'];
export type AccountPatch = BodyOf<'admin.updateAccount'>;
export type GroupPage = ResponseOf<'admin.getGroups'>;
export type Group = ResponseOf<'admin.getGroup'>;
export type NewGroup = BodyOf<'admin.createGroup'>['group'];
export type RoleName = NonNullable<Group['roles']>[number];
export type AssignableRole = ResponseOf<'admin.getAssignableRoles'>['results'][number];
export type Acknowledgement = ResponseOf<'admin.unlockAccount'>;
export type AccountSession = ResponseOf<'admin.getAccountSessions'>['results'][number];

/** The roles a group may hold, as the catalog names them: the compiler refuses a list that misses or adds one. */
const ROLE_NAMES = {
  admin: true,
  engineering: true,
  operations: true,
  apiread: true,
  apiwrite: true,
  auditor: true,
} as const satisfies Record<RoleName, true>;

/** True for a role a group may hold (the names `GET /user-management/roles` answers are plain text). */
export function isRoleName(name: string): name is RoleName {
  return Object.hasOwn(ROLE_NAMES, name);
}

const enc = encodeURIComponent;
const accountRoute = (accountId: string) => `/user-management/accounts/${enc(accountId)}`;
const groupRoute = (groupId: string) => `/user-management/groups/${enc(groupId)}`;

export const people = {
  /** `GET /user-management/accounts`: a page of accounts by the shared list options (`contains[username]`, `skip`, `limit`), sorted by username. */
  accounts: (query: Query, signal?: AbortSignal) =>
    request<AccountPage>('GET', '/user-management/accounts', { query, ...(signal ? { signal } : {}) }),
  /** `GET /user-management/accounts/:accountId`; 404 `ACCOUNT_NOT_FOUND`. */
  account: (accountId: string) => request<Account>('GET', accountRoute(accountId)),
  /**
   * `POST /user-management/accounts`: the created account. Refusals: 400 `VALIDATION_FAILED` naming
   * the member (`body.account.password` for the active profile's password rules, `body.account.groups`
   * for a group that does not exist), 409 `ACCOUNT_ALREADY_EXISTS`.
   */
  createAccount: async (account: NewAccount): Promise<Account> => {
    const body: BodyOf<'admin.createAccount'> = { account };
    return (await request<ResponseOf<'admin.createAccount'>>('POST', '/user-management/accounts', { body })).data;
  },
  /**
   * `PATCH /authorization/accounts/:accountId`: names, email, `inactive` (an inactive account
   * cannot log in and its sessions end). 422 `ACCOUNT_PROTECTED` when it would leave no active admin.
   */
  updateAccount: (accountId: string, patch: AccountPatch) =>
    request<ResponseOf<'admin.updateAccount'>>('PATCH', `/authorization/accounts/${enc(accountId)}`, { body: patch }),
  /** `PUT /user-management/accounts/:accountId/groups`: replaces its groups; 422 `ACCOUNT_PROTECTED` when it would leave no active admin. */
  setAccountGroups: (accountId: string, groups: string[]) => {
    const body: BodyOf<'admin.setAccountGroups'> = { groups };
    return request<ResponseOf<'admin.setAccountGroups'>>('PUT', `${accountRoute(accountId)}/groups`, { body });
  },
  /**
   * `PUT /user-management/accounts/:accountId/password`: every session of the account ends. 400
   * `VALIDATION_FAILED` naming `body.password`; 422 `UNPROCESSABLE` for an account of a sign-in method.
   */
  setAccountPassword: (accountId: string, password: string) => {
    const body: BodyOf<'admin.setAccountPassword'> = { password };
    return request<ResponseOf<'admin.setAccountPassword'>>('PUT', `${accountRoute(accountId)}/password`, { body });
  },
  /** `POST /user-management/accounts/:accountId/unlock`: forgets the failed logins counted for its username. */
  unlockAccount: (accountId: string) => request<Acknowledgement>('POST', `${accountRoute(accountId)}/unlock`),
  /** `GET …/sessions`: the account's live sessions, newest first (never a token). */
  sessions: async (accountId: string) =>
    (await request<ResponseOf<'admin.getAccountSessions'>>('GET', `${accountRoute(accountId)}/sessions`)).results,
  /** `DELETE …/sessions/:sessionId`: one session ends; 404 `SESSION_NOT_FOUND` when it had already. */
  endSession: (accountId: string, sessionId: string) =>
    request<Acknowledgement>('DELETE', `${accountRoute(accountId)}/sessions/${enc(sessionId)}`),
  /** `DELETE …/sessions`: every session of the account ends. */
  endSessions: (accountId: string) => request<Acknowledgement>('DELETE', `${accountRoute(accountId)}/sessions`),
  /** `DELETE /user-management/accounts/:accountId`: its sessions end; 422 `ACCOUNT_PROTECTED` for the caller's own or the last admin. */
  deleteAccount: (accountId: string) => request<ResponseOf<'admin.deleteAccount'>>('DELETE', accountRoute(accountId)),

  /** `GET /user-management/groups`: every group (up to the platform's largest page), sorted by name. */
  groups: () => request<GroupPage>('GET', '/user-management/groups'),
  /** `GET /user-management/groups/:groupId`; 404 `GROUP_NOT_FOUND`. */
  group: (groupId: string) => request<Group>('GET', groupRoute(groupId)),
  /** `POST /user-management/groups`: the created group's id (undefined if the answer names none); 409 `GROUP_ALREADY_EXISTS`. */
  createGroup: async (group: NewGroup): Promise<{ id: string | undefined; message: string }> => {
    const body: BodyOf<'admin.createGroup'> = { group };
    const answer = await request<ResponseOf<'admin.createGroup'>>('POST', '/user-management/groups', { body });
    const id: unknown = answer.data._id;
    return { id: typeof id === 'string' ? id : undefined, message: answer.message };
  },
  /** `PUT /user-management/groups/:groupId/roles`: replaces its roles; 422 `ACCOUNT_PROTECTED` when no active admin would be left. */
  setGroupRoles: (groupId: string, roles: RoleName[]) => {
    const body: BodyOf<'admin.setGroupRoles'> = { roles };
    return request<Group>('PUT', `${groupRoute(groupId)}/roles`, { body });
  },
  /** `DELETE /user-management/groups/:groupId`: the group leaves every account in it; 422 `ACCOUNT_PROTECTED` when no active admin would be left. */
  deleteGroup: (groupId: string) => request<ResponseOf<'admin.deleteGroup'>>('DELETE', groupRoute(groupId)),
  /** `GET /user-management/roles`: the roles a group can give, with what each allows. */
  roles: async () => (await request<ResponseOf<'admin.getAssignableRoles'>>('GET', '/user-management/roles')).results,
};
