import type { Handler } from '@nap/bus';
import { listInventory } from '../clients/device-gateway';
import { devicesMatching } from '../domain/device-names';

/** `GET /mop/devices/:substring`. */
export function getDevicesFiltered(): Handler<'mop.getDevicesFiltered'> {
  return async (input, ctx) => devicesMatching(await listInventory(ctx), input.params.substring);
}
