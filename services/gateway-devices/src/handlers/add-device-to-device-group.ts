import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Adds devices to a device group: `devices`, and `deviceName` as the Automation Gateway adapter's tasks name one. */
export function addDeviceToDeviceGroup(svc: GatewayDevicesContext): Handler<'gateway-devices.addDeviceToDeviceGroup'> {
  return async (input) => {
    const { group, devices = [], deviceName } = input.body;
    return svc.inventory.addToGroup(group, deviceName === undefined ? devices : [...devices, deviceName]);
  };
}
