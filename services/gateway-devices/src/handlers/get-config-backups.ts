import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** The configuration backups of a device, newest first, with their text when asked. */
export function getConfigBackups(svc: GatewayDevicesContext): Handler<'gateway-devices.getConfigBackups'> {
  return async (input) => {
    const { name, skip = 0, limit = 0, withConfig = false } = input.body;
    await svc.inventory.get(name);
    const page = await svc.inventory.listBackups(name, skip, limit);
    return {
      results: page.results.map((b) => ({
        id: b._id,
        device: b.device,
        created: b.created,
        reason: b.reason,
        createdBy: b.createdBy,
        ...(withConfig ? { config: b.config } : {}),
      })),
      total: page.total,
    };
  };
}
