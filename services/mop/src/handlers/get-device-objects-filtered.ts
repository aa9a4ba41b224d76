import type { Handler } from '@nap/bus';
import { deviceFilterSchema, parseAs } from '@nap/contracts';
import { listInventory } from '../clients/device-gateway';
import { devicesMatching } from '../domain/device-names';

/** `POST /mop/deviceObjects`: inventory devices matching a name substring, a variable filter, a window. */
export function getDeviceObjectsFiltered(): Handler<'mop.getDeviceObjectsFiltered'> {
  return async (input, ctx) => {
    const options = input.body.options ?? {};
    // the device gateway takes scalar filter values only; say so in terms of this route's body
    const filter = options.filter === undefined ? undefined : parseAs(deviceFilterSchema, options.filter, 'body.options.filter');
    const found = devicesMatching(await listInventory(ctx, filter), input.body.substring ?? '');
    const start = options.start ?? 0;
    return options.limit === undefined || options.limit === 0 ? found.slice(start) : found.slice(start, start + options.limit);
  };
}
