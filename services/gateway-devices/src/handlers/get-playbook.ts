import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** One playbook with its content (or, for a directory, its files). */
export function getPlaybook(svc: GatewayDevicesContext): Handler<'gateway-devices.getPlaybook'> {
  return async (input) => svc.runners.catalog.get('playbooks', input.body.name);
}
