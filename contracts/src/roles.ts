/** Roles a group can grant. An account's roles are the union of its groups' roles. */
export const ROLES = {
  admin: 'Full platform administration: accounts, groups, adapters, applications, everything else.',
  engineering: 'Author and change workflows, templates and devices; run automations.',
  operations: 'Run automations and read their results.',
  apiread: 'Read access for scripts and integrations.',
  apiwrite: 'Write and run access for scripts and integrations.',
  auditor: 'Reads the audit trail (GET /audit, /audit/verify, /audit/export) and nothing else.',
} as const;

export type Role = keyof typeof ROLES;

export const ROLE_NAMES = Object.keys(ROLES) as Role[];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && Object.hasOwn(ROLES, value);
}

/** Default role sets of architecture section 3, for operations the spec's Authentication table does not list. */
export const ROLE_SETS = {
  read: ['admin', 'engineering', 'operations', 'apiread'],
  run: ['admin', 'engineering', 'operations', 'apiwrite'],
  write: ['admin', 'engineering', 'apiwrite'],
  admin: ['admin'],
  /** Every role (the server's health). The caller's own session and account need none: `auth: 'caller'`. */
  any: ['admin', 'engineering', 'operations', 'apiread', 'apiwrite', 'auditor'],
  /** Who reads the audit trail. */
  audit: ['admin', 'auditor'],
} as const satisfies Record<string, readonly Role[]>;
