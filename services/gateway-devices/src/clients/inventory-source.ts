import { readFile } from 'node:fs/promises';
import { AppError } from '@nap/contracts';
import { parseInventory } from '../domain/inventory-file';
import type { InventoryHost } from '../domain/inventory-file';

function hasErrnoCode(err: unknown, code: string): boolean {
  return err instanceof Error && 'code' in err && err.code === code;
}

/**
 * The hosts of the inventory file (Ansible JSON inventory) `refreshInventory` reads; none when the
 * file does not exist, since an operator may keep the whole inventory in the store.
 * Errors: `DEVICE_INVENTORY_INVALID` (unreadable, or not an inventory).
 */
export async function readInventoryFile(file: string): Promise<InventoryHost[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (hasErrnoCode(err, 'ENOENT')) return [];
    throw new AppError('DEVICE_INVENTORY_INVALID', `The inventory file ${file} cannot be read`, { cause: err });
  }
  return parseInventory(text, file);
}
