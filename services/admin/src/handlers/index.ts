import type { HandlerMap } from '@nap/bus';
import type { AdminContext } from '../context';
import { authenticate } from './authenticate';
import { checkIndexes } from './check-indexes';
import { createAccount } from './create-account';
import { createGroup } from './create-group';
import { createIndexes } from './create-indexes';
import { createLink } from './create-link';
import { createProfile } from './create-profile';
import { createRepositoryConfig } from './create-repository-config';
import { deleteAccount } from './delete-account';
import { deleteGroup } from './delete-group';
import { deleteLink } from './delete-link';
import { deleteProfile } from './delete-profile';
import { deleteRepositoryConfig } from './delete-repository-config';
import { exportProfile } from './export-profile';
import { getAccount } from './get-account';
import { getAccounts } from './get-accounts';
import { getApplicationChangelogs } from './get-application-changelogs';
import { getApplicationHealth } from './get-application-health';
import { getApplicationSchema } from './get-application-schema';
import { getApplication } from './get-application';
import { getApplicationsHealth } from './get-applications-health';
import { getApplications } from './get-applications';
import { getAssignableRoles } from './get-assignable-roles';
import { getAuthorizationAccount } from './get-authorization-account';
import { getAuthorizationAccounts } from './get-authorization-accounts';
import { getAuthorizationGroup } from './get-authorization-group';
import { getAuthorizationGroups } from './get-authorization-groups';
import { getExporterMetrics } from './get-exporter-metrics';
import { getGroup } from './get-group';
import { getGroups } from './get-groups';
import { getHealthStatus } from './get-health-status';
import { getIndexes } from './get-indexes';
import { getLink } from './get-link';
import { getLinks } from './get-links';
import { getProfileSchema } from './get-profile-schema';
import { getProfile } from './get-profile';
import { getProfiles } from './get-profiles';
import { getRepositoryConfigs } from './get-repository-configs';
import { getRepositoryPrebuilts } from './get-repository-prebuilts';
import { getServerHealth } from './get-server-health';
import { getSystemHealth } from './get-system-health';
import { getTokenKeys } from './get-token-keys';
import { importProfile } from './import-profile';
import { login } from './login';
import { logout } from './logout';
import { mySession } from './my-session';
import { oauthToken } from './oauth-token';
import { resolveSession } from './resolve-session';
import { restartApplication } from './restart-application';
import { setAccountGroups } from './set-account-groups';
import { setAccountPassword } from './set-account-password';
import { setGroupRoles } from './set-group-roles';
import { startApplication } from './start-application';
import { stopApplication } from './stop-application';
import { switchActiveProfile } from './switch-active-profile';
import { updateAccount } from './update-account';
import { updateApplicationLogging } from './update-application-logging';
import { updateApplicationProperties } from './update-application-properties';
import { updateApplication } from './update-application';
import { updateLink } from './update-link';
import { updateProfile } from './update-profile';
import { updateRepositoryConfig } from './update-repository-config';
import { whoami } from './whoami';

/** The admin operations by catalog name, each handler in the file of its name. */
export function adminHandlers(svc: AdminContext): HandlerMap<'admin'> {
  return {
    authenticate: authenticate(svc),
    checkIndexes: checkIndexes(svc),
    createAccount: createAccount(svc),
    createGroup: createGroup(svc),
    createIndexes: createIndexes(svc),
    createLink: createLink(svc),
    createProfile: createProfile(svc),
    createRepositoryConfig: createRepositoryConfig(svc),
    deleteAccount: deleteAccount(svc),
    deleteGroup: deleteGroup(svc),
    deleteLink: deleteLink(svc),
    deleteProfile: deleteProfile(svc),
    deleteRepositoryConfig: deleteRepositoryConfig(svc),
    exportProfile: exportProfile(svc),
    getAccount: getAccount(svc),
    getAccounts: getAccounts(svc),
    getApplicationChangelogs: getApplicationChangelogs(svc),
    getApplicationHealth: getApplicationHealth(svc),
    getApplicationSchema: getApplicationSchema(svc),
    getApplication: getApplication(svc),
    getApplicationsHealth: getApplicationsHealth(svc),
    getApplications: getApplications(svc),
    getAssignableRoles: getAssignableRoles(svc),
    getAuthorizationAccount: getAuthorizationAccount(svc),
    getAuthorizationAccounts: getAuthorizationAccounts(svc),
    getAuthorizationGroup: getAuthorizationGroup(svc),
    getAuthorizationGroups: getAuthorizationGroups(svc),
    getExporterMetrics: getExporterMetrics(svc),
    getGroup: getGroup(svc),
    getGroups: getGroups(svc),
    getHealthStatus: getHealthStatus(svc),
    getIndexes: getIndexes(svc),
    getLink: getLink(svc),
    getLinks: getLinks(svc),
    getProfileSchema: getProfileSchema(svc),
    getProfile: getProfile(svc),
    getProfiles: getProfiles(svc),
    getRepositoryConfigs: getRepositoryConfigs(svc),
    getRepositoryPrebuilts: getRepositoryPrebuilts(svc),
    getServerHealth: getServerHealth(svc),
    getSystemHealth: getSystemHealth(svc),
    getTokenKeys: getTokenKeys(svc),
    importProfile: importProfile(svc),
    login: login(svc),
    logout: logout(svc),
    mySession: mySession(svc),
    oauthToken: oauthToken(svc),
    resolveSession: resolveSession(svc),
    restartApplication: restartApplication(svc),
    setAccountGroups: setAccountGroups(svc),
    setAccountPassword: setAccountPassword(svc),
    setGroupRoles: setGroupRoles(svc),
    startApplication: startApplication(svc),
    stopApplication: stopApplication(svc),
    switchActiveProfile: switchActiveProfile(svc),
    updateAccount: updateAccount(svc),
    updateApplicationLogging: updateApplicationLogging(svc),
    updateApplicationProperties: updateApplicationProperties(svc),
    updateApplication: updateApplication(svc),
    updateLink: updateLink(svc),
    updateProfile: updateProfile(svc),
    updateRepositoryConfig: updateRepositoryConfig(svc),
    whoami: whoami(svc),
  };
}
