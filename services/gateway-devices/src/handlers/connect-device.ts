import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Logs in to a device and reports its prompt and host key; a failure answers its own error code. */
export function connectDevice(g: GatewayContext): Handler<'gateway-devices.connectDevice'> {
  return async (input, ctx) => {
    const { name } = input.body;
    return g.access.withInventoryCli(
      name,
      async (session) => ({ name, connected: await session.isAlive(), prompt: session.prompt() ?? '', hostKeyFingerprint: session.hostKeyFingerprint() ?? '' }),
      { deadline: ctx.deadline },
    );
  };
}
