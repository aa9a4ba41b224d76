import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** One playbook with its content (or, for a directory, its files). */
export function getPlaybook(g: GatewayContext): Handler<'gateway-devices.getPlaybook'> {
  return async (input) => g.runners.catalog.get('playbooks', input.body.name);
}
