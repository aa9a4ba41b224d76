import type { Handler } from '@nap/bus';
import { readInventoryFile } from '../clients/inventory-source';
import { writeDevice } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Reads the inventory file (Ansible JSON inventory) and creates or updates its devices: the operator's file, trusted as an admin's write. */
export function refreshInventory(svc: GatewayDevicesContext): Handler<'gateway-devices.refreshInventory'> {
  return async (input) => {
    for (const host of await readInventoryFile(svc.config.inventoryFile))
      await writeDevice(svc, host.name, { variables: host.variables, groups: host.groups }, 'createOrUpdate', input.caller, {
        fromInventoryFile: true,
      });
    const page = await svc.inventory.list({});
    return { results: page.items, total: page.total };
  };
}
