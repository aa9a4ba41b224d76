import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** `POST /gw/createInventoryDevice`: creates the device, or updates it when the name exists. */
export function createInventoryDevice(g: GatewayContext): Handler<'gateway-devices.createInventoryDevice'> {
  return async (input) => {
    const { body } = input;
    const { doc, created } = await g.devices.write(body.name, body, 'createOrUpdate', input.caller);
    const view = g.inventory.view(doc);
    return { name: view.name, variables: view.variables, groups: view.groups, created };
  };
}
