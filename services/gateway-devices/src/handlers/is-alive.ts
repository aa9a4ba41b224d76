import type { Handler } from '@nap/bus';
import { isAppError } from '@nap/contracts';
import type { GatewayDevicesContext } from '../context';

/** Whether a device answers; a device that does not is `alive: false` with the error code, not a failure. */
export function isAlive(svc: GatewayDevicesContext): Handler<'gateway-devices.isAlive'> {
  return async (input, ctx) => {
    const { name } = input.body;
    await svc.inventory.get(name);
    try {
      return { name, alive: await svc.access.withInventoryCli(name, (session) => session.isAlive(), { deadline: ctx.deadline }) };
    } catch (err) {
      if (!isAppError(err) || !err.code.startsWith('DEVICE_')) throw err;
      return { name, alive: false, code: err.code, message: err.message };
    }
  };
}
