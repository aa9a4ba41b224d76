import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Rescans the roles and lists them. */
export function refreshRoles(svc: GatewayDevicesContext): Handler<'gateway-devices.refreshRoles'> {
  return async () => {
    const results = await svc.runners.catalog.refresh('roles');
    return { results, total: results.length };
  };
}
