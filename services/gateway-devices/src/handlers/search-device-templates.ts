import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** `POST /configuration_manager/templates/search`: device templates whose name contains `name` (case-insensitive), readable by the caller. */
export function searchDeviceTemplates(svc: GatewayDevicesContext): Handler<'gateway-devices.searchDeviceTemplates'> {
  return async (input) => svc.templates.search(input.body.name, input.body.options, input.caller);
}
