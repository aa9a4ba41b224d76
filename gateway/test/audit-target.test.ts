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
    ['studio.updateAutomation', { kind: 'automation', param: 'id' }],
    ['workflow.pauseJob', { kind: 'job', param: 'jobId' }],
    ['workflow.startJobWithOptions', { kind: 'workflow', param: 'workflow' }],
    ['admin.login', { kind: 'account' }],
    ['admin.oauthToken', { kind: 'account' }],
    ['workflow.cancelJobs', { kind: 'job' }],
    ['workflow.startJob', { kind: 'job' }],
    ['workflow.archiveJobs', { kind: 'job' }],
    ['workflow.activateJobWorker', { kind: 'job-worker' }],
    ['admin.importAdapter', { kind: 'adapter' }],
    ['admin.validatePrebuilt', { kind: 'prebuilt' }],
    ['admin.validateIntegrationModel', { kind: 'integration-model' }],
    ['studio.importProject', { kind: 'project' }],
    ['studio.exportForm', { kind: 'form' }],
    ['admin.samlAcs', { kind: 'saml' }],
  ])('%s → %j', (id, target) => {
    expect(routeTarget(getOperation(id))).toEqual(target);
  });
});
