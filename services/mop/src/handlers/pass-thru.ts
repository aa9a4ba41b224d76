import type { Handler } from '@nap/bus';
import { commandRunner } from '../clients/device-gateway';

/** `POST /mop/passThru/:device`: the command as given, no variables, no rules. */
export function passThru(): Handler<'mop.passThru'> {
  return async (input, ctx) => {
    const { device } = input.params;
    const response = await commandRunner(ctx)(device, input.body.command);
    return { device, command: input.body.command, response };
  };
}
