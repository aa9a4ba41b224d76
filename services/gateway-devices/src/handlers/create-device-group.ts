import type { Handler } from '@nap/bus';
import { checkNotReservedKey } from '@nap/contracts';
import type { GatewayDevicesContext } from '../context';

/** Creates a device group, optionally with member devices; a group is kept by its name, so none of the reserved keys. */
export function createDeviceGroup(svc: GatewayDevicesContext): Handler<'gateway-devices.createDeviceGroup'> {
  return async (input) => {
    checkNotReservedKey(input.body.name, 'body.name', 'name');
    return svc.inventory.createGroup(input.body.name, input.body.description ?? '', input.body.devices ?? [], input.caller.username);
  };
}
