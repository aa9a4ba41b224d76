import type { Handler } from '@nap/bus';
import { DEVICE_VARS_MAPPING, mapDeviceVars } from '../domain/device-variables';
import { writeDeviceView } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Creates a device from the spec's `deviceVars`, mapped to gateway variables. */
export function createDevice(svc: GatewayDevicesContext): Handler<'gateway-devices.createDevice'> {
  return async (input) => {
    const { name, deviceVars, groups } = input.body;
    return writeDeviceView(
      svc,
      name,
      { variables: mapDeviceVars(deviceVars), ...(groups === undefined ? {} : { groups }) },
      'create',
      input.caller,
      { memberOf: deviceVarsMember },
    );
  };
}

/** The `deviceVars` member that maps to a gateway variable. */
function deviceVarsMember(variable: string): string {
  const given = Object.entries(DEVICE_VARS_MAPPING).find(([, to]) => to === variable)?.[0];
  return given === undefined ? `body.variables.${variable}` : `body.deviceVars.${given}`;
}
