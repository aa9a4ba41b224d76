import type { Handler } from '@nap/bus';
import { configLines } from '../domain/device-reports';
import { applyConfigChange } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Merges a backup (the latest unless named) or given text back onto a device, after a backup. */
export function restoreConfig(svc: GatewayDevicesContext): Handler<'gateway-devices.restoreConfig'> {
  return async (input, ctx) => {
    const { name, backupId, config } = input.body;
    const text = config !== undefined && backupId === undefined ? config : (await svc.inventory.getBackup(name, backupId)).config;
    const reason = `restoreConfig${backupId === undefined ? '' : ` ${backupId}`}`;
    return applyConfigChange(
      svc,
      { name, lines: configLines(text), options: { commit: true }, reason, caller: input.caller },
      { deadline: ctx.deadline },
    );
  };
}
