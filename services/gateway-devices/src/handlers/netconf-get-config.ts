import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';
import { refuseXmlFragment } from '../domain/netconf-xml';

/** `POST /gw/netconf/get_config/execute`: a datastore (running unless named), optionally filtered. */
export function netconfGetConfig(svc: GatewayDevicesContext): Handler<'gateway-devices.netconfGetConfig'> {
  return async (input, ctx) => {
    const { host, connection_options: options = {}, source = 'running', filter } = input.body;
    // a subtree filter is placed inside <filter> as it is; an XPath one is escaped into its select attribute
    if (filter?.trimStart().startsWith('<') === true) refuseXmlFragment('body.filter', filter);
    const data = await svc.access.withNetconf(
      { host, options },
      (session) => session.getConfig({ source, ...(filter === undefined || filter === '' ? {} : { filter }) }),
      { deadline: ctx.deadline },
    );
    return { status: 'success', host, source, data };
  };
}
