import { readFile } from 'node:fs/promises';
import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import { parseInventory } from '../domain/inventory-file';
import type { GatewayDevicesContext } from '../context';

function hasErrnoCode(err: unknown, code: string): boolean {
  return err instanceof Error && 'code' in err && err.code === code;
}

/** Reads the inventory file (Ansible JSON inventory) and creates or updates its devices. */
export function refreshInventory(svc: GatewayDevicesContext): Handler<'gateway-devices.refreshInventory'> {
  return async (input) => {
    const file = svc.config.inventoryFile;
    let text: string | undefined;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if (!hasErrnoCode(err, 'ENOENT'))
        throw new AppError('DEVICE_INVENTORY_INVALID', `The inventory file ${file} cannot be read`, { cause: err });
    }
    if (text !== undefined) {
      for (const host of parseInventory(text, file))
        await svc.devices.write(host.name, { variables: host.variables, groups: host.groups }, 'createOrUpdate', input.caller);
    }
    const page = await svc.inventory.list({});
    return { results: page.items, total: page.total };
  };
}
