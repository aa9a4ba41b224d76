import type { Handler } from '@nap/bus';
import { commandOutput, parseCpu, parseMemory } from '../domain/device-reports';
import type { GatewayDevicesContext } from '../context';

/** CPU and memory figures of a device, with the raw outputs they were read from. */
export function getDeviceHealth(svc: GatewayDevicesContext): Handler<'gateway-devices.getDeviceHealth'> {
  return async (input, ctx) => {
    const { name } = input.body;
    const outputs = await svc.access.withInventoryCli(
      name,
      async (session) => {
        const list = [];
        for (const command of session.profile.commands.getDeviceHealth) list.push(await session.sendCommand(command));
        return list;
      },
      { deadline: ctx.deadline },
    );
    const text = outputs.map((o) => o.output).join('\n');
    return { name, cpu: parseCpu(text), memory: parseMemory(text), outputs: outputs.map(commandOutput) };
  };
}
