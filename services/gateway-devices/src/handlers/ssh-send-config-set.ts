import type { Handler } from '@nap/bus';
import { pickSendConfigSetOptions } from '../clients/netmiko-options';
import type { GatewayDevicesContext } from '../context';

/** `POST /gw/sshSendConfigSet`: netmiko `send_config_set`; result `{ output, errors, failed }`. */
export function sshSendConfigSet(svc: GatewayDevicesContext): Handler<'gateway-devices.sshSendConfigSet'> {
  return async (input, ctx) => {
    const body = input.body;
    const result = await svc.access.withCli(
      { host: body.host, options: body.connection_options ?? {} },
      (session) => session.sendConfigSet(body.config_commands, pickSendConfigSetOptions(body)),
      { deadline: ctx.deadline },
    );
    return { status: result.failed ? 'error' : 'success', code: result.failed ? 422 : 200, result };
  };
}
