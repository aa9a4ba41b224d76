/** The six services of the platform; each owns its own store and a share of the catalog. */
export const SERVICE_NAMES = ['workflow', 'mop', 'gateway-devices', 'orch-proxy', 'admin', 'studio'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** The database of a service's store, the same name on MongoDB and under a data directory: `nap_gateway_devices`. */
export function serviceDatabase(service: ServiceName): string {
  return `nap_${service.replace('-', '_')}`;
}

export function isServiceName(value: unknown): value is ServiceName {
  return typeof value === 'string' && (SERVICE_NAMES as readonly string[]).includes(value);
}

/** Calendar release of the platform, `YYYY.N.P`. Clients read it from `/health/server` to pick routes. */
export const RELEASE = '2026.1.0';
