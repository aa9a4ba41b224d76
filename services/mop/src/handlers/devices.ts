import type { HandlerContext } from '@nap/bus';
import type { BodyOf, ResponseOf } from '@nap/contracts';
import type { CommandRunner } from '../domain/run';

/**
 * Runs commands through the device gateway over the bus, as the caller; answers the raw output. A
 * device's own error line (`% Invalid input`) is output like any other: users write rules that look
 * for it.
 */
export function busCommandRunner(ctx: HandlerContext): CommandRunner {
  return async (device, command) => (await ctx.call('gateway-devices.runCommand', { body: { device, command } })).response;
}

/** An inventory device as `gateway-devices.getInventoryDevices` lists it. */
export type InventoryDevice = ResponseOf<'gateway-devices.getInventoryDevices'>['items'][number];

/** Devices asked for per page of `gateway-devices.getInventoryDevices`. */
const INVENTORY_PAGE = 500;

/** A filter of the inventory lists: member name to value. */
export type InventoryFilter = NonNullable<BodyOf<'gateway-devices.getInventoryDevices'>['filter']>;

/** Every inventory device (paged through `gateway-devices.getInventoryDevices`), optionally filtered by variables. */
export async function listInventory(ctx: HandlerContext, filter?: InventoryFilter): Promise<InventoryDevice[]> {
  const out: InventoryDevice[] = [];
  for (let skip = 0; ;) {
    const page = await ctx.call('gateway-devices.getInventoryDevices', {
      body: { skip, limit: INVENTORY_PAGE, ...(filter !== undefined ? { filter } : {}) },
    });
    out.push(...page.items);
    skip += page.items.length;
    if (page.items.length === 0 || skip >= page.total) return out;
  }
}
