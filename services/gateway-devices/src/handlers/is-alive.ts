import type { Handler } from '@nap/bus';
import { isAppError } from '@nap/contracts';
import type { GatewayContext } from '../context';

/** Whether a device answers; a device that does not is `alive: false` with the error code, not a failure. */
export function isAlive(g: GatewayContext): Handler<'gateway-devices.isAlive'> {
  return async (input, ctx) => {
    const { name } = input.body;
    await g.inventory.get(name);
    try {
      return { name, alive: await g.access.withInventoryCli(name, (session) => session.isAlive(), { deadline: ctx.deadline }) };
    } catch (err) {
      if (!isAppError(err) || !err.code.startsWith('DEVICE_')) throw err;
      return { name, alive: false, code: err.code, message: err.message };
    }
  };
}
