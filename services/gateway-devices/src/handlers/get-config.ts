import type { Handler } from '@nap/bus';
import { readRunningConfig } from '../context';
import type { GatewayDevicesContext } from '../context';

/** The running configuration of an inventory device, kept as a backup when asked. */
export function getConfig(svc: GatewayDevicesContext): Handler<'gateway-devices.getConfig'> {
  return async (input, ctx) => {
    const { name, backup = false } = input.body;
    // the backup keeps the text as read, for a restore; the answer has the device's credentials masked
    return svc.access.withInventoryCli(
      name,
      async (session) => {
        const config = await readRunningConfig(session, false);
        if (!backup) return { name, config };
        const saved = await svc.inventory.addBackup(name, config, 'getConfig', input.caller.username);
        return { name, config, backupId: saved._id };
      },
      { deadline: ctx.deadline },
    );
  };
}
