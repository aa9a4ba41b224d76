import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** `POST /gw/getInventoryDevice`: one device, secrets masked. */
export function getInventoryDevice(g: GatewayContext): Handler<'gateway-devices.getInventoryDevice'> {
  return async (input) => g.inventory.view(await g.inventory.get(input.body.name));
}
