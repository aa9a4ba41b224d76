import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** One device, secrets masked. */
export function getDevice(g: GatewayContext): Handler<'gateway-devices.getDevice'> {
  return async (input) => g.inventory.view(await g.inventory.get(input.body.name));
}
