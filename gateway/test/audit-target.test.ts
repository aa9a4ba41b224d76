import { getOperation } from '@nap/contracts';
import { routeTarget } from '../src/audit';

describe('the target a route names', () => {
  it.each([
    ['admin.createGroup', { kind: 'group' }],
    ['admin.setGroupRoles', { kind: 'group', param: 'groupId' }],
    ['admin.updateAccount', { kind: 'account', param: 'accountId' }],
    ['admin.setAccountPassword', { kind: 'account', param: 'accountId' }],
    ['admin.updateAdapter', { kind: 'adapter', param: 'name' }],
    ['admin.updateProfile', { kind: 'profile', param: 'id' }],
    // Automation Studio's automations are workflow documents; a workflow is named so by every route
    ['studio.updateAutomation', { kind: 'workflow', param: 'id' }],
    ['studio.createAutomation', { kind: 'workflow' }],
    ['studio.importAutomations', { kind: 'workflow' }],
    ['gateway-devices.updateDeviceTemplate', { kind: 'device-template', param: 'id' }],
    ['studio.updateTemplate', { kind: 'template', param: 'id' }],
    ['mop.importTemplate', { kind: 'command-template' }],
    ['admin.updateRepositoryConfig', { kind: 'repository-config', param: 'name' }],
    ['workflow.runEndpointTrigger', { kind: 'trigger', param: 'routeName' }],
    ['workflow.pauseJob', { kind: 'job', param: 'jobId' }],
    ['workflow.startJobWithOptions', { kind: 'workflow', param: 'workflow' }],
    ['admin.login', { kind: 'account' }],
    ['admin.oauthToken', { kind: 'account' }],
    ['workflow.cancelJobs', { kind: 'job' }],
    ['workflow.startJob', { kind: 'job' }],
    ['workflow.archiveJobs', { kind: 'job-archive' }],
    ['workflow.deleteJobArchive', { kind: 'job-archive', param: 'archiveId' }],
    ['workflow.activateJobWorker', { kind: 'job-worker' }],
    ['admin.importAdapter', { kind: 'adapter' }],
    ['admin.validatePrebuilt', { kind: 'prebuilt' }],
    ['admin.validateIntegrationModel', { kind: 'integration-model' }],
    ['studio.importProject', { kind: 'project' }],
    ['studio.exportForm', { kind: 'form' }],
    ['admin.samlAcs', { kind: 'saml' }],
    // routes named after their action: the kind without the verb, or as the catalog names it
    ['gateway-devices.createInventoryDevice', { kind: 'inventory-device' }],
    ['gateway-devices.getInventoryGroups', { kind: 'inventory-group' }],
    // a command or session sent to one device: the device, named by the body (auditName)
    ['mop.RunCommand', { kind: 'device' }],
    ['gateway-devices.sshSendCommandExec', { kind: 'device' }],
    ['gateway-devices.netconfSetConfig', { kind: 'device' }],
    ['mop.createTemplate', { kind: 'command-template' }],
    ['mop.updateTemplate', { kind: 'command-template', param: 'mopID' }],
    ['mop.deleteAnalyticTemplate', { kind: 'analytic-template', param: 'id' }],
    ['workflow.runManualTrigger', { kind: 'trigger', param: 'id' }],
    ['workflow.deleteTriggersByAction', { kind: 'automation', param: 'id' }],
    // the caller's own account
    ['admin.changeMyPassword', { kind: 'account', self: true }],
  ])('%s → %j', (id, target) => {
    expect(routeTarget(getOperation(id))).toEqual(target);
  });
});
