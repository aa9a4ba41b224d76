import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** One device, secrets masked. */
export function getDevice(svc: GatewayDevicesContext): Handler<'gateway-devices.getDevice'> {
  return async (input) => svc.inventory.view(await svc.inventory.get(input.body.name));
}
