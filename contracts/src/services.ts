/** The six services of the platform; each owns its own store and a share of the catalog. */
export const SERVICE_NAMES = ['workflow', 'mop', 'gateway-devices', 'orch-proxy', 'admin', 'studio'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** The database of a service's store, the same name on MongoDB and under a data directory: `nap_gateway_devices`. */
export function serviceDatabase(service: ServiceName): string {
  return `nap_${service.replace('-', '_')}`;
}

/**
 * The database of the audit chain on embedded stores (a data directory), the admin service's second
 * one: an LMDB environment has one writer at a time, and the chain's commits and the service's
 * writes would wait on each other in `nap_admin`. On MongoDB the chain is in `nap_admin`.
 */
export const AUDIT_DATABASE = 'nap_audit';

/** The `_id` of the document of `nap_audit`'s `audit_meta` that says the chain was moved there out of `nap_admin`. */
export const AUDIT_CHAIN_MOVED_MARKER = 'moved-from-admin';

export function isServiceName(value: unknown): value is ServiceName {
  return typeof value === 'string' && (SERVICE_NAMES as readonly string[]).includes(value);
}

/** Calendar release of the platform, `YYYY.N.P`. Clients read it from `/health/server` to pick routes. */
export const RELEASE = '2026.1.0';
