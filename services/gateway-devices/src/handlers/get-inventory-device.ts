import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** `POST /gw/getInventoryDevice`: one device, secrets masked. */
export function getInventoryDevice(svc: GatewayDevicesContext): Handler<'gateway-devices.getInventoryDevice'> {
  return async (input) => svc.inventory.view(await svc.inventory.get(input.body.name));
}
