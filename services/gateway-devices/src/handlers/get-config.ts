import type { Handler } from '@nap/bus';
import { readConfig } from '../config-changes';
import type { GatewayContext } from '../context';

/** The running configuration of an inventory device, kept as a backup when asked. */
export function getConfig(g: GatewayContext): Handler<'gateway-devices.getConfig'> {
  return async (input, ctx) => {
    const { name, backup = false } = input.body;
    const config = await g.access.withInventoryCli(name, (session) => readConfig(session, false), { deadline: ctx.deadline });
    if (!backup) return { name, config };
    const saved = await g.inventory.addBackup(name, config, 'getConfig', input.caller.username);
    return { name, config, backupId: saved._id };
  };
}
