import { getOperation } from '@nap/contracts';
import {
  ACTION_ROLES,
  LIVE_EVENT_ROLES,
  PANEL_ROLES,
  SECTION_ROLES,
  mayCall,
  mayFollowEvents,
  mayRead,
  maySee,
} from '../src/session/permissions';
import { SECTIONS, homeOf } from '../src/session/sections';

/** The console offers an action only to roles the platform accepts for it: its table must be the catalog's. */
describe('the console’s action roles', () => {
  it('are the roles of each action’s operation in the catalog', () => {
    for (const [id, roles] of Object.entries(ACTION_ROLES)) expect([...roles].sort()).toEqual([...getOperation(id).roles].sort());
  });

  it('offer nothing to a read-only account, everything to an engineer, and an operator all but changes to what the platform keeps', () => {
    // forgetting a host key and disabling or enabling a trigger change what the platform keeps
    const changes: readonly string[] = ['gateway-devices.forgetHostKey', 'workflow.updateTrigger'];
    for (const id of Object.keys(ACTION_ROLES) as (keyof typeof ACTION_ROLES)[]) {
      expect(mayCall({ roles: ['apiread'] }, id)).toBe(false);
      expect(mayCall({ roles: ['engineering'] }, id)).toBe(true);
      expect(mayCall({ roles: ['operations'] }, id)).toBe(!changes.includes(id));
      expect(mayCall(undefined, id)).toBe(false);
    }
  });
});

/** A page shows a panel that reads more only to roles that may read it. */
describe('the console’s panel roles', () => {
  it('are the roles of each panel’s operation in the catalog, and a read-only account reads them', () => {
    for (const [id, roles] of Object.entries(PANEL_ROLES)) expect([...roles].sort()).toEqual([...getOperation(id).roles].sort());
    expect(mayRead({ roles: ['apiread'] }, 'mop.getTemplateRuns')).toBe(true);
    expect(mayRead({ roles: ['apiwrite'] }, 'mop.getTemplateRuns')).toBe(false);
    expect(mayRead(undefined, 'mop.getTemplateRuns')).toBe(false);
  });
});

/** The console lists a page only to roles that may read what it shows. */
describe('the console’s page roles', () => {
  it('are the roles of each page’s operation in the catalog', () => {
    for (const [id, roles] of Object.entries(SECTION_ROLES)) expect([...roles].sort()).toEqual([...getOperation(id).roles].sort());
  });

  it('show an auditor the audit trail alone, and a read-only account everything else', () => {
    const pages = (roles: string[]) => (Object.keys(SECTION_ROLES) as (keyof typeof SECTION_ROLES)[]).filter((id) => maySee({ roles }, id));
    expect(pages(['auditor'])).toEqual(['admin.getAudit']);
    expect(pages(['apiread'])).toEqual([
      'workflow.getJobs',
      'workflow.getTasks',
      'workflow.getAutomations',
      'studio.getWorkflows',
      'gateway-devices.getInventoryDevices',
    ]);
    expect(pages(['admin'])).toHaveLength(8);
    expect(pages([])).toEqual([]);
  });

  it('open the live event stream only for roles that may follow the events', () => {
    expect([...LIVE_EVENT_ROLES].sort()).toEqual([...getOperation('workflow.watchEvents').roles].sort());
    expect(mayFollowEvents({ roles: ['auditor'] })).toBe(false);
    expect(mayFollowEvents({ roles: ['apiread'] })).toBe(true);
  });

  it('open the console on the first page the caller may read, or on none', () => {
    expect(SECTIONS.map((section) => section.operation).sort()).toEqual(Object.keys(SECTION_ROLES).sort());
    expect(homeOf({ roles: ['admin'] })).toBe('/jobs');
    expect(homeOf({ roles: ['auditor'] })).toBe('/audit');
    expect(homeOf({ roles: ['apiwrite'] })).toBeUndefined();
  });
});

describe('custom roles in the console', () => {
  it('offer what the custom roles of the caller’s groups allow beside its roles, and nothing more', () => {
    // a group given a custom role that lets its members read jobs and cancel them, and nothing else
    const grants = { roles: [], operations: ['workflow.getJobs', 'workflow.cancelJobs'] };
    expect(maySee(grants, 'workflow.getJobs')).toBe(true);
    expect(maySee(grants, 'admin.getAudit')).toBe(false);
    expect(mayCall(grants, 'workflow.cancelJobs')).toBe(true);
    expect(mayCall(grants, 'workflow.startJob')).toBe(false);
    expect(homeOf(grants)).toBe('/jobs');
    expect(mayFollowEvents(grants)).toBe(false);
    expect(mayFollowEvents({ ...grants, operations: [...grants.operations, 'workflow.watchEvents'] })).toBe(true);
    expect(mayRead(grants, 'mop.getTemplateRuns')).toBe(false);
  });
});
