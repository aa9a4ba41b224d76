import type { Handler } from '@nap/bus';
import { listInventory } from '../clients/device-gateway';
import { devicesMatching } from '../domain/device-names';

/** Most devices one answer lists; `total` says how many matched. */
const MAX_DEVICES_LISTED = 1_000;

/** `GET /mop/devices/detailed/:substring`: the matches plus how many were found and returned. */
export function getDevicesFilteredDetailedResults(): Handler<'mop.getDevicesFilteredDetailedResults'> {
  return async (input, ctx) => {
    const found = devicesMatching(await listInventory(ctx), input.params.substring);
    const list = found.slice(0, MAX_DEVICES_LISTED);
    return { total: found.length, returned: list.length, list };
  };
}
