import type { Handler } from '@nap/bus';
import { extractData, refuseXmlFragment, rpcOperation } from '../domain/netconf-xml';
import type { GatewayDevicesContext } from '../context';

/** `POST /gw/netconf/exec_rpc/execute`: any operation (or a whole `<rpc>`); answers the reply and its data. */
export function netconfExecRpc(svc: GatewayDevicesContext): Handler<'gateway-devices.netconfExecRpc'> {
  return async (input, ctx) => {
    const { host, connection_options: options = {}, rpc } = input.body;
    const operation = rpcOperation(rpc);
    refuseXmlFragment('body.rpc', operation);
    const reply = await svc.access.withNetconf({ host, options }, (session) => session.rpc(operation), { deadline: ctx.deadline });
    return { status: 'success', host, data: extractData(reply), reply };
  };
}
