import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Creates a device group, optionally with member devices. */
export function createDeviceGroup(g: GatewayContext): Handler<'gateway-devices.createDeviceGroup'> {
  return async (input) =>
    g.inventory.createGroup(input.body.name, input.body.description ?? '', input.body.devices ?? [], input.caller.username);
}
