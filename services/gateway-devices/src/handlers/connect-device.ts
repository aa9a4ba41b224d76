import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import type { GatewayDevicesContext } from '../context';

/**
 * Logs in to a device and reports its prompt and host key; a failure answers its own error code.
 * The device is `name`, or `deviceName` as the Automation Gateway adapter's tasks name it.
 */
export function connectDevice(svc: GatewayDevicesContext): Handler<'gateway-devices.connectDevice'> {
  return async (input, ctx) => {
    const name = input.body.name ?? input.body.deviceName;
    // the schema asks for one of them; the type cannot say which
    if (name === undefined) throw new AppError('VALIDATION_FAILED', "body must have required property 'name' or 'deviceName'");
    return svc.access.withInventoryCli(
      name,
      async (session) => ({
        name,
        connected: await session.isAlive(),
        prompt: session.prompt() ?? '',
        hostKeyFingerprint: session.hostKeyFingerprint() ?? '',
      }),
      { deadline: ctx.deadline },
    );
  };
}
