import type { HandlerMap } from '@nap/bus';
import type { AdminContext } from '../context';
import { authenticate } from './authenticate';
import { createAccount } from './create-account';
import { createGroup } from './create-group';
import { createLink } from './create-link';
import { deleteAccount } from './delete-account';
import { deleteGroup } from './delete-group';
import { deleteLink } from './delete-link';
import { getAccount } from './get-account';
import { getAccounts } from './get-accounts';
import { getAssignableRoles } from './get-assignable-roles';
import { getAuthorizationAccount } from './get-authorization-account';
import { getAuthorizationAccounts } from './get-authorization-accounts';
import { getAuthorizationGroup } from './get-authorization-group';
import { getAuthorizationGroups } from './get-authorization-groups';
import { getGroup } from './get-group';
import { getGroups } from './get-groups';
import { getLink } from './get-link';
import { getLinks } from './get-links';
import { getTokenKeys } from './get-token-keys';
import { login } from './login';
import { logout } from './logout';
import { mySession } from './my-session';
import { oauthToken } from './oauth-token';
import { resolveSession } from './resolve-session';
import { setAccountGroups } from './set-account-groups';
import { setAccountPassword } from './set-account-password';
import { setGroupRoles } from './set-group-roles';
import { updateAccount } from './update-account';
import { updateLink } from './update-link';
import { whoami } from './whoami';

/** The admin operations by catalog name, each handler in the file of its name. */
export function adminHandlers(svc: AdminContext): HandlerMap<'admin'> {
  return {
    authenticate: authenticate(svc),
    createAccount: createAccount(svc),
    createGroup: createGroup(svc),
    createLink: createLink(svc),
    deleteAccount: deleteAccount(svc),
    deleteGroup: deleteGroup(svc),
    deleteLink: deleteLink(svc),
    getAccount: getAccount(svc),
    getAccounts: getAccounts(svc),
    getAssignableRoles: getAssignableRoles(svc),
    getAuthorizationAccount: getAuthorizationAccount(svc),
    getAuthorizationAccounts: getAuthorizationAccounts(svc),
    getAuthorizationGroup: getAuthorizationGroup(svc),
    getAuthorizationGroups: getAuthorizationGroups(svc),
    getGroup: getGroup(svc),
    getGroups: getGroups(svc),
    getLink: getLink(svc),
    getLinks: getLinks(svc),
    getTokenKeys: getTokenKeys(svc),
    login: login(svc),
    logout: logout(svc),
    mySession: mySession(svc),
    oauthToken: oauthToken(svc),
    resolveSession: resolveSession(svc),
    setAccountGroups: setAccountGroups(svc),
    setAccountPassword: setAccountPassword(svc),
    setGroupRoles: setGroupRoles(svc),
    updateAccount: updateAccount(svc),
    updateLink: updateLink(svc),
    whoami: whoami(svc),
  };
}
