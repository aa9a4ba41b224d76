import type { Handler } from '@nap/bus';
import { assertNoMisspelledBody } from '@nap/contracts';
import { commandRunner } from '../clients/device-gateway';
import { singleCommand } from '../domain/commands';

/** `POST /mop/RunCommand`: one command on one device. */
export function runCommand(): Handler<'mop.RunCommand'> {
  return async (input, ctx) => {
    assertNoMisspelledBody(ctx.operation, input.body);
    const { command, device } = input.body;
    const { evaluated, parameters } = singleCommand(command, input.body.variables ?? {});
    const response = await commandRunner(ctx)(device, evaluated);
    return { raw: command, evaluated, device, response, parameters };
  };
}
