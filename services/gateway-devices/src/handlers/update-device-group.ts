import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Updates the description of a device group and, when given, replaces its members. */
export function updateDeviceGroup(svc: GatewayDevicesContext): Handler<'gateway-devices.updateDeviceGroup'> {
  return async (input) => {
    const { name, description, devices } = input.body;
    return svc.inventory.updateGroup(
      name,
      { ...(description === undefined ? {} : { description }), ...(devices === undefined ? {} : { devices }) },
      input.caller.username,
    );
  };
}
