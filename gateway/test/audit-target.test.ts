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
    ['admin.login', { kind: 'login' }],
  ])('%s → %j', (id, target) => {
    expect(routeTarget(getOperation(id))).toEqual(target);
  });
});
