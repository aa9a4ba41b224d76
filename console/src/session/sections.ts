import { maySee } from './permissions';
import type { Grants, SectionOperation } from './permissions';

/** The console's pages, each with the operation that reads what it shows: a caller sees those its roles (or custom roles) may read. */
export const SECTIONS: readonly { to: string; label: string; operation: SectionOperation }[] = [
  { to: '/jobs', label: 'Jobs', operation: 'workflow.getJobs' },
  { to: '/tasks', label: 'Tasks', operation: 'workflow.getTasks' },
  { to: '/automations', label: 'Automations', operation: 'workflow.getAutomations' },
  { to: '/workflows', label: 'Workflows', operation: 'studio.getWorkflows' },
  { to: '/devices', label: 'Devices', operation: 'gateway-devices.getInventoryDevices' },
  { to: '/audit', label: 'Audit', operation: 'admin.getAudit' },
  { to: '/people', label: 'People', operation: 'admin.getAccounts' },
  { to: '/platform', label: 'Platform', operation: 'admin.getApplications' },
];

/** Where `/console/` goes: the first page the caller may read (an auditor's is the audit trail); undefined when none. */
export function homeOf(grants: Grants | undefined): string | undefined {
  return SECTIONS.find((section) => maySee(grants, section.operation))?.to;
}
