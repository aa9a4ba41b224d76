import type { Handler } from '@nap/bus';
import { configLines } from '../domain/device-reports';
import { applyConfigChange } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Loads raw configuration text (comments, blank lines and show headers dropped) after a backup. */
export function loadConfig(svc: GatewayDevicesContext): Handler<'gateway-devices.loadConfig'> {
  return async (input, ctx) => {
    const { name, config, commit = true } = input.body;
    return applyConfigChange(
      svc,
      { name, lines: configLines(config), options: { commit }, reason: 'loadConfig', caller: input.caller },
      { deadline: ctx.deadline },
    );
  };
}
