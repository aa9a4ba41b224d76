import type { Handler } from '@nap/bus';
import { DEFAULT_SSH_PORT } from '@nap/contracts';
import type { GatewayDevicesContext } from '../context';

/** `POST /gw/ssh/send_command`: the commands in order in one session, `{ command, output }` each. */
export function sshSendCommand(svc: GatewayDevicesContext): Handler<'gateway-devices.sshSendCommand'> {
  return async (input, ctx) => {
    const p = input.body.sshSendCommandParameters;
    const result = await svc.access.withCli(
      { host: p.host, options: p.connection_options, portIsDefault: p.connection_options.port === DEFAULT_SSH_PORT },
      async (session) => {
        const outputs: { command: string; output: string }[] = [];
        for (const command of p.commands) outputs.push({ command, output: (await session.sendCommand(command)).output });
        return outputs;
      },
      { deadline: ctx.deadline },
    );
    return { status: 'success', code: 200, result };
  };
}
