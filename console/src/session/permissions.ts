import type { Operations, ROLE_SETS } from '@nap/contracts';

/**
 * What the caller may do, as `GET /whoami` answers it: its built-in roles, and the operations the
 * custom roles of its groups allow beside them (ids of the catalog, as the gateway checks them).
 */
export interface Grants {
  readonly roles?: readonly string[] | undefined;
  readonly operations?: readonly string[] | undefined;
}

/** True when a role of the caller is among `allowed`, or a custom role of theirs allows `operation`. */
function granted(grants: Grants | undefined, allowed: readonly string[], operation: string): boolean {
  return (grants?.roles ?? []).some((role) => allowed.includes(role)) || (grants?.operations ?? []).includes(operation);
}

/** The actions the console offers, by the catalog operation that carries each out. */
export type ActionOperation =
  | 'workflow.cancelJobs'
  | 'workflow.pauseJob'
  | 'workflow.resumeJob'
  | 'workflow.finishTask'
  | 'workflow.retryTask'
  | 'workflow.runManualTrigger'
  | 'workflow.updateTrigger'
  | 'workflow.startJob'
  | 'gateway-devices.sshSendCommandExec'
  | 'gateway-devices.forgetHostKey'
  | 'mop.RunCommandTemplate';

/** The catalog's "run" role set (`ROLE_SETS.run`): the compiler refuses a list that differs from it. */
const RUN: (typeof ROLE_SETS)['run'] = ['admin', 'engineering', 'operations', 'apiwrite'];
/** The catalog's "write" role set (`ROLE_SETS.write`): changes to what the platform keeps (operations may run, not change). */
const WRITE: (typeof ROLE_SETS)['write'] = ['admin', 'engineering', 'apiwrite'];

/**
 * The roles each action's operation allows. The catalog keeps them as data the bundle must not
 * carry (it is server code), so they are written here; `console/test/permissions.test.ts` checks
 * them against the catalog.
 */
export const ACTION_ROLES: { readonly [Id in ActionOperation]: Operations[Id]['roles'] } = {
  'workflow.cancelJobs': RUN,
  'workflow.pauseJob': RUN,
  'workflow.resumeJob': RUN,
  'workflow.finishTask': RUN,
  'workflow.retryTask': RUN,
  'workflow.runManualTrigger': RUN,
  'workflow.updateTrigger': WRITE,
  'workflow.startJob': RUN,
  'gateway-devices.sshSendCommandExec': RUN,
  'gateway-devices.forgetHostKey': WRITE,
  'mop.RunCommandTemplate': RUN,
};

/** The pages the console has, by the catalog operation that reads what each shows. */
export type SectionOperation =
  | 'workflow.getJobs'
  | 'workflow.getTasks'
  | 'workflow.getAutomations'
  | 'studio.getWorkflows'
  | 'gateway-devices.getInventoryDevices'
  | 'admin.getAudit'
  | 'admin.getAccounts'
  | 'admin.getApplications';

/** The catalog's "read" role set (`ROLE_SETS.read`). */
const READ: (typeof ROLE_SETS)['read'] = ['admin', 'engineering', 'operations', 'apiread'];
/** The catalog's "admin" role set (`ROLE_SETS.admin`): administering the platform itself. */
const ADMIN: (typeof ROLE_SETS)['admin'] = ['admin'];
/** The catalog's "audit" role set (`ROLE_SETS.audit`). */
const AUDIT: (typeof ROLE_SETS)['audit'] = ['admin', 'auditor'];

/** The roles each page's operation allows (checked against the catalog by the same test). */
export const SECTION_ROLES: { readonly [Id in SectionOperation]: readonly string[] } = {
  'workflow.getJobs': READ,
  'workflow.getTasks': READ,
  'workflow.getAutomations': READ,
  'studio.getWorkflows': READ,
  'gateway-devices.getInventoryDevices': READ,
  'admin.getAudit': AUDIT,
  'admin.getAccounts': ADMIN,
  'admin.getApplications': ADMIN,
};

/** The panels of a page that read more than the page does, by the catalog operation that reads what each shows. */
export type PanelOperation = 'mop.getTemplateRuns';

/** The roles each panel's operation allows (checked against the catalog by the same test). */
export const PANEL_ROLES: { readonly [Id in PanelOperation]: Operations[Id]['roles'] } = {
  'mop.getTemplateRuns': READ,
};

/** True when the caller's roles let them read what a panel shows: the page leaves out the others. */
export function mayRead(grants: Grants | undefined, operation: PanelOperation): boolean {
  return granted(grants, PANEL_ROLES[operation], operation);
}

/** True when the caller's roles let them read what a page shows: the console lists only those pages. */
export function maySee(grants: Grants | undefined, operation: SectionOperation): boolean {
  return granted(grants, SECTION_ROLES[operation], operation);
}

/** The roles that may follow the platform's job events (`workflow.watchEvents`): the live stream runs for them only. */
export const LIVE_EVENT_ROLES: readonly string[] = READ;

/** True when the caller may follow the platform's events: an auditor may not, and the console opens no stream for them. */
export function mayFollowEvents(grants: Grants | undefined): boolean {
  return granted(grants, LIVE_EVENT_ROLES, 'workflow.watchEvents');
}

/**
 * True when the caller's roles let them take the action: the console does not offer what the
 * platform would refuse (the platform still decides).
 */
export function mayCall(grants: Grants | undefined, operation: ActionOperation): boolean {
  return granted(grants, ACTION_ROLES[operation], operation);
}
