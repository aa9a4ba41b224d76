import type { Handler } from '@nap/bus';
import { pickSendConfigSetOptions } from '../clients/netmiko-options';
import type { GatewayContext } from '../context';

/** `POST /gw/sshSendConfigSet`: netmiko `send_config_set`; result `{ output, errors, failed }`. */
export function sshSendConfigSet(g: GatewayContext): Handler<'gateway-devices.sshSendConfigSet'> {
  return async (input, ctx) => {
    const body = input.body;
    const result = await g.access.withCli(
      { host: body.host, options: body.connection_options ?? {} },
      (session) => session.sendConfigSet(body.config_commands, pickSendConfigSetOptions(body)),
      { deadline: ctx.deadline },
    );
    return { status: result.failed ? 'error' : 'success', code: result.failed ? 422 : 200, result };
  };
}
