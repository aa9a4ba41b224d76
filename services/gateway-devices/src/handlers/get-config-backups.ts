import type { Handler } from '@nap/bus';
import { credentialsMask } from '../clients/device-access';
import type { GatewayDevicesContext } from '../context';

/** The configuration backups of a device, newest first, with their text (the device's credentials masked) when asked. */
export function getConfigBackups(svc: GatewayDevicesContext): Handler<'gateway-devices.getConfigBackups'> {
  return async (input) => {
    const { name, skip = 0, limit = 0, withConfig = false } = input.body;
    await svc.inventory.get(name);
    const page = await svc.inventory.listBackups(name, skip, limit);
    // kept as read, for a restore; answered with the device's own credentials masked
    const mask = withConfig ? credentialsMask(await svc.inventory.resolve(name)) : undefined;
    return {
      results: page.results.map((b) => ({
        id: b._id,
        device: b.device,
        created: b.created,
        reason: b.reason,
        createdBy: b.createdBy,
        ...(mask !== undefined ? { config: mask.text(b.config) } : {}),
      })),
      total: page.total,
    };
  };
}
