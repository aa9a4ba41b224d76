import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import type { CommandOutput } from '@nap/contracts';
import { pickSendCommandOptions } from '../clients/netmiko-options';
import { commandOutput } from '../domain/device-reports';
import type { GatewayDevicesContext } from '../context';

/** `POST /gw/sshSendCommandExec`: netmiko `send_command` for one or more commands in one session; the first device error stops the transaction. */
export function sshSendCommandExec(svc: GatewayDevicesContext): Handler<'gateway-devices.sshSendCommandExec'> {
  return async (input, ctx) => {
    const body = input.body;
    const commands = body.commands ?? (body.command_string === undefined ? [] : [body.command_string]);
    const options = pickSendCommandOptions(body);
    const result = await svc.access.withCli(
      { host: body.host, options: body.connection_options ?? {} },
      async (session) => {
        const outputs: CommandOutput[] = [];
        for (const command of commands) {
          const r = await session.sendCommand(command, options);
          outputs.push(commandOutput(r));
          if (r.failed) {
            throw new AppError(
              'DEVICE_COMMAND_FAILED',
              `${session.label} reported an error for command "${command}": ${r.errorLines[0] ?? 'failed'}; later commands were not sent`,
              {
                details: { command, errorLines: r.errorLines, results: outputs },
              },
            );
          }
        }
        return outputs;
      },
      { deadline: ctx.deadline },
    );
    return { status: 'success', code: 200, result };
  };
}
