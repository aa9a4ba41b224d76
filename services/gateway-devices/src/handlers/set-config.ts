import type { Handler } from '@nap/bus';
import { pickSendConfigSetOptions } from '../clients/netmiko-options';
import { applyConfigChange } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Applies configuration lines (netmiko `send_config_set`) after backing up the running configuration. */
export function setConfig(svc: GatewayDevicesContext): Handler<'gateway-devices.setConfig'> {
  return async (input, ctx) => {
    const { name, config } = input.body;
    const lines = typeof config === 'string' ? config.split(/\r?\n/).filter((l) => l.trim() !== '') : config;
    return applyConfigChange(
      svc,
      { name, lines, options: pickSendConfigSetOptions(input.body), reason: 'setConfig', caller: input.caller },
      { deadline: ctx.deadline },
    );
  };
}
