import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** `GET /gw/knownHosts`: a page of the host keys the gateway trusts. */
export function getKnownHosts(svc: GatewayDevicesContext): Handler<'gateway-devices.getKnownHosts'> {
  return async (input) => svc.knownHosts.list(input.query);
}
