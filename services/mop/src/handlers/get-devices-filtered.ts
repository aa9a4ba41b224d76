import type { Handler } from '@nap/bus';
import { matching } from './get-device-objects-filtered';
import { listInventory } from './devices';

/** `GET /mop/devices/:substring`. */
export function getDevicesFiltered(): Handler<'mop.getDevicesFiltered'> {
  return async (input, ctx) => matching(await listInventory(ctx), input.params.substring);
}
