import type { Handler } from '@nap/bus';
import { pickSendCommandOptions } from '../clients/netmiko-options';
import type { GatewayDevicesContext } from '../context';

/** Runs one command on an inventory device; a device error line is reported (status error), not thrown. */
export function runCommand(svc: GatewayDevicesContext): Handler<'gateway-devices.runCommand'> {
  return async (input, ctx) => {
    const { device, command } = input.body;
    // built inside the session: the answer repeats the command, masked with the output
    return svc.access.withInventoryCli(
      device,
      async (session) => {
        const r = await session.sendCommand(command, pickSendCommandOptions(input.body));
        return {
          status: r.failed ? ('error' as const) : ('success' as const),
          device,
          command,
          response: r.output,
          errorLines: r.errorLines,
          failed: r.failed,
          ...(r.exitCode === undefined ? {} : { exitCode: r.exitCode }),
        };
      },
      { deadline: ctx.deadline },
    );
  };
}
