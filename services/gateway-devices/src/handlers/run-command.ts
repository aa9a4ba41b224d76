import type { Handler } from '@nap/bus';
import { pickSendCommandOptions } from '../clients/netmiko-options';
import type { GatewayDevicesContext } from '../context';

/** Runs one command on an inventory device; a device error line is reported (status error), not thrown. */
export function runCommand(svc: GatewayDevicesContext): Handler<'gateway-devices.runCommand'> {
  return async (input, ctx) => {
    const { device, command } = input.body;
    const r = await svc.access.withInventoryCli(device, (session) => session.sendCommand(command, pickSendCommandOptions(input.body)), {
      deadline: ctx.deadline,
    });
    return {
      status: r.failed ? 'error' : 'success',
      device,
      command,
      response: r.output,
      errorLines: r.errorLines,
      failed: r.failed,
      ...(r.exitCode === undefined ? {} : { exitCode: r.exitCode }),
    };
  };
}
