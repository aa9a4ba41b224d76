import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Creates a device group, optionally with member devices. */
export function createDeviceGroup(svc: GatewayDevicesContext): Handler<'gateway-devices.createDeviceGroup'> {
  return async (input) =>
    svc.inventory.createGroup(input.body.name, input.body.description ?? '', input.body.devices ?? [], input.caller.username);
}
