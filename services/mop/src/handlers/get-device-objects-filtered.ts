import type { Handler } from '@nap/bus';
import { listInventory } from './devices';
import type { InventoryDevice } from './devices';

/** Devices whose name holds `substring` (case-insensitive), sorted by name. */
export function matching(devices: readonly InventoryDevice[], substring: string): InventoryDevice[] {
  const needle = substring.toLowerCase();
  return devices.filter((d) => d.name.toLowerCase().includes(needle)).sort((a, b) => a.name.localeCompare(b.name));
}

/** `POST /mop/deviceObjects`: inventory devices matching a name substring, a variable filter, a window. */
export function getDeviceObjectsFiltered(): Handler {
  return (async (input: { body: { substring?: string; options?: { start?: number; limit?: number; filter?: Record<string, unknown> } } }, ctx) => {
    const options = input.body.options ?? {};
    const found = matching(await listInventory(ctx, options.filter), input.body.substring ?? '');
    const start = options.start ?? 0;
    return options.limit === undefined || options.limit === 0 ? found.slice(start) : found.slice(start, start + options.limit);
  }) as Handler;
}
