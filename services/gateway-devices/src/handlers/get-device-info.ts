import type { Handler } from '@nap/bus';
import { commandOutput, findMacAddresses } from '../domain/device-reports';
import type { GatewayDevicesContext } from '../context';

/** Type and MAC addresses of a device, with the raw outputs they were read from. */
export function getDeviceInfo(svc: GatewayDevicesContext): Handler<'gateway-devices.getDeviceInfo'> {
  return async (input, ctx) => {
    const { name } = input.body;
    const { type, outputs, macText } = await svc.access.withInventoryCli(
      name,
      async (session) => {
        const list = [];
        for (const command of session.profile.commands.getDeviceInfo) list.push(await session.sendCommand(command));
        const macs = await session.sendCommand(session.profile.commands.macAddresses);
        return { type: session.profile.deviceType, outputs: list, macText: macs.output };
      },
      { deadline: ctx.deadline },
    );
    const device = await svc.inventory.get(name);
    const declared = typeof device.variables.gw_network_os === 'string' ? device.variables.gw_network_os : type;
    return {
      name,
      type: declared,
      macAddresses: findMacAddresses(`${outputs.map((o) => o.output).join('\n')}\n${macText}`),
      outputs: outputs.map(commandOutput),
    };
  };
}
