import type { Handler } from '@nap/bus';
import { applyConfigChange } from '../config-changes';
import { configLines } from '../domain/device-reports';
import type { GatewayContext } from '../context';

/** Loads raw configuration text (comments, blank lines and show headers dropped) after a backup. */
export function loadConfig(g: GatewayContext): Handler<'gateway-devices.loadConfig'> {
  return async (input, ctx) => {
    const { name, config, commit = true } = input.body;
    return applyConfigChange(
      g,
      { name, lines: configLines(config), options: { commit }, reason: 'loadConfig', caller: input.caller },
      { deadline: ctx.deadline },
    );
  };
}
