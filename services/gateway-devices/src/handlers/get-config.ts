import type { Handler } from '@nap/bus';
import { readRunningConfig } from '../context';
import type { GatewayDevicesContext } from '../context';

/** The running configuration of an inventory device, kept as a backup when asked. */
export function getConfig(svc: GatewayDevicesContext): Handler<'gateway-devices.getConfig'> {
  return async (input, ctx) => {
    const { name, backup = false } = input.body;
    const config = await svc.access.withInventoryCli(name, (session) => readRunningConfig(session, false), { deadline: ctx.deadline });
    if (!backup) return { name, config };
    const saved = await svc.inventory.addBackup(name, config, 'getConfig', input.caller.username);
    return { name, config, backupId: saved._id };
  };
}
