import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Deletes a device template. */
export function deleteDeviceTemplate(svc: GatewayDevicesContext): Handler<'gateway-devices.deleteDeviceTemplate'> {
  return async (input, ctx) => {
    const removed = await svc.templates.delete(input.params.id, input.caller);
    ctx.audit({ target: { kind: 'device-template', id: input.params.id, name: removed.name } });
    return { status: 'success', message: `Device template "${removed.name}" deleted` };
  };
}
