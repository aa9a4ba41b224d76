import type { HandlerMap } from '@nap/bus';
import type { AdminContext } from '../context';
import { authenticate } from './authenticate';
import { callAdapter } from './call-adapter';
import { changeMyPassword } from './change-my-password';
import { checkIndexes } from './check-indexes';
import { createAccount } from './create-account';
import { createAdapter } from './create-adapter';
import { createGroup } from './create-group';
import { createIndexes } from './create-indexes';
import { createIntegration } from './create-integration';
import { createIntegrationModel } from './create-integration-model';
import { createLink } from './create-link';
import { createProfile } from './create-profile';
import { createRepositoryConfig } from './create-repository-config';
import { deleteAccount } from './delete-account';
import { deleteAdapter } from './delete-adapter';
import { deleteGroup } from './delete-group';
import { deleteIntegration } from './delete-integration';
import { deleteIntegrationModel } from './delete-integration-model';
import { deleteLink } from './delete-link';
import { deleteProfile } from './delete-profile';
import { deleteRepositoryConfig } from './delete-repository-config';
import { exportAdapter } from './export-adapter';
import { exportIntegrationModel } from './export-integration-model';
import { exportPrebuilt } from './export-prebuilt';
import { exportProfile } from './export-profile';
import { getAccount } from './get-account';
import { getAccounts } from './get-accounts';
import { getAdapter } from './get-adapter';
import { getAdapterChangelogs } from './get-adapter-changelogs';
import { getAdapterHealth } from './get-adapter-health';
import { getAdapterModelTypes } from './get-adapter-model-types';
import { getAdapterSchema } from './get-adapter-schema';
import { getAdapters } from './get-adapters';
import { getAdaptersHealth } from './get-adapters-health';
import { getApplication } from './get-application';
import { getApplicationChangelogs } from './get-application-changelogs';
import { getApplicationHealth } from './get-application-health';
import { getApplicationSchema } from './get-application-schema';
import { getApplications } from './get-applications';
import { getApplicationsHealth } from './get-applications-health';
import { getAssignableRoles } from './get-assignable-roles';
import { getAuthorizationAccount } from './get-authorization-account';
import { getAuthorizationAccounts } from './get-authorization-accounts';
import { getAuthorizationGroup } from './get-authorization-group';
import { getAuthorizationGroups } from './get-authorization-groups';
import { getBrokerMap } from './get-broker-map';
import { getExporterMetrics } from './get-exporter-metrics';
import { getGroup } from './get-group';
import { getGroups } from './get-groups';
import { getHealthStatus } from './get-health-status';
import { getIndexes } from './get-indexes';
import { getIntegration } from './get-integration';
import { getIntegrationModel } from './get-integration-model';
import { getIntegrationModels } from './get-integration-models';
import { getIntegrationSchema } from './get-integration-schema';
import { getIntegrations } from './get-integrations';
import { getLink } from './get-link';
import { getLinks } from './get-links';
import { getPrebuilt } from './get-prebuilt';
import { getPrebuilts } from './get-prebuilts';
import { getProfile } from './get-profile';
import { getProfileSchema } from './get-profile-schema';
import { getProfiles } from './get-profiles';
import { getRepositoryConfigs } from './get-repository-configs';
import { getRepositoryPrebuilts } from './get-repository-prebuilts';
import { getServerHealth } from './get-server-health';
import { getSystemHealth } from './get-system-health';
import { getTokenKeys } from './get-token-keys';
import { importAdapter } from './import-adapter';
import { importPrebuilt } from './import-prebuilt';
import { importProfile } from './import-profile';
import { login } from './login';
import { getSamlMetadata } from './get-saml-metadata';
import { getSsoMethods } from './get-sso-methods';
import { samlAcs } from './saml-acs';
import { ssoCallback } from './sso-callback';
import { ssoLogin } from './sso-login';
import { logout } from './logout';
import { mySession } from './my-session';
import { oauthToken } from './oauth-token';
import { removePrebuilt } from './remove-prebuilt';
import { resolveSession } from './resolve-session';
import { restartAdapter } from './restart-adapter';
import { restartApplication } from './restart-application';
import { runTask } from './run-task';
import { setAccountGroups } from './set-account-groups';
import { setAccountPassword } from './set-account-password';
import { setGroupRoles } from './set-group-roles';
import { startAdapter } from './start-adapter';
import { startApplication } from './start-application';
import { stopAdapter } from './stop-adapter';
import { stopApplication } from './stop-application';
import { switchActiveProfile } from './switch-active-profile';
import { unlockAccount } from './unlock-account';
import { getAccountSessions } from './get-account-sessions';
import { endAccountSession, endAccountSessions } from './end-account-sessions';
import { updateAccount } from './update-account';
import { updateAdapter } from './update-adapter';
import { updateAdapterLogging } from './update-adapter-logging';
import { updateAdapterProperties } from './update-adapter-properties';
import { updateApplication } from './update-application';
import { updateApplicationLogging } from './update-application-logging';
import { updateApplicationProperties } from './update-application-properties';
import { updateIntegration } from './update-integration';
import { updateIntegrationModel } from './update-integration-model';
import { updateIntegrationProperties } from './update-integration-properties';
import { updateLink } from './update-link';
import { updatePrebuilt } from './update-prebuilt';
import { updateProfile } from './update-profile';
import { updateRepositoryConfig } from './update-repository-config';
import { validateIntegrationModel } from './validate-integration-model';
import { validatePrebuilt } from './validate-prebuilt';
import { whoami } from './whoami';
import { exportAudit } from './export-audit';
import { getAudit } from './get-audit';
import { getAuditRecord } from './get-audit-record';
import { verifyAudit } from './verify-audit';
import { createAuthorizationGroup } from './create-authorization-group';
import { createRole } from './create-role';
import { deleteAuthorizationGroup } from './delete-authorization-group';
import { deleteRole } from './delete-role';
import { getMethods } from './get-methods';
import { getRole } from './get-role';
import { getRoles } from './get-roles';
import { getUserSettings } from './get-user-settings';
import { getViews } from './get-views';
import { setGroupAssignedRoles } from './set-group-assigned-roles';
import { updateRole } from './update-role';

/** The admin operations by catalog name, each handler in the file of its name. */
export function adminHandlers(svc: AdminContext): HandlerMap<'admin'> {
  return {
    authenticate: authenticate(svc),
    callAdapter: callAdapter(svc),
    changeMyPassword: changeMyPassword(svc),
    checkIndexes: checkIndexes(svc),
    createAccount: createAccount(svc),
    createAdapter: createAdapter(svc),
    createGroup: createGroup(svc),
    createIndexes: createIndexes(svc),
    createIntegrationModel: createIntegrationModel(svc),
    createIntegration: createIntegration(svc),
    createLink: createLink(svc),
    createProfile: createProfile(svc),
    createRepositoryConfig: createRepositoryConfig(svc),
    deleteAccount: deleteAccount(svc),
    deleteAdapter: deleteAdapter(svc),
    deleteGroup: deleteGroup(svc),
    deleteIntegrationModel: deleteIntegrationModel(svc),
    deleteIntegration: deleteIntegration(svc),
    deleteLink: deleteLink(svc),
    deleteProfile: deleteProfile(svc),
    deleteRepositoryConfig: deleteRepositoryConfig(svc),
    exportAdapter: exportAdapter(svc),
    exportIntegrationModel: exportIntegrationModel(svc),
    exportPrebuilt: exportPrebuilt(svc),
    exportProfile: exportProfile(svc),
    getAccount: getAccount(svc),
    getAccounts: getAccounts(svc),
    getAdapterChangelogs: getAdapterChangelogs(svc),
    getAdapterHealth: getAdapterHealth(svc),
    getAdapterModelTypes: getAdapterModelTypes(svc),
    getAdapterSchema: getAdapterSchema(svc),
    getAdapter: getAdapter(svc),
    getAdaptersHealth: getAdaptersHealth(svc),
    getAdapters: getAdapters(svc),
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
    getBrokerMap: getBrokerMap(svc),
    getExporterMetrics: getExporterMetrics(svc),
    getGroup: getGroup(svc),
    getGroups: getGroups(svc),
    getHealthStatus: getHealthStatus(svc),
    getIndexes: getIndexes(svc),
    getIntegrationModel: getIntegrationModel(svc),
    getIntegrationModels: getIntegrationModels(svc),
    getIntegrationSchema: getIntegrationSchema(svc),
    getIntegration: getIntegration(svc),
    getIntegrations: getIntegrations(svc),
    getLink: getLink(svc),
    getLinks: getLinks(svc),
    getPrebuilt: getPrebuilt(svc),
    getPrebuilts: getPrebuilts(svc),
    getProfileSchema: getProfileSchema(svc),
    getProfile: getProfile(svc),
    getProfiles: getProfiles(svc),
    getRepositoryConfigs: getRepositoryConfigs(svc),
    getRepositoryPrebuilts: getRepositoryPrebuilts(svc),
    getServerHealth: getServerHealth(svc),
    getSystemHealth: getSystemHealth(svc),
    getTokenKeys: getTokenKeys(svc),
    importAdapter: importAdapter(svc),
    importPrebuilt: importPrebuilt(svc),
    importProfile: importProfile(svc),
    login: login(svc),
    getSsoMethods: getSsoMethods(svc),
    ssoLogin: ssoLogin(svc),
    ssoCallback: ssoCallback(svc),
    samlAcs: samlAcs(svc),
    getSamlMetadata: getSamlMetadata(svc),
    logout: logout(svc),
    mySession: mySession(svc),
    oauthToken: oauthToken(svc),
    removePrebuilt: removePrebuilt(svc),
    resolveSession: resolveSession(svc),
    restartAdapter: restartAdapter(svc),
    restartApplication: restartApplication(svc),
    runTask: runTask(svc),
    setAccountGroups: setAccountGroups(svc),
    setAccountPassword: setAccountPassword(svc),
    setGroupRoles: setGroupRoles(svc),
    startAdapter: startAdapter(svc),
    startApplication: startApplication(svc),
    stopAdapter: stopAdapter(svc),
    stopApplication: stopApplication(svc),
    switchActiveProfile: switchActiveProfile(svc),
    unlockAccount: unlockAccount(svc),
    getAccountSessions: getAccountSessions(svc),
    endAccountSessions: endAccountSessions(svc),
    endAccountSession: endAccountSession(svc),
    updateAccount: updateAccount(svc),
    updateAdapterLogging: updateAdapterLogging(svc),
    updateAdapterProperties: updateAdapterProperties(svc),
    updateAdapter: updateAdapter(svc),
    updateApplicationLogging: updateApplicationLogging(svc),
    updateApplicationProperties: updateApplicationProperties(svc),
    updateApplication: updateApplication(svc),
    updateIntegrationModel: updateIntegrationModel(svc),
    updateIntegrationProperties: updateIntegrationProperties(svc),
    updateIntegration: updateIntegration(svc),
    updateLink: updateLink(svc),
    updatePrebuilt: updatePrebuilt(svc),
    updateProfile: updateProfile(svc),
    updateRepositoryConfig: updateRepositoryConfig(svc),
    validateIntegrationModel: validateIntegrationModel(svc),
    validatePrebuilt: validatePrebuilt(svc),
    whoami: whoami(svc),
    createAuthorizationGroup: createAuthorizationGroup(svc),
    createRole: createRole(svc),
    deleteAuthorizationGroup: deleteAuthorizationGroup(svc),
    deleteRole: deleteRole(svc),
    getMethods: getMethods(svc),
    getRole: getRole(svc),
    getRoles: getRoles(svc),
    getUserSettings: getUserSettings(svc),
    getViews: getViews(svc),
    setGroupAssignedRoles: setGroupAssignedRoles(svc),
    updateRole: updateRole(svc),
    getAudit: getAudit(svc),
    getAuditRecord: getAuditRecord(svc),
    verifyAudit: verifyAudit(svc),
    exportAudit: exportAudit(svc),
  };
}
