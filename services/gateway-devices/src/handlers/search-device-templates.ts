import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Operation 12: device templates whose name contains `name` (case-insensitive), readable by the caller. */
export function searchDeviceTemplates(g: GatewayContext): Handler<'gateway-devices.searchDeviceTemplates'> {
  return async (input) => g.templates.search(input.body.name, input.body.options, input.caller);
}
