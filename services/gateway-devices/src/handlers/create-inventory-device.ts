import type { Handler } from '@nap/bus';
import { writeDevice } from '../context';
import type { GatewayDevicesContext } from '../context';

/** `POST /gw/createInventoryDevice`: creates the device, or updates it when the name exists. */
export function createInventoryDevice(svc: GatewayDevicesContext): Handler<'gateway-devices.createInventoryDevice'> {
  return async (input) => {
    const { body } = input;
    const { doc, created } = await writeDevice(svc, body.name, body, 'createOrUpdate', input.caller);
    const view = svc.inventory.view(doc);
    return { name: view.name, variables: view.variables, groups: view.groups, created };
  };
}
